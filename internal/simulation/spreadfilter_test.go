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

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// TestSpreadCountsClaimsMatchingAnyTerm: a spread with nodeAffinityPolicy Honor counts a
// NodeClaim that matches any of the pod's required node-affinity terms (they are ORed), as
// the kube-scheduler counts a node; before, only the first term was read.
func TestSpreadCountsClaimsMatchingAnyTerm(t *testing.T) {
	term := func(family string) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{family}}}}
	}
	p := pod("1", "1Gi", func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{term("x9z"), term("c2a")}}}}
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule}}
	})
	f := newSpreadFilter(p, &p.Spec.TopologySpreadConstraints[0])
	claim := func(family string) scheduling.Requirements {
		return scheduling.NewRequirements(scheduling.NewRequirement(kcv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, family),
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zoneA))
	}
	if !f.admitsClaim(claim("c2a"), nil) {
		t.Errorf("a NodeClaim of the second term's family is not counted")
	}
	if f.admitsClaim(claim("m2a"), nil) {
		t.Errorf("a NodeClaim no term matches is counted")
	}
}
