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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
)

// repairHeldNow counts a repair command's NodePool again, from the API server, right before the
// command starts, and holds it when the circuit breaker now trips. The decision counted the
// cache as the pass began; a fault spreading over several nodes lands on them one write at a
// time, and a node replaced in between is one the breaker exists to keep.
func (c *Controller) repairHeldNow(ctx context.Context, cmd *engine.Command) (bool, error) {
	if cmd.Repair == nil {
		return false, nil
	}
	cand := cmd.Candidates[0]
	why, err := repair.Held(ctx, c.APIReader, c.CloudProvider.RepairPolicies(), cand.NodePool())
	if err != nil {
		return false, fmt.Errorf("counting the unhealthy nodes again: %w", err)
	}
	if why == "" {
		return false, nil
	}
	message := fmt.Sprintf("The node is unhealthy (%s), but %s", cmd.Repair, why)
	log.FromContext(ctx).Info("holding repair: the circuit breaker tripped while the pass decided",
		"NodeClaim", klog.KObj(cand.NodeClaim), "why", why)
	nodeHeld(c.recorder, cand.NodeClaim, corev1.EventTypeNormal, repair.ReasonNodeRepairBlocked, message)
	if cand.Node != nil {
		nodeHeld(c.recorder, cand.Node, corev1.EventTypeNormal, repair.ReasonNodeRepairBlocked, message)
	}
	return true, nil
}
