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

import "sync"

// RegistrationWindow is how many of a NodePool's latest registration outcomes count, and
// RegistrationFailureShare the share of them that, failed, make it unhealthy: with upstream
// Karpenter's 4 and one half, two failures among the last four launches.
const (
	RegistrationWindow        = 4
	RegistrationFailureShare  = 0.5
	registrationFailuresAbove = RegistrationWindow * RegistrationFailureShare
)

// RegistrationHealth remembers, per NodePool, whether the NodeClaims it launched last had
// their node register in time. The NodeClaim lifecycle records each outcome once; the NodePool
// controller turns them into the NodePool's NodeRegistrationHealthy condition, and forgets
// them when the NodePool or its KCNodeClass changes (an outcome of the old settings says
// nothing of the new ones). Outcomes live in memory: after a restart the NodePool controller
// starts from the condition the NodePool carries.
type RegistrationHealth struct {
	mu    sync.Mutex
	pools map[string][]bool // latest last, at most RegistrationWindow
}

// NewRegistrationHealth returns a tracker with no outcomes.
func NewRegistrationHealth() *RegistrationHealth {
	return &RegistrationHealth{pools: map[string][]bool{}}
}

// Record adds an outcome for the NodePool: registered, or not in time.
func (h *RegistrationHealth) Record(nodePool string, registered bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	outcomes := append(h.pools[nodePool], registered)
	if len(outcomes) > RegistrationWindow {
		outcomes = outcomes[len(outcomes)-RegistrationWindow:]
	}
	h.pools[nodePool] = outcomes
}

// Seed sets the outcomes of a NodePool that has none, as the condition it carries says they
// were (a restarted operator): one success for True, enough failures for False.
func (h *RegistrationHealth) Seed(nodePool string, healthy bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pools[nodePool]) > 0 {
		return
	}
	if healthy {
		h.pools[nodePool] = []bool{true}
		return
	}
	h.pools[nodePool] = make([]bool, int(registrationFailuresAbove))
}

// Forget drops the NodePool's outcomes.
func (h *RegistrationHealth) Forget(nodePool string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.pools, nodePool)
}

// Outcomes returns how many of the NodePool's latest outcomes there are and how many failed.
func (h *RegistrationHealth) Outcomes(nodePool string) (total, failed int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, registered := range h.pools[nodePool] {
		total++
		if !registered {
			failed++
		}
	}
	return total, failed
}

// Unhealthy reports whether failed of total outcomes make a NodePool unhealthy.
func Unhealthy(total, failed int) bool {
	return total > 0 && float64(failed) >= registrationFailuresAbove
}
