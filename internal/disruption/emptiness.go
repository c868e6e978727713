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

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
)

// emptiness deletes consolidatable empty nodes, as many at once as the budgets for Empty allow.
func (s *Snapshot) emptiness(d *Decision) *Command {
	cands, blocked := s.candidates(emptyAndConsolidatable)
	d.Blocked = append(d.Blocked, blocked...)
	d.Eligible[karpv1.DisruptionReasonEmpty] = len(cands)
	// The most expensive first, as upstream's: when the budget allows fewer than are empty.
	bySavings(cands)
	cands = s.withinBudget(d, cands, karpv1.DisruptionReasonEmpty)
	if len(cands) == 0 {
		return nil
	}
	return &Command{Method: MethodEmptiness, Reason: karpv1.DisruptionReasonEmpty, Candidates: cands, Savings: totalPrice(cands)}
}

// empty reports whether the node is empty as upstream Karpenter counts it since v1.15: moving
// its pods would cost nothing (nodeDisruption is the node's own 1), because it runs no pod that
// would have to move or only pods whose eviction cost is not positive (a priority of -2^25 or
// lower, a karpenter.sh/disruption-cost of -2^27 or lower). Such a node is emptiness's, under the
// Empty budgets, and never consolidation's. A node a CapacityBuffer's virtual pod landed on is
// not empty (upstream's Cluster.HasBufferPods), though such a pod has the lowest priority.
func empty(n *StateNode) bool {
	return nodeDisruption(n) <= 1 && !slices.ContainsFunc(n.Pods, capacitybuffer.IsVirtual)
}

// emptyAndConsolidatable selects emptiness's candidates.
func emptyAndConsolidatable(n *StateNode) bool {
	return consolidatable(n) && empty(n)
}
