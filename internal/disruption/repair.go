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
	"cmp"
	"fmt"
	"slices"
	"time"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// RepairInput is what the repair method reads besides the cluster: the nodes unhealthy past
// a repair policy's toleration, and the NodePools whose circuit breaker holds repair.
type RepairInput struct {
	// Unhealthy are the findings of the unhealthy nodes, by NodeClaim name.
	Unhealthy map[string]repair.Finding
	// Held says, by NodePool name, why repair holds there (repair.Breaker).
	Held map[string]string
}

// repair replaces an unhealthy node, as upstream Karpenter v1.15's repair method does: a
// voluntary disruption paced by the budgets of reason Unhealthy (a node not initialized yet
// runs nothing to protect and needs none), the most urgent node first (its policy's priority,
// then how long it has been eligible), a replacement launched and initialized before a node
// with pods goes, and its drain bounded by its policy's termination grace period. A node
// annotated karpenter.sh/do-not-repair is left alone; one that do-not-disrupt or a
// PodDisruptionBudget holds is repaired only when a termination grace period bounds its
// drain. One command per pass.
//
//nolint:gocyclo // upstream's repair rules in the order they apply to a node (do-not-repair, policy, budget, PDB and do-not-disrupt with and without a grace period); the order is the behaviour
func (s *Snapshot) repair(d *Decision) *Command {
	if s.repairs == nil {
		return nil
	}
	var cands []*Candidate
	for _, n := range s.nodes {
		if n.unhealthy == nil || n.pool == nil || n.Node == nil || n.markedForDisruption() {
			continue
		}
		if why := vetoedRepair(n); why != "" {
			d.Blocked = append(d.Blocked, Blocked{Node: n, Reason: ReasonDisruptionBlocked, Message: why})
			continue
		}
		if why := s.repairs.Held[n.pool.np.Name]; why != "" {
			d.Blocked = append(d.Blocked, Blocked{Node: n, Reason: repair.ReasonNodeRepairBlocked,
				Message: fmt.Sprintf("The node is unhealthy (%s), but %s", n.unhealthy, why)})
			continue
		}
		if !wanted(n) {
			// The pods of a node a method would act on are told anyway (Snapshot.notices).
			d.Notices = append(d.Notices, s.holdOf(n).notices...)
		}
		if why := s.heldBy(n); why != "" && drainBound(n) == nil {
			d.Blocked = append(d.Blocked, Blocked{Node: n, Reason: ReasonDisruptionBlocked,
				Message: fmt.Sprintf("The node is unhealthy (%s), but repair needs a termination grace period to go past what holds it: %s", n.unhealthy, why)})
			continue
		}
		c := &Candidate{StateNode: n}
		for _, pod := range n.Pods {
			if podutil.IsReschedulable(pod) {
				c.Reschedulable = append(c.Reschedulable, pod)
			}
		}
		cands = append(cands, c)
	}
	d.Eligible[karpv1.DisruptionReasonUnhealthy] = len(cands)
	slices.SortStableFunc(cands, func(a, b *Candidate) int {
		return cmp.Or(cmp.Compare(b.unhealthy.Policy.Priority, a.unhealthy.Policy.Priority),
			a.unhealthy.EligibleAt().Compare(b.unhealthy.EligibleAt()), cmp.Compare(a.Name(), b.Name()))
	})
	reported := map[string]bool{}
	for _, c := range cands {
		pool := c.pool.np.Name
		if c.initialized() && s.budget(pool, karpv1.DisruptionReasonUnhealthy).allowed() == 0 {
			if !reported[pool] {
				reported[pool] = true
				d.BudgetBlocked = append(d.BudgetBlocked, PoolBlocked{NodePool: c.pool.np, Reason: karpv1.DisruptionReasonUnhealthy,
					Message: s.budgetMessage(pool, karpv1.DisruptionReasonUnhealthy)})
			}
			continue
		}
		cmd := &Command{Method: MethodRepair, Reason: karpv1.DisruptionReasonUnhealthy, Candidates: []*Candidate{c},
			DrainBound: drainBound(c.StateNode), Repair: c.unhealthy}
		switch {
		case len(c.Reschedulable) == 0:
		case c.pool.static():
			replacement, why := c.pool.staticReplacement()
			if replacement == nil {
				d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: ReasonDisruptionReplacementFailed, Message: "cannot replace the unhealthy node: " + why})
				continue
			}
			cmd.Replacements = []*simulation.NewNodeClaim{replacement}
		default:
			// Every pod that will leave is placed first, those a budget holds now too: the
			// drain bound lets them go.
			res := s.simulate(cmd.Candidates, false)
			if err := firstPodError(res); err != "" {
				d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: ReasonDisruptionReplacementFailed,
					Message: "cannot replace the unhealthy node: " + err})
				continue
			}
			cmd.Replacements, cmd.Placed = res.NewNodeClaims, res.Placed
		}
		cmd.Savings = totalPrice(cmd.Candidates) - simulation.LaunchPrice(cmd.Replacements)
		return cmd
	}
	return nil
}

// vetoedRepair says why karpenter.sh/do-not-repair keeps repair off the node ("" when it
// does not): on the node or on its NodeClaim.
func vetoedRepair(n *StateNode) string {
	if n.Node.Annotations[karpv1.DoNotRepairAnnotationKey] == "true" {
		return fmt.Sprintf("The node is unhealthy (%s), but repair is blocked through the %s annotation on node %s", n.unhealthy, karpv1.DoNotRepairAnnotationKey, n.Node.Name)
	}
	if n.NodeClaim.Annotations[karpv1.DoNotRepairAnnotationKey] == "true" {
		return fmt.Sprintf("The node is unhealthy (%s), but repair is blocked through the %s annotation on nodeclaim %s", n.unhealthy, karpv1.DoNotRepairAnnotationKey, n.NodeClaim.Name)
	}
	return ""
}

// drainBound is how long the repaired node's drain may take: the shorter of its policy's
// termination grace period and its NodeClaim's, nil when neither sets one (the drain then
// waits on evictions as any disruption's does).
func drainBound(n *StateNode) *time.Duration {
	bound := n.unhealthy.TerminationGracePeriod
	if tgp := n.NodeClaim.Spec.TerminationGracePeriod; tgp != nil && (bound == nil || tgp.Duration < *bound) {
		bound = &tgp.Duration
	}
	return bound
}
