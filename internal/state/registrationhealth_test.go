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

import "testing"

func TestRegistrationHealth(t *testing.T) {
	for _, tc := range []struct {
		name          string
		seed          *bool // before the outcomes, or after them with seedLast
		seedLast      bool
		outcomes      []bool
		total, failed int
		unhealthy     bool
	}{
		{name: "nothing recorded: unknown"},
		{name: "one registered", outcomes: []bool{true}, total: 1},
		{name: "one of one failed", outcomes: []bool{false}, total: 1, failed: 1},
		{name: "two of three failed", outcomes: []bool{true, false, false}, total: 3, failed: 2, unhealthy: true},
		{name: "only the last four count", outcomes: []bool{false, false, true, true, true, false}, total: 4, failed: 1},
		{name: "two of the last four failed", outcomes: []bool{true, false, true, false, true}, total: 4, failed: 2, unhealthy: true},
		{name: "seeded healthy after a restart", seed: new(true), total: 1},
		{name: "seeded unhealthy after a restart", seed: new(false), total: 2, failed: 2, unhealthy: true},
		{name: "a seed does not replace what was recorded", seed: new(false), seedLast: true, outcomes: []bool{true}, total: 1},
		{name: "seeded unhealthy, then registrations bring it back", seed: new(false), outcomes: []bool{true, true, true}, total: 4, failed: 1},
		{name: "seeded unhealthy, one registration is not enough", seed: new(false), outcomes: []bool{true}, total: 3, failed: 2, unhealthy: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewRegistrationHealth()
			h.Record("other", false)
			if tc.seed != nil && !tc.seedLast {
				h.Seed("pool", *tc.seed)
			}
			for _, registered := range tc.outcomes {
				h.Record("pool", registered)
			}
			if tc.seed != nil && tc.seedLast {
				h.Seed("pool", *tc.seed)
			}
			total, failed := h.Outcomes("pool")
			if total != tc.total || failed != tc.failed || Unhealthy(total, failed) != tc.unhealthy {
				t.Errorf("%d outcomes, %d failed, unhealthy %v; want %d, %d, %v", total, failed, Unhealthy(total, failed), tc.total, tc.failed, tc.unhealthy)
			}
			h.Forget("pool")
			if total, _ := h.Outcomes("pool"); total != 0 {
				t.Errorf("forgotten, yet %d outcomes", total)
			}
		})
	}
}
