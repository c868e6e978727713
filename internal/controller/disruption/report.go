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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
)

// report publishes what a decision found, all of it read from the Decision: the metrics, the
// events that explain the nodes it left alone and tell pods about their do-not-disrupt
// annotations, the NodeClaims' DisruptionBlocked condition, and what Balanced consolidation
// approves of the commands decided.
func (c *Controller) report(ctx context.Context, d *engine.Decision) {
	recordDecision(d)
	c.explain(d)
	c.keepVerdicts(ctx, d.Verdicts)
	for _, cmd := range d.Batch {
		c.approved(cmd)
	}
}

// recordDecision sets the metrics of a decision: the candidates each method found, how long
// each took, what every NodePool's budgets allow, the moves Balanced NodePools scored, and the
// methods that ran out of time.
func recordDecision(d *engine.Decision) {
	for reason, n := range d.Eligible {
		eligibleNodes.WithLabelValues(strings.ToLower(string(reason))).Set(float64(n))
	}
	for _, e := range d.Evaluations {
		evaluationDuration.WithLabelValues(strings.ToLower(string(e.Reason)), e.ConsolidationType()).Observe(e.Duration.Seconds())
	}
	for _, b := range d.Budgets {
		allowedDisruptions.WithLabelValues(b.NodePool, strings.ToLower(string(b.Reason))).Set(float64(b.Allowed))
		nodesConsumingBudgets.WithLabelValues(b.NodePool, strings.ToLower(string(b.Reason))).Set(float64(b.Disrupting))
	}
	for _, score := range d.Scores {
		decision := "approved"
		if !score.Approved() {
			decision = "rejected"
		}
		consolidationMoves.WithLabelValues(decision, score.NodePool, string(karpv1.ConsolidationPolicyBalanced)).Inc()
		consolidationScore.WithLabelValues(decision, score.NodePool, string(karpv1.ConsolidationPolicyBalanced)).Observe(score.Value())
	}
	for _, m := range d.TimedOut {
		t := "multi"
		if m == engine.MethodSingleNode {
			t = "single"
		}
		consolidationTimeouts.WithLabelValues(t).Inc()
	}
}

// explain says, in events, why each node the decision left alone is held, which NodePools'
// budgets allow nothing now, and what pods are told about their do-not-disrupt annotations.
func (c *Controller) explain(d *engine.Decision) {
	for _, b := range d.Blocked {
		eventType := corev1.EventTypeNormal
		if b.Reason == engine.ReasonDisruptionReplacementFailed {
			eventType = corev1.EventTypeWarning
		}
		nodeHeld(c.recorder, b.Node.NodeClaim, eventType, b.Reason, b.Message)
		if b.Node.Node != nil {
			nodeHeld(c.recorder, b.Node.Node, eventType, b.Reason, b.Message)
		}
	}
	for _, p := range d.BudgetBlocked {
		budgetBlocked(c.recorder, p.NodePool, p.Message)
	}
	for _, notice := range d.Notices {
		podNotified(c.recorder, notice)
	}
}

// keepVerdicts writes the NodeClaims' engine.ConditionDisruptionBlocked as the decision's
// verdicts say: set for the nodes it held, removed from those it no longer holds. The
// decision leaves out what would change nothing.
func (c *Controller) keepVerdicts(ctx context.Context, verdicts []engine.Verdict) {
	for _, v := range verdicts {
		mutate := func(nodeClaim *karpv1.NodeClaim) bool {
			return meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, engine.ConditionDisruptionBlocked)
		}
		if v.Held {
			mutate = func(nodeClaim *karpv1.NodeClaim) bool {
				return conditions.Set(&nodeClaim.Status.Conditions, nodeClaim.Generation, metav1.Condition{
					Type: engine.ConditionDisruptionBlocked, Status: metav1.ConditionTrue, Reason: v.Reason, Message: v.Message,
					LastTransitionTime: metav1.NewTime(c.now()),
				})
			}
		}
		// Best effort: the condition is for people; the next pass writes it again.
		if err := c.orchestrator.updateNodeClaimStatus(ctx, v.NodeClaim.Name, v.NodeClaim, mutate); err != nil {
			log.FromContext(ctx).V(1).Info("writing the disruption verdict failed", "NodeClaim", v.NodeClaim.Name, "error", err.Error())
		}
	}
}

// approved tells the candidates of a command that Balanced consolidation approves their
// removal, with the move's score in their NodePool.
func (c *Controller) approved(cmd *engine.Command) {
	for _, score := range cmd.Scores {
		for _, cand := range cmd.Candidates {
			if cand.NodePool().Name != score.NodePool {
				continue
			}
			message := "Balanced consolidation approves removing this node: " + score.String()
			consolidationApproved(c.recorder, cand.NodeClaim, message)
			if cand.Node != nil {
				consolidationApproved(c.recorder, cand.Node, message)
			}
		}
	}
}

// reportRejected says why each command of a batch that no longer holds after the validation
// delay is given up: in the log, the failed validations metric, and events on its candidates.
func (c *Controller) reportRejected(ctx context.Context, rejected []engine.Rejection) {
	for _, r := range rejected {
		log.FromContext(ctx).Info("abandoning consolidation: it no longer holds after the validation delay",
			"reason", r.Command.ReasonLabel(), "method", r.Command.Method, "nodeclaims", r.Command.Names(), "why", r.Why)
		failedValidations.WithLabelValues(r.Command.ConsolidationType()).Add(float64(len(r.Command.Candidates)))
		message := fmt.Sprintf("Consolidation rejected: %s, reason: %s (savings: %.2f)", r.Command, r.Why, r.Command.Savings)
		for _, cand := range r.Command.Candidates {
			consolidationRejected(c.recorder, cand.NodeClaim, message)
			if cand.Node != nil {
				consolidationRejected(c.recorder, cand.Node, message)
			}
		}
	}
}
