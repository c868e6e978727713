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

package layout

import (
	"path/filepath"
	"slices"
	"testing"
)

// stillForbidden are the arrows the layering rules forbid that the code still has, each to be
// removed by moving the decision it reaches for into a library below the controllers. The
// list only shrinks: an arrow that is gone must leave it, and a new one fails.
var stillForbidden = []Arrow{}

func TestTheProjectKeepsItsLayers(t *testing.T) {
	g, err := LoadGraph(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range g.Untiered() {
		t.Errorf("%s is in no tier: add its directory to tiers in layers.go", pkg)
	}
	for _, a := range g.Upward() {
		from, _ := LayerOf(a.From)
		to, _ := LayerOf(a.To)
		t.Errorf("%s (%s) imports %s (%s), a higher tier", a.From, from, a.To, to)
	}
	var forbidden []Arrow
	for _, v := range g.Violations() {
		forbidden = append(forbidden, v.Arrow)
		if !slices.Contains(stillForbidden, v.Arrow) {
			t.Errorf("new forbidden import: %s", v)
		}
	}
	for _, a := range stillForbidden {
		if !slices.Contains(forbidden, a) {
			t.Errorf("%s no longer imports %s: take the arrow off stillForbidden", a.From, a.To)
		}
	}
}

func TestEachRuleForbidsWhatItSays(t *testing.T) {
	for _, tc := range []struct {
		arrow     Arrow
		forbidden bool
	}{
		{Arrow{"internal/webhook", "internal/controller/nodeclass"}, true},
		{Arrow{"internal/explain", "internal/controller/provisioning"}, true},
		{Arrow{"internal/plugin", "internal/controller/disruption"}, true},
		{Arrow{"internal/plugin", "internal/disruption"}, false},
		{Arrow{"internal/preflight", "internal/controller/nodeclass"}, true},
		{Arrow{"internal/webhook", "internal/scheduling"}, false},
		{Arrow{"internal/controller/disruption", "internal/controller/node/health"}, true},
		{Arrow{"internal/controller/nodepool/static", "internal/controller/nodepool"}, true},
		{Arrow{"internal/controller/disruption", "internal/state"}, false},
		{Arrow{"internal/controller/disruption", "internal/cloudprovider/kakao"}, true},
		{Arrow{"internal/scheduling", "internal/cloudprovider/kakao"}, true},
		{Arrow{"internal/explain", "internal/cloudprovider/kakao"}, true},
		{Arrow{"internal/controller/disruption", "internal/cloudprovider"}, false},
		{Arrow{"internal/operator", "internal/cloudprovider/kakao"}, false},
		{Arrow{"cmd", "internal/cloudprovider/kakao"}, false},
		{Arrow{"internal/preflight", "internal/cloudprovider/kakao"}, false},
		{Arrow{"internal/operator", "internal/controller/disruption"}, false},
	} {
		g := &Graph{Packages: []string{tc.arrow.From}, Imports: map[string][]string{tc.arrow.From: {tc.arrow.To}}}
		if got := len(g.Violations()) > 0; got != tc.forbidden {
			t.Errorf("%s -> %s: forbidden %t, want %t (%v)", tc.arrow.From, tc.arrow.To, got, tc.forbidden, g.Violations())
		}
	}
}

func TestAnImportOfAHigherTierRunsUpward(t *testing.T) {
	g := &Graph{
		Packages: []string{"internal/scheduling", "internal/state", "internal/utils/pod"},
		Imports: map[string][]string{
			"internal/scheduling": {"internal/controller/provisioning", "internal/utils/pod"},
			"internal/state":      {"internal/scheduling"},
			"internal/utils/pod":  {"internal/kakaocloud"},
		},
	}
	want := []Arrow{{"internal/scheduling", "internal/controller/provisioning"}, {"internal/utils/pod", "internal/kakaocloud"}}
	if got := g.Upward(); !slices.Equal(got, want) {
		t.Errorf("upward %v, want %v", got, want)
	}
}
