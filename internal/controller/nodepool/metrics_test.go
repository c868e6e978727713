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

package nodepool

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

func TestCostOf(t *testing.T) {
	types := []*cloudprovider.InstanceType{
		{Name: "m2a.large", Offerings: cloudprovider.Offerings{
			{Zone: "kr-central-2-a", CapacityType: karpv1.CapacityTypeOnDemand, Price: 1.5, Available: true},
			{Zone: "kr-central-2-b", CapacityType: karpv1.CapacityTypeOnDemand, Price: 1.5, Available: false},
		}},
		{Name: "c2a.xlarge", Offerings: cloudprovider.Offerings{
			{Zone: "kr-central-2-a", CapacityType: karpv1.CapacityTypeOnDemand, Price: 2.25, Available: true},
		}},
	}
	claim := func(instanceType, zone string) karpv1.NodeClaim {
		labels := map[string]string{karpv1.LabelNodePool: "default"}
		if instanceType != "" {
			labels[karpv1.LabelInstanceType], labels[karpv1.LabelTopologyZone], labels[karpv1.LabelCapacityType] = instanceType, zone, karpv1.CapacityTypeOnDemand
		}
		return karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
	}
	for _, tc := range []struct {
		name   string
		claims []karpv1.NodeClaim
		want   float64
	}{
		{"none", nil, 0},
		{"launched NodeClaims at their offering's price", []karpv1.NodeClaim{claim("m2a.large", "kr-central-2-a"), claim("c2a.xlarge", "kr-central-2-a")}, 3.75},
		// An offering without capacity now still prices the node running in it.
		{"an offering unavailable now", []karpv1.NodeClaim{claim("m2a.large", "kr-central-2-b")}, 1.5},
		{"a NodeClaim not launched yet", []karpv1.NodeClaim{claim("", ""), claim("m2a.large", "kr-central-2-a")}, 1.5},
		{"a type no longer sold there", []karpv1.NodeClaim{claim("c2a.xlarge", "kr-central-2-b"), claim("gone.large", "kr-central-2-a")}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := costOf(tc.claims, types); got != tc.want {
				t.Errorf("cost %v, want %v", got, tc.want)
			}
		})
	}
}

func TestResourceTypeLabel(t *testing.T) {
	for name, want := range map[corev1.ResourceName]string{
		corev1.ResourceCPU: "cpu", corev1.ResourceEphemeralStorage: "ephemeral_storage", "nvidia.com/gpu": "nvidia.com/gpu", karpv1.ResourceNodes: "nodes",
	} {
		if got := resourceType(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
