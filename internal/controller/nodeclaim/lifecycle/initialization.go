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

package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/klog/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
)

// initialize marks the NodeClaim initialized once its node is Ready, its startup and
// ephemeral taints are gone and the extended resources its pods asked for are allocatable.
func (r *Reconciler) initialize(ctx context.Context, nodeClaim *karpv1.NodeClaim) (stepResult, error) {
	if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeRegistered) ||
		meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized) {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	node, err := r.nodeOf(ctx, nodeClaim)
	if err != nil || node == nil {
		return stepResult{requeue: reconcile.Result{}}, err
	}
	if waiting := notInitializedBecause(nodeClaim, node); waiting != "" {
		r.setCondition(nodeClaim, karpv1.ConditionTypeInitialized, metav1.ConditionUnknown, karpv1.ReasonNotInitialized, waiting)
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	if node.Labels[karpv1.LabelInitialized] != "true" {
		stored := node.DeepCopy()
		node.Labels[karpv1.LabelInitialized] = "true"
		if err := r.Client.Patch(ctx, node, nodePatch(stored)); err != nil {
			return stepResult{requeue: reconcile.Result{}}, fmt.Errorf("labelling node %s initialized: %w", node.Name, err)
		}
	}
	r.setCondition(nodeClaim, karpv1.ConditionTypeInitialized, metav1.ConditionTrue, karpv1.ReasonInitialized, "the node is ready for pods")
	if r.firstAnnouncement(nodeClaim, karpv1.ConditionTypeInitialized) {
		log.FromContext(ctx).Info("initialized nodeclaim", "Node", klog.KRef("", node.Name), "allocatable", node.Status.Allocatable)
	}
	return stepResult{requeue: reconcile.Result{}}, nil
}

// notInitializedBecause says what the node still waits for ("" when nothing).
func notInitializedBecause(nodeClaim *karpv1.NodeClaim, node *corev1.Node) string {
	if !nodeutil.IsReady(node) {
		return "waiting for the node to be Ready"
	}
	for _, t := range nodeClaim.Spec.StartupTaints {
		if nodeutil.HasTaint(node.Spec.Taints, t) {
			return fmt.Sprintf("waiting for taint %s:%s to be removed", t.Key, t.Effect)
		}
	}
	for _, t := range node.Spec.Taints {
		if karpv1.IsEphemeralTaint(t) {
			return fmt.Sprintf("waiting for taint %s:%s to be removed", t.Key, t.Effect)
		}
	}
	var missing []string
	for name := range nodeClaim.Spec.Resources.Requests {
		if isExtended(name) {
			if q, ok := node.Status.Allocatable[name]; !ok || q.IsZero() {
				missing = append(missing, string(name))
			}
		}
	}
	if len(missing) > 0 {
		return "waiting for extended resources to be allocatable: " + strings.Join(missing, ", ")
	}
	return ""
}

func isExtended(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage:
		return false
	}
	return true
}
