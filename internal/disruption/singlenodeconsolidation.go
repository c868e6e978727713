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

// singleNode tries the candidates one at a time, taking NodePools in turn, and returns the
// first that can be deleted or replaced by one cheaper node.
func (s *Snapshot) singleNode(d *Decision, opts Options) *Command {
	cands := interleave(s.consolidationCandidates(d))
	now := clockOf(opts)
	deadline := now().Add(orDefault(opts.SingleNodeTimeout, DefaultSingleNodeTimeout))
	for _, c := range cands {
		if opts.Tried.Has(c.Name()) {
			continue
		}
		if now().After(deadline) {
			d.TimedOut = append(d.TimedOut, MethodSingleNode)
			return nil
		}
		if best, ok := s.bestCase(c); !ok {
			// Not even deleting it outright would do: no simulation can find a move that does.
			d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: ReasonUnconsolidatable,
				Message: "Balanced consolidation passes it over: even deleting it, " + best.String()})
			continue
		}
		cmd, why := s.consolidate(d, []*Candidate{c})
		if cmd != nil {
			cmd.Method = MethodSingleNode
			return cmd
		}
		d.Blocked = append(d.Blocked, Blocked{Node: c.StateNode, Reason: ReasonUnconsolidatable, Message: why})
	}
	return nil
}
