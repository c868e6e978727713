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
	"slices"
	"strings"
	"time"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pretty"
)

// Disruption methods, in the order they are tried.
const (
	MethodRepair     = "repair"
	MethodEmptiness  = "emptiness"
	MethodDrift      = "drift"
	MethodMultiNode  = "multi-node consolidation"
	MethodSingleNode = "single-node consolidation"
)

// Decisions a command takes.
const (
	DecisionDelete  = "delete"
	DecisionReplace = "replace"
)

// Command is one disruption decision: remove the candidates, after launching the replacements
// their pods need, if any.
type Command struct {
	Method     string
	Reason     karpv1.DisruptionReason
	Candidates []*Candidate
	// Replacements are the NodeClaims to launch first; for consolidation at most one, with
	// only instance types strictly cheaper than the candidates together.
	Replacements []*simulation.NewNodeClaim
	// Savings is what the candidates cost less what the cheapest launch of the replacements
	// costs, in relative cost units.
	Savings float64
	// Placed is where the simulation put the candidates' pods, in the order it placed them:
	// on other nodes and on the replacements.
	Placed []simulation.Placement
	// Scores are the move's scores in the Balanced NodePools it takes nodes from.
	Scores []Score
	// DrainBound, when set, ends the candidates' drain that long after their deletion
	// (repair: its policy's termination grace period); otherwise their NodeClaims' own
	// terminationGracePeriod applies.
	DrainBound *time.Duration
	// Repair is how the candidate of a repair command is unhealthy.
	Repair *repair.Finding
}

// Decision is delete or replace.
func (c *Command) Decision() string {
	if len(c.Replacements) > 0 {
		return DecisionReplace
	}
	return DecisionDelete
}

// NeedsValidation is true for consolidation: its premise (spare room, idle nodes) can change
// in seconds, so the command is checked again after a delay before it is carried out.
func (c *Command) NeedsValidation() bool {
	return c.Reason == karpv1.DisruptionReasonEmpty || c.Reason == karpv1.DisruptionReasonUnderutilized
}

// ReasonLabel is the reason as logs and metrics write it: empty, drifted, underutilized.
func (c *Command) ReasonLabel() string { return strings.ToLower(string(c.Reason)) }

// ConsolidationType is the consolidation_type metric label: empty, multi, single or "".
func (c *Command) ConsolidationType() string {
	switch c.Method {
	case MethodEmptiness:
		return "empty"
	case MethodMultiNode:
		return "multi"
	case MethodSingleNode:
		return "single"
	}
	return ""
}

// Names are the candidates' NodeClaim names.
func (c *Command) Names() []string {
	out := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		out[i] = cand.Name()
	}
	return out
}

// NodePools are the NodePools of the command's candidates, each once, in order.
func (c *Command) NodePools() []string {
	var pools []string
	for _, cand := range c.Candidates {
		if !slices.Contains(pools, cand.pool.np.Name) {
			pools = append(pools, cand.pool.np.Name)
		}
	}
	return pools
}

// SavingsByNodePool shares the command's savings among its candidates' NodePools, each in
// proportion to what its candidates cost: the replacement serves them all. A command that
// saves nothing (or whose candidates have no price) shares nothing.
func (c *Command) SavingsByNodePool() map[string]float64 {
	total := totalPrice(c.Candidates)
	if c.Savings <= 0 || total <= 0 {
		return nil
	}
	out := map[string]float64{}
	for _, cand := range c.Candidates {
		out[cand.pool.np.Name] += c.Savings * cand.price / total
	}
	return out
}

// Pods counts the pods that must move.
func (c *Command) Pods() int {
	n := 0
	for _, cand := range c.Candidates {
		n += len(cand.Reschedulable)
	}
	return n
}

// String is the log message: `disrupting nodeclaim(s) via replace, terminating 1 nodes (3
// pods) default-x7k2p/m2a.xlarge/kr-central-2-a and replacing with a node from types m2a.large,
// c2a.xlarge`.
func (c *Command) String() string {
	names := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		names[i] = cand.displayName()
	}
	s := fmt.Sprintf("disrupting nodeclaim(s) via %s, terminating %d nodes (%d pods) %s", c.Decision(), len(c.Candidates), c.Pods(), strings.Join(names, ", "))
	switch len(c.Replacements) {
	case 0:
	case 1:
		s += " and replacing with a node from types " + InstanceTypeNames(c.Replacements[0], 5)
	default:
		s += fmt.Sprintf(" and replacing with %d nodes", len(c.Replacements))
	}
	return s
}

// InstanceTypeNames lists at most max of a new NodeClaim's instance types, cheapest first.
func InstanceTypeNames(n *simulation.NewNodeClaim, max int) string {
	names := make([]string, len(n.InstanceTypes))
	for i, it := range n.InstanceTypes {
		names[i] = it.Name
	}
	return pretty.Slice(names, max)
}
