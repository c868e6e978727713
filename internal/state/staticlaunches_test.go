// Copyright 2026 The karpenter-provider-kakaocloud Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package state

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

func TestStaticNodeRoom(t *testing.T) {
	pool := func(limits karpv1.Limits) *karpv1.NodePool {
		return &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "static"}, Spec: karpv1.NodePoolSpec{Replicas: new(int64(3)), Limits: limits}}
	}
	nodes := func(n string) karpv1.Limits { return karpv1.Limits{karpv1.ResourceNodes: resource.MustParse(n)} }
	for _, tc := range []struct {
		name       string
		np         *karpv1.NodePool
		nodeClaims []*karpv1.NodeClaim
		room       int
		why        string
		limited    bool
	}{
		{name: "no limits.nodes", np: pool(karpv1.Limits{"cpu": resource.MustParse("4")}),
			nodeClaims: []*karpv1.NodeClaim{claim("a", "static", nil, nil, false)}},
		{name: "room left", np: pool(nodes("3")), limited: true, room: 2,
			nodeClaims: []*karpv1.NodeClaim{claim("a", "static", nil, nil, false), claim("b", "other", nil, nil, false)}},
		{name: "a NodeClaim being deleted counts until it is gone", np: pool(nodes("2")), limited: true,
			nodeClaims: []*karpv1.NodeClaim{claim("a", "static", nil, nil, false), claim("b", "static", nil, nil, true)},
			why:        "limits.nodes (2) allows no more: the NodePool has 2 NodeClaims, 1 of them being deleted"},
		{name: "over the limit (lowered under the NodePool)", np: pool(nodes("1")), limited: true,
			nodeClaims: []*karpv1.NodeClaim{claim("a", "static", nil, nil, false), claim("b", "static", nil, nil, false)},
			why:        "limits.nodes (1) allows no more: the NodePool has 2 NodeClaims, 0 of them being deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			room, why, limited := StaticNodeRoom(tc.np, tc.nodeClaims)
			if room != tc.room || why != tc.why || limited != tc.limited {
				t.Errorf("StaticNodeRoom = %d, %q, %v; want %d, %q, %v", room, why, limited, tc.room, tc.why, tc.limited)
			}
		})
	}
}
