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
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// emptiness deletes consolidatable nodes that run no pods that would have to move, as many at
// once as the budgets for Empty allow.
func (s *Snapshot) emptiness(d *Decision) *Command {
	cands, blocked := s.candidates(func(n *StateNode) bool { return consolidatable(n) && !hasReschedulable(n) })
	d.Blocked = append(d.Blocked, blocked...)
	d.Eligible[karpv1.DisruptionReasonEmpty] = len(cands)
	cands = s.withinBudget(d, cands, karpv1.DisruptionReasonEmpty)
	if len(cands) == 0 {
		return nil
	}
	return &Command{Method: MethodEmptiness, Reason: karpv1.DisruptionReasonEmpty, Candidates: cands, Savings: totalPrice(cands)}
}

func hasReschedulable(n *StateNode) bool {
	return slices.ContainsFunc(n.Pods, podutil.IsReschedulable)
}
