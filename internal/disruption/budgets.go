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
	"math"
	"slices"
	"strings"
	"time"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Unlimited is what a NodePool allows when none of its budgets is active for a reason.
const Unlimited = math.MaxInt32

// BudgetActive reports whether a budget applies at now: always without a schedule, otherwise
// when the schedule fired within the last duration. A schedule that does not parse is an
// error; callers treat it as a budget of zero (fail closed).
func BudgetActive(b karpv1.Budget, now time.Time) (bool, error) {
	if b.Schedule == nil {
		return true, nil
	}
	if b.Duration == nil {
		return false, fmt.Errorf("budget schedule %q has no duration", *b.Schedule)
	}
	schedule, err := karpv1.ParseBudgetSchedule(*b.Schedule)
	if err != nil {
		return false, fmt.Errorf("budget schedule %q: %w", *b.Schedule, err)
	}
	now = now.UTC()
	next := schedule.Next(now.Add(-b.Duration.Duration))
	return !next.After(now), nil
}

// Allowance is what a NodePool's budgets allow for one reason at one time.
type Allowance struct {
	// Nodes is the most nodes that may be disrupted at once for the reason (Unlimited when no
	// budget applies); nodes already being disrupted are not subtracted.
	Nodes int
	// Budget is the index of the budget that sets Nodes, -1 when none does.
	Budget int
	// Err is set when a budget could not be read; such a budget allows nothing.
	Err error
}

// AllowedDisruptions evaluates a NodePool's budgets for reason at now, for a NodePool of
// total nodes. The most restrictive active budget that applies to the reason wins.
func AllowedDisruptions(np *karpv1.NodePool, reason karpv1.DisruptionReason, now time.Time, total int) Allowance {
	out := Allowance{Nodes: Unlimited, Budget: -1}
	for i, b := range np.Spec.Disruption.Budgets {
		if len(b.Reasons) > 0 && !slices.Contains(b.Reasons, reason) {
			continue
		}
		active, err := BudgetActive(b, now)
		var n int
		switch {
		case err != nil:
			out.Err, n = err, 0
		case !active:
			continue
		default:
			if n, err = karpv1.NodeCount(b.Nodes, total); err != nil {
				out.Err, n = fmt.Errorf("budget nodes: %w", err), 0
			}
		}
		if n < out.Nodes {
			out.Nodes, out.Budget = n, i
		}
	}
	return out
}

// BudgetNode is what the budgets count of one node of a NodePool.
type BudgetNode struct {
	// Initialized: the node registered and initialized. Terminating: its VM is being deleted.
	Initialized, Terminating bool
	// Disrupted: it is being disrupted (deleted, tainted by a command, or in one's flight).
	Disrupted bool
	Ready     bool
}

// BudgetCounts says whether a node counts among its NodePool's nodes for the budgets of
// reason, and whether it uses one of them up.
func BudgetCounts(n BudgetNode, reason karpv1.DisruptionReason) (counts, disrupting bool) {
	if !n.Initialized || n.Terminating {
		return false, false
	}
	// A NotReady node uses up the budgets as one being disrupted would, but not repair's:
	// NotReady is what repair acts on, and unhealthy nodes would otherwise keep their own
	// repair from starting, as upstream Karpenter counts them.
	return true, n.Disrupted || (!n.Ready && reason != karpv1.DisruptionReasonUnhealthy)
}

// DescribeBudget names a budget for messages: `budget 1 (nodes: "0", schedule "0 9 * * *"
// for 8h)`.
func DescribeBudget(np *karpv1.NodePool, i int) string {
	if i < 0 || i >= len(np.Spec.Disruption.Budgets) {
		return "no budget"
	}
	b := np.Spec.Disruption.Budgets[i]
	s := fmt.Sprintf("budget %d (nodes: %q", i, b.Nodes)
	if b.Schedule != nil && b.Duration != nil {
		s += fmt.Sprintf(", schedule %q for %s", *b.Schedule, b.Duration.Duration)
	}
	if len(b.Reasons) > 0 {
		reasons := make([]string, len(b.Reasons))
		for j, r := range b.Reasons {
			reasons[j] = string(r)
		}
		s += ", reasons " + strings.Join(reasons, ",")
	}
	return s + ")"
}
