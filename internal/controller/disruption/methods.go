/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package disruption

import (
	"fmt"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
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
	// Clock reads the time for the timeouts; time.Now when nil.
	Clock func() time.Time
}

// Decision is the outcome of one pass over the methods.
type Decision struct {
	// Command is what to do, nil when nothing.
	Command *Command
	// Blocked explains each node a method looked at and left alone.
	Blocked []Blocked
	// BudgetBlocked lists, for each reason, the NodePools with candidates that their budgets
	// allow no disruption of now.
	BudgetBlocked []PoolBlocked
	// Eligible counts the candidates each method found, by reason.
	Eligible map[karpv1.DisruptionReason]int
	// TimedOut names the methods that ran out of time.
	TimedOut []string
	// Consolidated is true when consolidation ran and found nothing to do.
	Consolidated bool
}

// PoolBlocked says that a NodePool's budgets allow no disruption for a reason.
type PoolBlocked struct {
	NodePool *karpv1.NodePool
	Reason   karpv1.DisruptionReason
	Message  string
}

// Decide tries the methods in order (emptiness, drift, multi-node then single-node
// consolidation) and returns the first command one of them produces.
func (s *Snapshot) Decide(opts Options) *Decision {
	d := &Decision{Eligible: map[karpv1.DisruptionReason]int{}}
	if d.Command = s.emptiness(d); d.Command != nil {
		return d
	}
	if d.Command = s.drift(d); d.Command != nil {
		return d
	}
	if opts.SkipConsolidation {
		return d
	}
	if d.Command = s.multiNode(d, opts); d.Command != nil {
		return d
	}
	if d.Command = s.singleNode(d, opts); d.Command != nil {
		return d
	}
	d.Consolidated = true
	return d
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
		reason, describeBudget(np, b.Budget), b.Nodes, b.total, b.disrupting)
}

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

// drift replaces drifted nodes: the empty ones are deleted together within the budgets;
// otherwise the first one whose pods can all be placed (on other nodes or on new NodeClaims)
// is replaced.
func (s *Snapshot) drift(d *Decision) *Command {
	cands, blocked := s.candidates(drifted)
	d.Blocked = append(d.Blocked, blocked...)
	d.Eligible[karpv1.DisruptionReasonDrifted] = len(cands)
	cands = s.withinBudget(d, cands, karpv1.DisruptionReasonDrifted)
	var empty []*Candidate
	for _, c := range cands {
		if len(c.Reschedulable) == 0 {
			empty = append(empty, c)
		}
	}
	if len(empty) > 0 {
		return &Command{Method: MethodDrift, Reason: karpv1.DisruptionReasonDrifted, Candidates: empty, Savings: totalPrice(empty)}
	}
	for _, c := range cands {
		res := s.simulate([]*Candidate{c})
		if err := firstPodError(res); err != "" {
			d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: EventDisruptionReplacementFailed,
				Message: "cannot replace the drifted node: " + err})
			continue
		}
		cmd := &Command{Method: MethodDrift, Reason: karpv1.DisruptionReasonDrifted, Candidates: []*Candidate{c}, Replacements: res.NewNodeClaims, Placed: res.Placed}
		cmd.Savings = totalPrice(cmd.Candidates) - launchPrice(res.NewNodeClaims)
		return cmd
	}
	return nil
}

// consolidationCandidates are the consolidatable nodes of NodePools that consolidate
// underutilized nodes, with a known price, within the Underutilized budgets.
func (s *Snapshot) consolidationCandidates(d *Decision) []*Candidate {
	if cached, ok := s.consolidationCache(); ok {
		return cached
	}
	cands, blocked := s.candidates(func(n *StateNode) bool { return consolidatable(n) && underutilizable(n) })
	d.Blocked = append(d.Blocked, blocked...)
	var priced []*Candidate
	for _, c := range cands {
		if !c.priceKnown {
			d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: EventUnconsolidatable,
				Message: fmt.Sprintf("the price of instance type %q in zone %q is not known", c.NodeClaim.Labels[karpv1.LabelInstanceType], c.NodeClaim.Labels[karpv1.LabelTopologyZone])})
			continue
		}
		priced = append(priced, c)
	}
	d.Eligible[karpv1.DisruptionReasonUnderutilized] = len(priced)
	out := s.withinBudget(d, priced, karpv1.DisruptionReasonUnderutilized)
	s.consolidationCands = &out
	return out
}

