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

package disruption

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestPDBIndex checks that the index offers every budget that selects a pod, each once, in the
// namespace's order.
func TestPDBIndex(t *testing.T) {
	var pdbs []pdbInfo
	for _, sel := range []*metav1.LabelSelector{
		{MatchLabels: map[string]string{"app": "web"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"db", "web", "db"}}}},
		{MatchLabels: map[string]string{"tier": "back"}},
		{},
	} {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		pdbs = append(pdbs, pdbInfo{selector: s})
	}
	pdbs = append(pdbs, pdbInfo{selector: labels.Nothing()})
	index := newPDBIndex(pdbs)
	for _, podLabels := range []map[string]string{nil, {"app": "web"}, {"app": "db", "tier": "back"}, {"tier": "front"}} {
		offered := index.candidates(podLabels)
		if !slices.IsSorted(offered) || len(slices.Compact(slices.Clone(offered))) != len(offered) {
			t.Errorf("pod %v: offered %v, want each once and in order", podLabels, offered)
		}
		for i, p := range pdbs {
			if p.selector.Matches(labels.Set(podLabels)) && !slices.Contains(offered, i) {
				t.Errorf("pod %v: budget %d selects it and is not offered (%v)", podLabels, i, offered)
			}
		}
	}
}
