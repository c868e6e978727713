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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// consolidationCandidates are the consolidatable nodes of NodePools that consolidate
// underutilized nodes, with a known price, within the Underutilized budgets.
func (s *Snapshot) consolidationCandidates(d *Decision) []*Candidate {
	if d.consolidationCands != nil {
		return *d.consolidationCands
	}
	cands, blocked := s.candidates(underusedAndConsolidatable)
	d.Blocked = append(d.Blocked, blocked...)
	var priced []*Candidate
	for _, c := range cands {
		if !c.priceKnown {
			d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: ReasonUnconsolidatable,
				Message: fmt.Sprintf("the price of instance type %q in zone %q is not known", c.NodeClaim.Labels[karpv1.LabelInstanceType], c.NodeClaim.Labels[karpv1.LabelTopologyZone])})
			continue
		}
		priced = append(priced, c)
	}
	d.Eligible[karpv1.DisruptionReasonUnderutilized] = len(priced)
	bySavings(priced)
	out := s.withinBudget(d, priced, karpv1.DisruptionReasonUnderutilized)
	d.consolidationCands = &out
	return out
}

// underusedAndConsolidatable selects consolidation's candidates: empty nodes are emptiness's,
// so that the Empty budgets, not the Underutilized ones, count them.
func underusedAndConsolidatable(n *StateNode) bool {
	return consolidatable(n) && underutilizable(n) && !empty(n)
}

// consolidate checks whether the candidates can go: all their pods fit on the other nodes,
// with at most one new node whose every instance type costs less than the candidates
// together. It returns the command, or why not; the Balanced scores of the move go to d.
func (s *Snapshot) consolidate(d *Decision, cands []*Candidate) (*Command, string) {
	// Upstream simulates the pending pods with every consolidation's: while some need a new
	// node, its moves would launch one more node, or that one in provisioning's place, and it
	// makes none (more than one new NodeClaim) or has them fail validation once provisioning
	// has launched it. Ours waits until it has.
	if s.waiting > 0 {
		return nil, fmt.Sprintf("%d pending pod(s) need a new node first: consolidation waits until provisioning has launched it", s.waiting)
	}
	res := s.simulate(cands, true)
	if err := firstPodError(res); err != "" {
		return nil, "its pods cannot all be placed elsewhere: " + err
	}
	price := totalPrice(cands)
	cmd := &Command{Reason: karpv1.DisruptionReasonUnderutilized, Candidates: cands, Placed: res.Placed}
	switch len(res.NewNodeClaims) {
	case 0:
		cmd.Savings = price
		return s.approve(d, cmd)
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
	// The cheaper types alone may not give the flexibility the NodePool asks for: the move is
	// refused, not made on fewer values, whatever --min-values-policy says, as upstream's.
	if err := n.MinValuesMet(); err != nil {
		return nil, fmt.Sprintf("the instance types that fit its pods and cost less than %.4g would not meet minValues: %v", price, err)
	}
	cmd.Replacements = res.NewNodeClaims
	cmd.Savings = price - simulation.LaunchPrice(res.NewNodeClaims)
	return s.approve(d, cmd)
}

// approve lets the move through when every Balanced NodePool it takes nodes from approves it
// (balanced.go), with their scores, and otherwise says which refused. The scores, approved or
// not, go to d.
func (s *Snapshot) approve(d *Decision, cmd *Command) (*Command, string) {
	scores, ok := s.scoreMove(cmd)
	d.Scores = append(d.Scores, scores...)
	if !ok {
		for _, score := range scores {
			if !score.Approved() {
				return nil, "Balanced consolidation passes it over: " + score.String()
			}
		}
	}
	cmd.Scores = scores
	return cmd, ""
}

// simulate schedules the candidates' pods onto the rest of the cluster and new NodeClaims;
// consolidation's (settledOnly) not onto nodes within their NodePool's consolidateAfter.
func (s *Snapshot) simulate(cands []*Candidate, settledOnly bool) *simulation.Results {
	schedule := func(in simulation.Input) *simulation.Results { return simulation.Simulate("disruption", in) }
	exclude := sets.New[string]()
	var pods []*corev1.Pod
	freed := make([]*StateNode, len(cands))
	for i, c := range cands {
		exclude.Insert(c.Name())
		freed[i] = c.StateNode
		pods = append(pods, c.Reschedulable...)
	}
	near, all := s.existingNodes(exclude, pods, settledOnly)
	in := s.input(pods, near, freed)
	res := schedule(in)
	if all != nil && (len(res.PodErrors) > 0 || len(res.NewNodeClaims) > 0) {
		// Not everything fit on the nearest nodes: try again with all of them.
		in.ExistingNodes = all
		res = schedule(in)
	}
	// A move that puts a candidate's pod on a node that has not initialized is refused, as
	// upstream refuses it (UninitializedNodeError): that node may never take pods, as a
	// replacement a rolled-back command left behind may not.
	for id, placed := range res.ExistingPlacements {
		if !s.uninitialized.Has(id) {
			continue
		}
		// A node by its name, as the loop's words name nodes; a NodeClaim as upstream does.
		where := id.String()
		if id.Kind == destination.Node {
			where = id.Name
		}
		if res.PodErrors == nil {
			res.PodErrors = map[*corev1.Pod]error{}
		}
		for _, pod := range placed {
			res.PodErrors[pod] = fmt.Errorf("it would move to %s, which has not initialized yet", where)
		}
	}
	return res
}

// cheaperThan keeps the new NodeClaim's instance types whose every launchable offering (the
// zones and capacity types its requirements allow) costs less than price, so that whichever
// the launch ends up with is cheaper.
func cheaperThan(n *simulation.NewNodeClaim, price float64) []*cloudprovider.InstanceType {
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

func totalPrice(cands []*Candidate) float64 {
	total := 0.0
	for _, c := range cands {
		total += c.price
	}
	return total
}

// firstPodError describes one pod the simulation could not place ("" when all were placed).
func firstPodError(res *simulation.Results) string {
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