func (s *Snapshot) consolidationCache() ([]*Candidate, bool) {
	if s.consolidationCands == nil {
		return nil, false
	}
	return *s.consolidationCands, true
}

// multiNode looks for the largest prefix of the candidates (cheapest to disrupt first, at most
// MaxMultiNodeCandidates) whose pods fit on the other nodes plus at most one new node that
// costs less than all of them: a binary search, as adding candidates mostly only makes it
// harder.
func (s *Snapshot) multiNode(d *Decision, opts Options) *Command {
	cands := s.consolidationCandidates(d)
	if len(cands) > MaxMultiNodeCandidates {
		cands = cands[:MaxMultiNodeCandidates]
	}
	if len(cands) < 2 {
		return nil
	}
	now := clockOf(opts)
	deadline := now().Add(orDefault(opts.MultiNodeTimeout, DefaultMultiNodeTimeout))
	var best *Command
	lo, hi := 2, len(cands)
	for lo <= hi {
		if now().After(deadline) {
			d.TimedOut = append(d.TimedOut, MethodMultiNode)
			break
		}
		mid := (lo + hi) / 2
		if cmd, _ := s.consolidate(cands[:mid]); cmd != nil {
			best, lo = cmd, mid+1
		} else {
			hi = mid - 1
		}
	}
	if best != nil {
		best.Method = MethodMultiNode
	}
	return best
}

// singleNode tries the candidates one at a time, taking NodePools in turn, and returns the
// first that can be deleted or replaced by one cheaper node.
func (s *Snapshot) singleNode(d *Decision, opts Options) *Command {
	cands := interleave(s.consolidationCandidates(d))
	now := clockOf(opts)
	deadline := now().Add(orDefault(opts.SingleNodeTimeout, DefaultSingleNodeTimeout))
	for _, c := range cands {
		if now().After(deadline) {
			d.TimedOut = append(d.TimedOut, MethodSingleNode)
			return nil
		}
		cmd, why := s.consolidate([]*Candidate{c})
		if cmd != nil {
			cmd.Method = MethodSingleNode
			return cmd
		}
		d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: EventUnconsolidatable, Message: why})
	}
	return nil
}

// consolidate checks whether the candidates can go: all their pods fit on the other nodes,
// with at most one new node whose every instance type costs less than the candidates
// together. It returns the command, or why not.
func (s *Snapshot) consolidate(cands []*Candidate) (*Command, string) {
	res := s.simulate(cands)
	if err := firstPodError(res); err != "" {
		return nil, "its pods cannot all be placed elsewhere: " + err
	}
	price := totalPrice(cands)
	cmd := &Command{Reason: karpv1.DisruptionReasonUnderutilized, Candidates: cands, Placed: res.Placed}
	switch len(res.NewNodeClaims) {
	case 0:
		cmd.Savings = price
		return cmd, ""
	case 1:
	default:
		return nil, fmt.Sprintf("its pods would need %d new nodes", len(res.NewNodeClaims))
	}
	n := res.NewNodeClaims[0]
	n.InstanceTypes = cheaperThan(n, price)
	if len(cands) > 1 {
		n.InstanceTypes = notSameType(n.InstanceTypes, cands)
	}
	if len(n.InstanceTypes) == 0 {
		return nil, fmt.Sprintf("no instance type that fits its pods costs less than %.4g (what it costs now)", price)
	}
	cmd.Replacements = res.NewNodeClaims
	cmd.Savings = price - launchPrice(res.NewNodeClaims)
	return cmd, ""
}

// simulate schedules the candidates' pods onto the rest of the cluster and new NodeClaims.
func (s *Snapshot) simulate(cands []*Candidate) *scheduling.Results {
	exclude := sets.New[string]()
	var pods []*corev1.Pod
	freed := make([]*StateNode, len(cands))
	for i, c := range cands {
		exclude.Insert(c.Name())
		freed[i] = c.StateNode
		pods = append(pods, c.Reschedulable...)
	}
	near, all := s.existingNodes(exclude, pods)
	in := s.input(pods, near, freed)
	res := scheduling.Schedule(in)
	if all != nil && (len(res.PodErrors) > 0 || len(res.NewNodeClaims) > 0) {
		// Not everything fit on the nearest nodes: try again with all of them.
		in.ExistingNodes = all
		res = scheduling.Schedule(in)
	}
	return res
}

