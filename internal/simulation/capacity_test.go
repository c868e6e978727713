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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// inFlight is a NodeClaim of NodePool a, launched when it has an allocatable.
func inFlight(name string, allocatable, requests corev1.ResourceList) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.LabelNodePool: "a"}},
		Spec:       karpv1.NodeClaimSpec{Resources: karpv1.ResourceRequirements{Requests: requests}},
		Status:     karpv1.NodeClaimStatus{Capacity: allocatable, Allocatable: allocatable},
	}
}

func cpu(q string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
}

func TestInFlightCapacity(t *testing.T) {
	launched := InFlightCapacity(inFlight("launched", cpu("4"), cpu("1")))
	if launched.ID != destination.NodeClaimNamed("launched") || launched.Allocatable.Cpu().Cmp(resource.MustParse("4")) != 0 || launched.Requirements != nil {
		t.Errorf("a launched NodeClaim is sized by its allocatable: %+v", launched)
	}
	c := inFlight("launching", nil, cpu("2"))
	c.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"z1"}}}
	launching := InFlightCapacity(c)
	if launching.Allocatable.Cpu().Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("a NodeClaim not launched yet is sized by what it was created for: %v", launching.Allocatable)
	}
	if !launching.Requirements.Has(corev1.LabelTopologyZone) || !launching.Requirements.Has(karpv1.LabelNodePool) {
		t.Errorf("a NodeClaim not launched yet is shaped by its requirements and labels: %v", launching.Requirements)
	}
}
