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

package simulation

import (
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestNodePoolReasons(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reasons []NodePoolReason
		text    string
	}{
		{"none", nil, "no nodepool to launch capacity from"},
		{"one", []NodePoolReason{{"default", "would exceed limits cpu"}}, "nodepool default: would exceed limits cpu"},
		{"two, one reason with a semicolon of its own", []NodePoolReason{
			{"a", "incompatible requirements: key zone; key arch"},
			{"gpu", "the pod does not tolerate taint nvidia.com/gpu=true:NoSchedule"},
		}, "nodepool a: incompatible requirements: key zone; key arch; nodepool gpu: the pod does not tolerate taint nvidia.com/gpu=true:NoSchedule"},
	} {
		err := &NodePoolsError{Reasons: tc.reasons}
		if err.Error() != tc.text {
			t.Errorf("%s: text %q, want %q", tc.name, err.Error(), tc.text)
		}
	}
	if got := FormatNodePoolReason(NodePoolReason{"a", "zones"}); got != "nodepool a: zones" {
		t.Errorf("an added reason reads %q", got)
	}
}

func TestPodErrorNamesEachNodePool(t *testing.T) {
	limited := poolInput(nodePool("limited", 0))
	limited.Remaining = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	res := Schedule(Input{Pods: []*corev1.Pod{pod("4", "1Gi")}, NodePools: []NodePoolInput{limited}})
	for _, err := range res.PodErrors {
		refused, ok := errors.AsType[*NodePoolsError](err)
		if !ok || !slices.Equal(refused.Reasons, []NodePoolReason{{"limited", "would exceed limits cpu"}}) {
			t.Errorf("error %#v (%q), want the NodePool's limit", err, err)
		}
		return
	}
	t.Fatal("the pod was placed over its NodePool's limit")
}
