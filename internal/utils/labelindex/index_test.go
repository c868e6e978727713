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

package labelindex

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestEachOffersEveryMatch checks that the index offers every item whose selector matches the
// labels, each once.
func TestEachOffersEveryMatch(t *testing.T) {
	var selectors []labels.Selector
	for _, sel := range []*metav1.LabelSelector{
		{MatchLabels: map[string]string{"app": "web"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"db", "web", "db"}}}},
		{MatchLabels: map[string]string{"tier": "back"}},
		{MatchLabels: map[string]string{"app": "web", "tier": "front"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}},
		{},
	} {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		selectors = append(selectors, s)
	}
	selectors = append(selectors, labels.Nothing())
	items := make([]int, len(selectors))
	for i := range items {
		items[i] = i
	}
	index := New(items, func(i int) labels.Selector { return selectors[i] })
	for _, set := range []map[string]string{nil, {"app": "web"}, {"app": "db", "tier": "back"}, {"tier": "front"}, {"app": "web", "tier": "front"}} {
		var offered []int
		index.Each(set, func(i int) { offered = append(offered, i) })
		if len(slices.Compact(slices.Sorted(slices.Values(offered)))) != len(offered) {
			t.Errorf("labels %v: offered %v, want each once", set, offered)
		}
		for i, s := range selectors {
			if s.Matches(labels.Set(set)) && !slices.Contains(offered, i) {
				t.Errorf("labels %v: selector %d (%s) matches and is not offered (%v)", set, i, s, offered)
			}
		}
	}
	// A selector that requires values is offered only for labels carrying one of them.
	var offered []int
	index.Each(map[string]string{"app": "api"}, func(i int) { offered = append(offered, i) })
	if slices.Contains(offered, 0) || slices.Contains(offered, 2) {
		t.Errorf("labels app=api: offered %v, which includes selectors requiring app=web or app in (db, web)", offered)
	}
}
