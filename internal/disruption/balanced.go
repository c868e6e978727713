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

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// Balanced consolidation (upstream v1.14's policy) makes a move only when, for every Balanced
// NodePool it takes nodes from,
//
//	(savings / the NodePool's cost) >= (disruption / the NodePool's disruption) / k
//
// A node's disruption is 1 (draining it, launching a replacement) plus, for each pod it
// would evict, that pod's eviction cost (1, more for a higher priority or a positive
// pod-deletion-cost, never less than 0). Moves that save little and restart much are passed
// over; WhenEmptyOrUnderutilized is k = infinity.

// Score is how a move measures up in one Balanced NodePool.
type Score struct {
	NodePool string
	// Savings and Disruption are the move's shares of the NodePool's cost and disruption.
	Savings, Disruption float64
	K                   int32
}

// Value is the score: the share of cost saved per share of disruption caused.
func (s Score) Value() float64 {
	if s.Disruption <= 0 {
		return math.Inf(1)
	}
	return s.Savings / s.Disruption
}

// Threshold is the least score the NodePool approves.
func (s Score) Threshold() float64 { return 1 / float64(s.K) }

// Approved reports whether the NodePool approves the move.
func (s Score) Approved() bool { return s.Value() >= s.Threshold() }

func (s Score) String() string {
	return fmt.Sprintf("score %.2f (NodePool %s's Balanced policy needs %.2f, k=%d): it saves %.1f%% of the NodePool's cost for %.1f%% of its disruption",
		s.Value(), s.NodePool, s.Threshold(), s.K, 100*s.Savings, 100*s.Disruption)
}

// poolTotals are what a NodePool's nodes cost and what disrupting all of them would.
type poolTotals struct{ cost, disruption float64 }

// nodeDisruption is what disrupting a node costs in Balanced's terms.
// It is also what upstream's savings ratio divides a node's price by (bySavings) and what an
// empty node costs (empty).
func nodeDisruption(n *StateNode) float64 {
	cost := 1.0
	for _, pod := range n.Pods {
		if podutil.IsReschedulable(pod) {
			cost += math.Max(0, podEvictionCost(pod))
		}
	}
	return cost
}

// balancedTotals sums, once per snapshot, every Balanced NodePool's nodes: candidates or not.
func (s *Snapshot) balancedTotals() map[string]poolTotals {
	if s.balanced != nil {
		return s.balanced
	}
	s.balanced = map[string]poolTotals{}
	for _, n := range s.nodes {
		if n.pool == nil || n.pool.np.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyBalanced || n.deleting() {
			continue
		}
		t := s.balanced[n.pool.np.Name]
		t.cost += n.price
		t.disruption += nodeDisruption(n)
		s.balanced[n.pool.np.Name] = t
	}
	return s.balanced
}

// scoreMove scores a consolidation move in each Balanced NodePool it takes nodes from, sharing
// its savings among them by what their nodes cost; ok is false when one of them refuses it.
func (s *Snapshot) scoreMove(cmd *Command) (scores []Score, ok bool) {
	type share struct{ cost, disruption float64 }
	shares, order := map[string]*share{}, []string{}
	total := 0.0
	for _, c := range cmd.Candidates {
		total += c.price
		if c.pool.np.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyBalanced {
			continue
		}
		name := c.pool.np.Name
		if shares[name] == nil {
			shares[name] = &share{}
			order = append(order, name)
		}
		shares[name].cost += c.price
		shares[name].disruption += nodeDisruption(c.StateNode)
	}
	ok = true
	for _, name := range order {
		totals, sh := s.balancedTotals()[name], shares[name]
		savings := cmd.Savings
		if total > 0 {
			savings *= sh.cost / total
		}
		score := Score{NodePool: name, K: balancedK(s.pools[name].np)}
		if totals.cost > 0 {
			score.Savings = savings / totals.cost
		}
		if totals.disruption > 0 {
			score.Disruption = sh.disruption / totals.disruption
		}
		scores = append(scores, score)
		ok = ok && score.Approved()
	}
	return scores, ok
}

// bestCase is the score of deleting the candidate alone with nothing to launch, the most any
// move of it can reach; ok is false when even that is refused.
func (s *Snapshot) bestCase(c *Candidate) (Score, bool) {
	scores, ok := s.scoreMove(&Command{Candidates: []*Candidate{c}, Savings: c.price})
	if len(scores) == 0 {
		return Score{}, true
	}
	return scores[0], ok
}

func balancedK(np *karpv1.NodePool) int32 {
	if k := np.Spec.Disruption.BalancedK; k != nil && *k > 0 {
		return *k
	}
	return karpv1.DefaultBalancedK
}
