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

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// MaxMultiNodeCandidates caps how many nodes multi-node consolidation considers at once.
const MaxMultiNodeCandidates = 100

// Default time limits of the consolidation methods; past them, a method stops with what it
// has found so far.
const (
	DefaultMultiNodeTimeout  = time.Minute
	DefaultSingleNodeTimeout = 3 * time.Minute
)

// Options tune one decision.
type Options struct {
	// SkipConsolidation leaves out multi- and single-node consolidation, for when nothing
	// changed since a pass that found nothing to do.
	SkipConsolidation bool
	// MultiNodeTimeout and SingleNodeTimeout bound the consolidation methods; zero means the
	// defaults.
	MultiNodeTimeout, SingleNodeTimeout time.Duration
	// Clock reads the time for the timeouts; the real clock when nil.
	Clock func() time.Time
	// Resume starts the decision at this method, leaving out those before it: a batch's next
	// decision (DecideBatch).
	Resume string
	// Tried are candidates single-node consolidation passes over: it found no move for them
	// earlier in the batch.
	Tried sets.Set[string]
}

// Decision is the outcome of one pass over the methods: everything the decision found, for
// the loop to report and carry out. Nothing of it is left on the snapshot.
type Decision struct {
	// Command is what to do, nil when nothing.
	Command *Command
	// Batch are the commands to carry out: Command, then the consolidation moves DecideBatch
	// decided after it on the cluster with those before them carried out; nil when Command is.
	Batch []*Command
	// Blocked explains each node a method looked at and left alone.
	Blocked []Blocked
	// BudgetBlocked lists, for each reason, the NodePools with candidates that their budgets
	// allow no disruption of now.
	BudgetBlocked []PoolBlocked
	// BudgetHeld are those candidates, each with its NodePool's budget message: for the
	// NodeClaims' DisruptionBlocked condition, not for events (the NodePool has its event).
	BudgetHeld []Blocked
	// Eligible counts the candidates each method found, by reason.
	Eligible map[karpv1.DisruptionReason]int
	// TimedOut names the methods that ran out of time.
	TimedOut []string
	// Consolidated is true when consolidation ran and found nothing to do.
	Consolidated bool
	// Evaluations are how long each method that ran took, in the order they ran.
	Evaluations []Evaluation
	// Notices are what the pods of the nodes a method would act on, and of the unhealthy
	// nodes repair looked at, are to be told about their karpenter.sh/do-not-disrupt
	// annotations: once each, until when a duration holds the node, that it no longer does,
	// or that the value is not valid.
	Notices []PodNotice
	// Scores are the consolidation moves Balanced NodePools scored, approved or not.
	Scores []Score
	// Budgets are what each NodePool's budgets allow now, by NodePool name and then reason.
	Budgets []PoolBudget
	// Verdicts are the changes to the NodeClaims' DisruptionBlocked condition, by NodeClaim
	// name: set where the decision held a node, removed where it no longer does (verdicts).
	Verdicts []Verdict

	// consolidationCands are the consolidation candidates, which both consolidation methods
	// look at, once found.
	consolidationCands *[]*Candidate
}

// Evaluation is one method's run: its command's reason and consolidation type (as Command
// labels them), and how long it took.
type Evaluation struct {
	Method   string
	Reason   karpv1.DisruptionReason
	Duration time.Duration
}

// ConsolidationType is the evaluation's consolidation_type label, as Command's.
func (e Evaluation) ConsolidationType() string {
	return (&Command{Method: e.Method}).ConsolidationType()
}

// PoolBlocked says that a NodePool's budgets allow no disruption for a reason.
type PoolBlocked struct {
	NodePool *karpv1.NodePool
	Reason   karpv1.DisruptionReason
	Message  string
}

// PoolBudget is what a NodePool's budgets allow for one reason now, for the metrics.
type PoolBudget struct {
	NodePool string
	Reason   karpv1.DisruptionReason
	// Allowed is how many of its nodes may be disrupted at once (Unlimited when no budget
	// applies), before those already being disrupted are subtracted; Disrupting is how many
	// are being disrupted now.
	Allowed, Disrupting int
}

