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
	"errors"
	"fmt"
	"maps"
	"time"

	"k8s.io/klog/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
)

// registrationPoll is how often to look for a node that has not registered yet; the Node
// watch usually comes first.
const registrationPoll = 10 * time.Second

// register finds the node whose kubelet registered for the VM and makes it the NodeClaim's:
// its labels, annotations and taints, the termination finalizer, then the unregistered taint removed.
func (r *Reconciler) register(ctx context.Context, nodeClaim *karpv1.NodeClaim) (stepResult, error) {
	if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched) ||
		meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeRegistered) {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	node, err := r.nodeOf(ctx, nodeClaim)
	if err != nil {
		return stepResult{requeue: reconcile.Result{}}, err
	}
	if node == nil {
		r.setCondition(nodeClaim, karpv1.ConditionTypeRegistered, metav1.ConditionUnknown, karpv1.ReasonNodeNotFound, "waiting for the node to register")
		return stepResult{requeue: reconcile.Result{RequeueAfter: registrationPoll}}, nil
	}

	if node.Labels[karpv1.LabelRegistered] != "true" && !nodeutil.HasTaint(node.Spec.Taints, karpv1.UnregisteredNoExecuteTaint) {
		log.FromContext(ctx).Error(errors.New("missing taint prevents registration-related race conditions on Karpenter-managed nodes"),
			"node claim registration error", "taint", karpv1.UnregisteredNoExecuteTaint.Key, "Node", klog.KRef("", node.Name))
		unregisteredTaintMissing(r.Recorder, nodeClaim)
	}
	stored := node.DeepCopy()
	syncNode(nodeClaim, node)
	if !equality.Semantic.DeepEqual(stored, node) {
		if err := r.Client.Patch(ctx, node, nodePatch(stored)); err != nil {
			return stepResult{requeue: reconcile.Result{}}, fmt.Errorf("syncing node %s with NodeClaim %s: %w", node.Name, nodeClaim.Name, err)
		}
	}
	nodeClaim.Status.NodeName = node.Name
	r.setCondition(nodeClaim, karpv1.ConditionTypeRegistered, metav1.ConditionTrue, karpv1.ReasonRegistered, "the node registered")
	if r.firstAnnouncement(nodeClaim, karpv1.ConditionTypeRegistered) {
		log.FromContext(ctx).Info("registered nodeclaim", "Node", klog.KRef("", node.Name))
		nodesCreated.WithLabelValues(nodeClaim.Labels[karpv1.LabelNodePool], node.Labels[corev1.LabelTopologyZone]).Inc()
		r.recordRegistration(nodeClaim, true)
	}
	return stepResult{requeue: reconcile.Result{}}, nil
}

// syncNode puts the NodeClaim's labels, annotations, taints and finalizer on its node and
// removes the taint that kept pods off it until now.
func syncNode(nodeClaim *karpv1.NodeClaim, node *corev1.Node) {
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	maps.Copy(node.Labels, nodeClaim.Labels)
	// The NodePool template's annotations reach the node through its NodeClaim, as upstream's
	// registration does; they are in the NodePool hash, so a node launched before an edit drifts
	// and its replacement carries the new ones.
	if len(nodeClaim.Annotations) > 0 {
		if node.Annotations == nil {
			node.Annotations = map[string]string{}
		}
		maps.Copy(node.Annotations, nodeClaim.Annotations)
	}
	node.Labels[karpv1.LabelRegistered] = "true"
	controllerutil.AddFinalizer(node, karpv1.TerminationFinalizer)
	if node.Labels[karpv1.LabelDoNotSyncTaints] != "true" {
		for _, t := range append(append([]corev1.Taint{}, nodeClaim.Spec.Taints...), nodeClaim.Spec.StartupTaints...) {
			if !nodeutil.HasTaint(node.Spec.Taints, t) {
				node.Spec.Taints = append(node.Spec.Taints, t)
			}
		}
	}
	node.Spec.Taints = nodeutil.WithoutTaint(node.Spec.Taints, karpv1.UnregisteredNoExecuteTaint)
	if !hasOwner(node, nodeClaim) {
		node.OwnerReferences = append(node.OwnerReferences, metav1.OwnerReference{
			APIVersion: karpv1.GroupVersion.String(), Kind: "NodeClaim", Name: nodeClaim.Name, UID: nodeClaim.UID,
			BlockOwnerDeletion: new(true),
		})
	}
}

func hasOwner(node *corev1.Node, nodeClaim *karpv1.NodeClaim) bool {
	for _, o := range node.OwnerReferences {
		if o.UID == nodeClaim.UID {
			return true
		}
	}
	return false
}
