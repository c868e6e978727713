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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

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

// maxVerdictMessage bounds the condition's message: the words of one hold, not a list of pods.
const maxVerdictMessage = 1024

// Verdict is a change a decision makes to one NodeClaim's DisruptionBlocked condition: set
// True with Reason and Message (Held), or removed.
type Verdict struct {
	NodeClaim *karpv1.NodeClaim
	// Held sets the condition; otherwise it is removed.
	Held            bool
	Reason, Message string
}

// verdicts are the changes to each NodeClaim's ConditionDisruptionBlocked the decision makes:
// set for the nodes it held (with the first word of the decision on each), removed from those
// a complete decision (every method tried) no longer holds and from the command's candidates,
// left as it is otherwise. A condition that already says the same is not changed.
func (s *Snapshot) verdicts(d *Decision, complete bool) []Verdict {
	held := firstWords(d)
	taken := sets.New[string]()
	if d.Command != nil {
		taken.Insert(d.Command.Names()...)
	}
	var out []Verdict
	for _, n := range s.nodes {
		b, isHeld := held[n.Name()]
		current := meta.FindStatusCondition(n.NodeClaim.Status.Conditions, ConditionDisruptionBlocked)
		switch {
		case isHeld && !taken.Has(n.Name()):
			message := b.Message
			if len(message) > maxVerdictMessage {
				message = message[:maxVerdictMessage-3] + "..."
			}
			if current != nil && current.Status == metav1.ConditionTrue && current.Reason == b.Reason && current.Message == message {
				continue
			}
			out = append(out, Verdict{NodeClaim: n.NodeClaim, Held: true, Reason: b.Reason, Message: message})
		case current != nil && (complete || taken.Has(n.Name())):
			out = append(out, Verdict{NodeClaim: n.NodeClaim})
		}
	}
	return out
}

// firstWords is what the decision says of each node it held, by NodeClaim name: the first
// word on it, the methods' before the budgets'.
func firstWords(d *Decision) map[string]Blocked {
	out := map[string]Blocked{}
	for _, words := range [][]Blocked{d.Blocked, d.BudgetHeld} {
		for _, b := range words {
			if _, ok := out[b.Node.Name()]; !ok {
				out[b.Node.Name()] = b
			}
		}
	}
	return out
}
