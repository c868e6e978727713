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
	"fmt"
	"time"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// DefaultValidationDelay is how long a consolidation command waits before it is checked again
// and carried out.
const DefaultValidationDelay = 15 * time.Second

// Validate checks a command decided on an earlier snapshot against this one: every candidate
// is still a candidate for the same reason, the budgets still allow them all, and (for
// consolidation) their pods still fit elsewhere without more than what was decided. It
// returns the command to carry out, with fresh replacements, or why it no longer holds. An
// emptiness command keeps the nodes that still qualify instead (validateEmpty).
//
//nolint:gocyclo // every check a command must pass again after the validation delay, in upstream's order, each with the reason it gives
func (s *Snapshot) Validate(cmd *Command) (*Command, string) {
	eligible := map[karpv1.DisruptionReason]func(*StateNode) bool{
		karpv1.DisruptionReasonEmpty:         emptyAndConsolidatable,
		karpv1.DisruptionReasonUnderutilized: underusedAndConsolidatable,
		karpv1.DisruptionReasonDrifted:       drifted,
	}[cmd.Reason]
	if eligible == nil {
		return nil, fmt.Sprintf("unknown reason %q", cmd.Reason)
	}
	want := map[string]bool{}
	for _, c := range cmd.Candidates {
		want[c.Name()] = true
	}
	cands, blocked := s.candidates(func(n *StateNode) bool { return want[n.Name()] && eligible(n) })
	if cmd.Reason == karpv1.DisruptionReasonEmpty {
		return s.validateEmpty(cmd, cands, blocked)
	}
	for _, b := range blocked {
		return nil, fmt.Sprintf("nodeclaim %s: %s", b.Node.Name(), b.Message)
	}
	if len(cands) != len(cmd.Candidates) {
		found := map[string]bool{}
		for _, c := range cands {
			found[c.Name()] = true
		}
		for name := range want {
			if !found[name] {
				return nil, fmt.Sprintf("nodeclaim %s is no longer a candidate for %s", name, cmd.Reason)
			}
		}
	}
	perPool := map[string]int{}
	for _, c := range cands {
		perPool[c.pool.np.Name]++
	}
	for name, n := range perPool {
		if allowed := s.budget(name, cmd.Reason).allowed(); n > allowed {
			return nil, fmt.Sprintf("NodePool %s's budgets now allow %d %s disruptions, the command has %d", name, allowed, cmd.Reason, n)
		}
	}
	fresh := &Command{Method: cmd.Method, Reason: cmd.Reason, Candidates: cands, Savings: totalPrice(cands)}
	if cmd.Reason != karpv1.DisruptionReasonUnderutilized {
		fresh.Replacements = cmd.Replacements
		return fresh, ""
	}
	// What the scores were is the decision's to report, not the validation's.
	again, why := s.consolidate(&Decision{}, cands)
	switch {
	case again == nil:
		return nil, why
	case len(again.Replacements) > len(cmd.Replacements):
		return nil, "its pods now need a new node"
	}
	again.Method = cmd.Method
	return again, ""
}

// validateEmpty is Validate for empty nodes, as upstream's emptiness validation: the nodes
// still empty and unblocked go, as many as each NodePool's budgets allow now, and the command
// is given up only when none is left. One node that took a pod during the delay does not
// keep a hundred empty ones for another round.
func (s *Snapshot) validateEmpty(cmd *Command, cands []*Candidate, blocked []Blocked) (*Command, string) {
	// What the budgets hold back is the decision's to explain, not the validation's.
	kept := s.withinBudget(&Decision{}, cands, cmd.Reason)
	switch {
	case len(kept) > 0:
		return &Command{Method: cmd.Method, Reason: cmd.Reason, Candidates: kept, Savings: totalPrice(kept)}, ""
	case len(cands) > 0:
		return nil, fmt.Sprintf("the budgets now allow no %s disruption of its %d nodeclaims still empty", cmd.Reason, len(cands))
	case len(blocked) > 0:
		return nil, fmt.Sprintf("nodeclaim %s: %s", blocked[0].Node.Name(), blocked[0].Message)
	}
	return nil, fmt.Sprintf("none of its %d nodeclaims is still a candidate for %s", len(cmd.Candidates), cmd.Reason)
}