// Decide tries the methods in order (repair, emptiness, drift, multi-node then single-node
// consolidation) and returns the first command one of them produces, with everything the
// decision found on the way. Repair comes first, as upstream's: fixing a fault outranks any
// saving.
func (s *Snapshot) Decide(opts Options) *Decision {
	d := &Decision{Eligible: map[karpv1.DisruptionReason]int{}, Notices: s.notices(), Budgets: s.poolBudgets()}
	s.runMethods(d, opts)
	if d.Command != nil {
		d.Batch = []*Command{d.Command}
	}
	// Every method was tried when consolidation ran to the end on the whole cluster.
	d.Verdicts = s.verdicts(d, d.Consolidated && opts.Resume == "")
	return d
}

// runMethods runs the methods in order until one decides a command.
func (s *Snapshot) runMethods(d *Decision, opts Options) {
	now := clockOf(opts)
	methods := []struct {
		name   string
		reason karpv1.DisruptionReason
		run    func() *Command
	}{
		{MethodRepair, karpv1.DisruptionReasonUnhealthy, func() *Command { return s.repair(d) }},
		{MethodEmptiness, karpv1.DisruptionReasonEmpty, func() *Command { return s.emptiness(d) }},
		{MethodDrift, karpv1.DisruptionReasonDrifted, func() *Command { return s.drift(d) }},
		{MethodMultiNode, karpv1.DisruptionReasonUnderutilized, func() *Command { return s.multiNode(d, opts) }},
		{MethodSingleNode, karpv1.DisruptionReasonUnderutilized, func() *Command { return s.singleNode(d, opts) }},
	}
	resumed := opts.Resume == ""
	for _, m := range methods {
		if opts.SkipConsolidation && m.reason == karpv1.DisruptionReasonUnderutilized {
			return
		}
		if resumed = resumed || m.name == opts.Resume; !resumed {
			continue
		}
		start := now()
		d.Command = m.run()
		d.Evaluations = append(d.Evaluations, Evaluation{Method: m.name, Reason: m.reason, Duration: now().Sub(start)})
		if d.Command != nil {
			return
		}
	}
	d.Consolidated = true
}

// withinBudget keeps, per NodePool, as many candidates as its budget for reason allows, and
// records the pools whose budget allows none.
func (s *Snapshot) withinBudget(d *Decision, cands []*Candidate, reason karpv1.DisruptionReason) []*Candidate {
	left := map[string]int{}
	reported := sets.New[string]()
	var out []*Candidate
	for _, c := range cands {
		name := c.pool.np.Name
		if _, ok := left[name]; !ok {
			left[name] = s.budget(name, reason).allowed()
		}
		if left[name] > 0 {
			left[name]--
			out = append(out, c)
			continue
		}
		held := s.budgetMessage(name, reason)
		if allowed := s.budget(name, reason).allowed(); allowed > 0 {
			held = fmt.Sprintf("NodePool %s's budgets allow %d %s disruptions now, which went to candidates before this one", name, allowed, reason)
		}
		d.BudgetHeld = append(d.BudgetHeld, Blocked{Node: c.StateNode, Reason: ReasonBudgetExhausted, Message: held})
		if !reported.Has(name) && s.budget(name, reason).allowed() == 0 {
			reported.Insert(name)
			d.BudgetBlocked = append(d.BudgetBlocked, PoolBlocked{NodePool: c.pool.np, Reason: reason, Message: s.budgetMessage(name, reason)})
		}
	}
	return out
}

// budgetMessage explains why a NodePool's budget allows nothing now.
func (s *Snapshot) budgetMessage(poolName string, reason karpv1.DisruptionReason) string {
	b := s.budget(poolName, reason)
	np := s.pools[poolName].np
	if b.Err != nil {
		return fmt.Sprintf("no %s disruptions allowed: a budget cannot be read (%v)", reason, b.Err)
	}
	return fmt.Sprintf("no %s disruptions allowed: %s allows %d of %d nodes and %d are already being disrupted",
		reason, DescribeBudget(np, b.Budget), b.Nodes, b.total, b.disrupting)
}

// clockOf is the decision's clock: the controller's, or, for the benchmarks and the judge,
// which bound their consolidation by the time it really takes, the real one.
func clockOf(opts Options) func() time.Time {
	if opts.Clock != nil {
		return opts.Clock
	}
	return clock.RealClock{}.Now
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
