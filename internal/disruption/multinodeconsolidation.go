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

// multiNode looks for the largest prefix of the candidates (the most saved per unit of
// disruption first, bySavings; at most MaxMultiNodeCandidates) whose pods fit on the other
// nodes plus at most one new node that costs less than all of them: all of them first, then a
// binary search, as adding candidates mostly only makes it harder.
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
	// Every candidate at once first: when a scale-down has left that many nodes to spare, one
	// simulation finds what the binary search would find in seven. Only when they cannot all
	// go does the search look for the largest prefix that can.
	if cmd, _ := s.consolidate(d, cands); cmd != nil {
		cmd.Method = MethodMultiNode
		return cmd
	}
	var best *Command
	lo, hi := 2, len(cands)-1
	for lo <= hi {
		if now().After(deadline) {
			d.TimedOut = append(d.TimedOut, MethodMultiNode)
			break
		}
		mid := (lo + hi) / 2
		if cmd, _ := s.consolidate(d, cands[:mid]); cmd != nil {
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