// cheaperThan keeps the new NodeClaim's instance types whose every launchable offering (the
// zones and capacity types its requirements allow) costs less than price, so that whichever
// the launch ends up with is cheaper.
func cheaperThan(n *scheduling.NewNodeClaim, price float64) []*cloudprovider.InstanceType {
	zones, cts := n.Requirements.Get(karpv1.LabelTopologyZone), n.Requirements.Get(karpv1.LabelCapacityType)
	var out []*cloudprovider.InstanceType
	for _, it := range n.InstanceTypes {
		worst, any := 0.0, false
		for _, of := range it.Offerings {
			if of.Available && zones.Has(of.Zone) && cts.Has(of.CapacityType) {
				worst, any = math.Max(worst, of.Price), true
			}
		}
		if any && worst < price {
			out = append(out, it)
		}
	}
	return out
}

// notSameType handles a replacement that could be of a candidate's own type: replacing
// [8-CPU, 2-CPU] by one 8-CPU node is just deleting the 2-CPU one, which single-node
// consolidation does with less disruption. When one of the types is a candidate's, only types
// cheaper than the cheapest such one are kept.
func notSameType(types []*cloudprovider.InstanceType, cands []*Candidate) []*cloudprovider.InstanceType {
	limit, shared := math.Inf(1), false
	for _, c := range cands {
		for _, it := range types {
			if c.instanceType != nil && it.Name == c.instanceType.Name {
				limit, shared = math.Min(limit, c.price), true
			}
		}
	}
	if !shared {
		return types
	}
	var out []*cloudprovider.InstanceType
	for _, it := range types {
		if of, ok := it.Offerings.Available().Cheapest(); ok && of.Price < limit {
			out = append(out, it)
		}
	}
	return out
}

// launchPrice is what launching the NodeClaims costs at best: each one's cheapest type.
func launchPrice(claims []*scheduling.NewNodeClaim) float64 {
	total := 0.0
	for _, n := range claims {
		zones, cts := n.Requirements.Get(karpv1.LabelTopologyZone), n.Requirements.Get(karpv1.LabelCapacityType)
		best := math.Inf(1)
		for _, it := range n.InstanceTypes {
			for _, of := range it.Offerings {
				if of.Available && zones.Has(of.Zone) && cts.Has(of.CapacityType) {
					best = math.Min(best, of.Price)
				}
			}
		}
		if !math.IsInf(best, 1) {
			total += best
		}
	}
	return total
}

func totalPrice(cands []*Candidate) float64 {
	total := 0.0
	for _, c := range cands {
		total += c.price
	}
	return total
}

// firstPodError describes one pod the simulation could not place ("" when all were placed).
func firstPodError(res *scheduling.Results) string {
	var first *corev1.Pod
	for pod := range res.PodErrors {
		if first == nil || pod.Namespace+"/"+pod.Name < first.Namespace+"/"+first.Name {
			first = pod
		}
	}
	if first == nil {
		return ""
	}
	msg := fmt.Sprintf("pod %s/%s: %v", first.Namespace, first.Name, res.PodErrors[first])
	if len(res.PodErrors) > 1 {
		msg += fmt.Sprintf(" (and %d other pod(s))", len(res.PodErrors)-1)
	}
	return msg
}

// interleave orders candidates so that NodePools take turns, each in its own order.
func interleave(cands []*Candidate) []*Candidate {
	var order []string
	byPool := map[string][]*Candidate{}
	for _, c := range cands {
		name := c.pool.np.Name
		if _, ok := byPool[name]; !ok {
			order = append(order, name)
		}
		byPool[name] = append(byPool[name], c)
	}
	out := make([]*Candidate, 0, len(cands))
	for len(out) < len(cands) {
		for _, name := range order {
			if q := byPool[name]; len(q) > 0 {
				out = append(out, q[0])
				byPool[name] = q[1:]
			}
		}
	}
	return out
}

func hasReschedulable(n *StateNode) bool {
	return slices.ContainsFunc(n.Pods, podutil.IsReschedulable)
}

func clockOf(opts Options) func() time.Time {
	if opts.Clock != nil {
		return opts.Clock
	}
	return time.Now
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
