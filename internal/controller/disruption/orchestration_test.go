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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

func TestNominatedDestinations(t *testing.T) {
	now := testNow
	o := &orchestrator{now: func() time.Time { return now }}
	cmd := &Command{Placed: []scheduling.Placement{
		{ExistingNode: "node-b"}, {ExistingNode: "nodeclaim/c"}, {NodeClaim: &scheduling.NewNodeClaim{}},
	}}
	o.running = []*running{{cmd: cmd, replacements: []string{"r"}}}
	expect := func(what string, existing sets.Set[string], wantClaims, wantNodes []string) {
		t.Helper()
		claims, nodes := o.nominated(existing)
		if !claims.Equal(sets.New(wantClaims...)) || !nodes.Equal(sets.New(wantNodes...)) {
			t.Errorf("%s: nominated %v and nodes %v, want %v and %v", what, sets.List(claims), sets.List(nodes), wantClaims, wantNodes)
		}
	}
	expect("under way", sets.New("a"), nil, []string{"node-b", "nodeclaim/c"})

	// The command deleted its candidate a, which drains.
	o.running = nil
	o.completed = []*completed{{replacements: []string{"r"}, candidates: []string{"a"}, destinations: destinations(cmd),
		destinationsUntil: now.Add(DestinationNominationGrace), until: now.Add(NominationGrace)}}
	now = now.Add(time.Hour)
	expect("draining, however long", sets.New("a"), []string{"r"}, []string{"node-b", "nodeclaim/c"})

	// a is gone: its pods are bound; the destinations go first, the replacement later.
	now = now.Add(DestinationNominationGrace + time.Second)
	expect("gone a while", sets.New[string](), []string{"r"}, nil)
	now = now.Add(NominationGrace)
	expect("gone long", sets.New[string](), nil, nil)
}
