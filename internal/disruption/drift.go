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

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
)

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
		// A static NodePool's node is replaced first even when empty, as upstream's static
		// drift does: the NodePool never drops below its replicas.
		if len(c.Reschedulable) == 0 && !c.pool.static() {
			empty = append(empty, c)
		}
	}
	if len(empty) > 0 {
		return &Command{Method: MethodDrift, Reason: karpv1.DisruptionReasonDrifted, Candidates: empty, Savings: totalPrice(empty)}
	}
	for _, c := range cands {
		if c.pool.static() {
			if cmd := s.staticDrift(d, c); cmd != nil {
				return cmd
			}
			continue
		}
		res := s.simulate([]*Candidate{c}, false)
		if err := firstPodError(res); err != "" {
			d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: ReasonDisruptionReplacementFailed,
				Message: "cannot replace the drifted node: " + err})
			continue
		}
		cmd := &Command{Method: MethodDrift, Reason: karpv1.DisruptionReasonDrifted, Candidates: []*Candidate{c}, Replacements: res.NewNodeClaims, Placed: res.Placed}
		cmd.Savings = totalPrice(cmd.Candidates) - simulation.LaunchPrice(res.NewNodeClaims)
		return cmd
	}
	return nil
}

// staticDrift replaces a drifted node of a static NodePool with a node of its template: the
// NodePool keeps its replicas, and the pods go wherever the kube-scheduler puts them, as
// upstream's static drift does.
func (s *Snapshot) staticDrift(d *Decision, c *Candidate) *Command {
	replacement, why := c.pool.staticReplacement()
	if replacement == nil {
		d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: ReasonDisruptionReplacementFailed, Message: "cannot replace the drifted node: " + why})
		return nil
	}
	replacements := []*simulation.NewNodeClaim{replacement}
	return &Command{Method: MethodDrift, Reason: karpv1.DisruptionReasonDrifted, Candidates: []*Candidate{c}, Replacements: replacements,
		Savings: c.price - simulation.LaunchPrice(replacements)}
}

// staticReplacement is a node of a static NodePool's template to replace one of its nodes
// with, or why there is none: the NodePool cannot launch now, or limits.nodes leaves no room
// (see state.StaticNodeRoom).
func (p *pool) staticReplacement() (*simulation.NewNodeClaim, string) {
	if !p.launchable {
		return nil, fmt.Sprintf("its static NodePool %s cannot launch now", p.np.Name)
	}
	if p.staticFull != "" {
		return nil, fmt.Sprintf("its static NodePool %s is at its node limit: %s", p.np.Name, p.staticFull)
	}
	replacement, err := simulation.StaticNodeClaim(simulation.NodePoolInput{NodePool: p.np, InstanceTypes: p.types})
	if err != nil {
		return nil, err.Error()
	}
	return replacement, ""
}
