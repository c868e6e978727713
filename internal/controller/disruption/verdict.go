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
