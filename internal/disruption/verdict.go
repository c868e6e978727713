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

// ConditionDisruptionBlocked is the NodeClaim condition that keeps the disruption loop's
// latest reason for leaving the node alone, as long as it holds: the event of the same words
// is gone after an hour, the condition stays. Its reason is the event's (DisruptionBlocked,
// Unconsolidatable, DisruptionReplacementFailed, NodeRepairBlocked), or BudgetExhausted for a
// candidate its NodePool's budgets have no room for; it is removed once a pass that tries
// every method no longer holds the node, or a command takes it.
const ConditionDisruptionBlocked = "DisruptionBlocked"

// ReasonBudgetExhausted is the verdict's reason for a candidate its NodePool's budgets have no
// room for now.
const ReasonBudgetExhausted = "BudgetExhausted"

// MaxVerdictMessage bounds the condition's message: the words of one hold, not a list of pods.
const MaxVerdictMessage = 1024

// Verdicts is what the pass says of each node it held, by NodeClaim name: the first word of
// the pass on it.
func Verdicts(d *Decision) map[string]Blocked {
	out := map[string]Blocked{}
	for _, held := range [][]Blocked{d.Blocked, d.BudgetHeld} {
		for _, b := range held {
			if _, ok := out[b.Node.Name()]; !ok {
				out[b.Node.Name()] = b
			}
		}
	}
	return out
}
