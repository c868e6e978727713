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
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
)

// keepVerdicts writes each NodeClaim's ConditionDisruptionBlocked from the pass's decision:
// set for the nodes it held, removed from those a complete pass (every method tried:
// complete) no longer holds and from the command's candidates, left as it is otherwise. Only
// changes are written.
func (c *Controller) keepVerdicts(ctx context.Context, snap *engine.Snapshot, d *engine.Decision, complete bool) {
	held := engine.Verdicts(d)
	taken := map[string]bool{}
	if d.Command != nil {
		for _, cand := range d.Command.Candidates {
			taken[cand.Name()] = true
		}
	}
	for _, n := range snap.Nodes() {
		b, isHeld := held[n.Name()]
		current := meta.FindStatusCondition(n.NodeClaim.Status.Conditions, engine.ConditionDisruptionBlocked)
		var mutate func(*karpv1.NodeClaim) bool
		switch {
		case isHeld && !taken[n.Name()]:
			message := b.Message
			if len(message) > engine.MaxVerdictMessage {
				message = message[:engine.MaxVerdictMessage-3] + "..."
			}
			if current != nil && current.Status == metav1.ConditionTrue && current.Reason == b.Reason && current.Message == message {
				continue
			}
			mutate = func(nodeClaim *karpv1.NodeClaim) bool {
				return conditions.Set(&nodeClaim.Status.Conditions, nodeClaim.Generation, metav1.Condition{
					Type: engine.ConditionDisruptionBlocked, Status: metav1.ConditionTrue, Reason: b.Reason, Message: message,
					LastTransitionTime: metav1.NewTime(c.now()),
				})
			}
		case current != nil && (complete || taken[n.Name()]):
			mutate = func(nodeClaim *karpv1.NodeClaim) bool {
				return meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, engine.ConditionDisruptionBlocked)
			}
		default:
			continue
		}
		// Best effort: the condition is for people; the next pass writes it again.
		if err := c.orchestrator.updateNodeClaimStatus(ctx, n.Name(), n.NodeClaim, mutate); err != nil {
			log.FromContext(ctx).V(1).Info("writing the disruption verdict failed", "NodeClaim", n.Name(), "error", err.Error())
		}
	}
}
