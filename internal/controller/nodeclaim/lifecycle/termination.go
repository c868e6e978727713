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
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
)

// Polling while a drain or a VM deletion is under way.
const (
	drainPoll      = 5 * time.Second
	vmDeletionPoll = 5 * time.Second
	// A node another finalizer holds is watched; this poll is a backstop.
	nodeDeletionPoll = 30 * time.Second
)

// terminate takes a deleting NodeClaim down in order: taint its node, drain it through the
// Eviction API (PodDisruptionBudgets hold it, up to terminationGracePeriod), wait for its
// volumes to detach (up to the same deadline), delete the VM and wait until KakaoCloud no
// longer has it, delete the node, and only then let the NodeClaim go. Drained,
// VolumesDetached and InstanceTerminating say how far it got.
func (r *Reconciler) terminate(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(nodeClaim, karpv1.TerminationFinalizer) {
		return reconcile.Result{}, nil
	}
	node, err := r.nodeOf(ctx, nodeClaim)
	if err != nil {
		return reconcile.Result{}, err
	}
	deadline, err := r.terminationTime(ctx, nodeClaim)
	if err != nil {
		return reconcile.Result{}, err
	}
	stored := nodeClaim.DeepCopy()
	if next, waiting, err := r.takeDown(ctx, nodeClaim, node, deadline); waiting || err != nil {
		return next, errors.Join(err, r.patchStatus(ctx, stored, nodeClaim))
	}
	if node != nil {
		gone, err := r.deleteNode(ctx, node)
		if err != nil || !gone {
			// Another finalizer holds the node: the NodeClaim stays, InstanceTerminating, until
			// the node is gone, as upstream's NodeClaim waits for its nodes. The node's deletion
			// brings the next pass; the poll is a backstop.
			if err == nil {
				awaitingNodeDeletion(r.Recorder, nodeClaim, node)
			}
			return reconcile.Result{RequeueAfter: nodeDeletionPoll}, errors.Join(err, r.patchStatus(ctx, stored, nodeClaim))
		}
		r.recordNodeTerminated(nodeClaim, node)
	}
	stored = nodeClaim.DeepCopy()
	controllerutil.RemoveFinalizer(nodeClaim, karpv1.TerminationFinalizer)
	if err := nodeclaimutil.Patch(ctx, r.Client, stored, nodeClaim); err != nil {
		// NotFound: a pass on a stale copy after the NodeClaim went; it was counted then.
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("removing the termination finalizer of NodeClaim %s: %w", nodeClaim.Name, err)
	}
	r.announced.Delete(nodeClaim.UID)
	r.launches.Delete(nodeClaim.UID)
	nodeClaimTerminationDuration.WithLabelValues(nodeClaim.Labels[karpv1.LabelNodePool]).Observe(max(r.Clock.Now().Sub(nodeClaim.DeletionTimestamp.Time), 0).Seconds())
	nodeClaimsTerminated.WithLabelValues(nodeClaim.Labels[karpv1.LabelNodePool], nodeClaim.Labels[karpv1.LabelCapacityType], nodeClaim.Labels[karpv1.LabelTopologyZone]).Inc()
	log.FromContext(ctx).Info("deleted nodeclaim", "NodeClaim", klog.KRef("", nodeClaim.Name), "provider-id", nodeClaim.Status.ProviderID)
	return reconcile.Result{}, nil
}

// patchStatus writes the conditions a pass that still waits has set; a NodeClaim that is gone
// has none left to write.
func (r *Reconciler) patchStatus(ctx context.Context, stored, nodeClaim *karpv1.NodeClaim) error {
	if err := nodeclaimutil.PatchStatus(ctx, r.Client, stored, nodeClaim); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("patching the status of NodeClaim %s: %w", nodeClaim.Name, err)
	}
	return nil
}

// takeDown drains the node, waits for its volumes and deletes the VM, setting the conditions
// that say so; waiting is true while one of them is still under way.
func (r *Reconciler) takeDown(ctx context.Context, nodeClaim *karpv1.NodeClaim, node *corev1.Node, deadline *time.Time) (next reconcile.Result, waiting bool, err error) {
	if node != nil {
		if err := r.taint(ctx, node); err != nil {
			return reconcile.Result{}, true, err
		}
		if deadline != nil {
			terminationGracePeriodExpiring(r.Recorder, nodeClaim, node, *deadline)
		}
		pods, err := r.drain(ctx, nodeClaim, node, deadline)
		if err != nil || pods != "" {
			r.setCondition(nodeClaim, karpv1.ConditionTypeDrained, metav1.ConditionUnknown, karpv1.ReasonDraining, cmp.Or(pods, "draining the node"))
			if pods != "" {
				draining(r.Recorder, nodeClaim, pods)
			}
			return reconcile.Result{RequeueAfter: drainPoll}, true, err
		}
		r.setCondition(nodeClaim, karpv1.ConditionTypeDrained, metav1.ConditionTrue, karpv1.ReasonDrained, "every pod the node had to let go has gone")
		if r.firstAnnouncement(nodeClaim, karpv1.ConditionTypeDrained) {
			nodesDrained.WithLabelValues(nodeClaim.Labels[karpv1.LabelNodePool]).Inc()
		}
		if next, waiting, err := r.awaitVolumeDetachment(ctx, nodeClaim, node, deadline); waiting || err != nil {
			return next, true, err
		}
	}
	if nodeClaim.Status.ProviderID == "" {
		return reconcile.Result{}, false, nil
	}
	return r.deleteVM(ctx, nodeClaim)
}

// deleteVM deletes the NodeClaim's VM and says whether its termination still waits for it to
// be gone.
func (r *Reconciler) deleteVM(ctx context.Context, nodeClaim *karpv1.NodeClaim) (next reconcile.Result, waiting bool, err error) {
	err = r.CloudProvider.Delete(ctx, nodeClaim)
	if wait, ok := throttledWait(err); ok {
		// The cloud deleted nothing: asked again once the wait it asked for is over, not
		// after the workqueue's backoff, which grows for as long as the throttling lasts.
		log.FromContext(ctx).Info("deleting the VM was throttled by the cloud; trying again", "after", wait, "error", err.Error())
		return reconcile.Result{RequeueAfter: wait}, true, nil
	}
	if err != nil && !cloudprovider.IsNodeClaimNotFound(err) {
		return reconcile.Result{}, true, fmt.Errorf("deleting the VM: %w", err)
	}
	// Set once the VM is gone too, as upstream sets it: what counts disruptions in flight reads
	// it, and the NodeClaim may stay a while for its node.
	r.setCondition(nodeClaim, karpv1.ConditionTypeInstanceTerminating, metav1.ConditionTrue, karpv1.ReasonInstanceTerminating, "the VM is being deleted")
	if err != nil {
		// Gone: timed from the first pass that asked, once.
		if r.firstAnnouncement(nodeClaim, "InstanceTerminated") {
			started := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeInstanceTerminating).LastTransitionTime.Time
			instanceTerminationDuration.WithLabelValues(nodeClaim.Labels[karpv1.LabelNodePool]).Observe(max(r.Clock.Now().Sub(started), 0).Seconds())
		}
		return reconcile.Result{}, false, nil
	}
	return reconcile.Result{RequeueAfter: vmDeletionPoll}, true, nil
}

// recordNodeTerminated counts a node that is gone, once, with how long its termination took,
// from the node's deletion or, when this controller deleted it, its NodeClaim's, and how long it
// lived.
func (r *Reconciler) recordNodeTerminated(nodeClaim *karpv1.NodeClaim, node *corev1.Node) {
	if !r.firstAnnouncement(nodeClaim, "NodeTerminated") {
		return
	}
	nodePool := node.Labels[karpv1.LabelNodePool]
	asked := nodeClaim.DeletionTimestamp
	if !node.DeletionTimestamp.IsZero() && (asked.IsZero() || node.DeletionTimestamp.Before(asked)) {
		asked = node.DeletionTimestamp
	}
	now := r.Clock.Now()
	nodesTerminated.WithLabelValues(nodePool, node.Labels[corev1.LabelTopologyZone]).Inc()
	if !asked.IsZero() {
		nodeTerminationDuration.WithLabelValues(nodePool).Observe(max(now.Sub(asked.Time), 0).Seconds())
	}
	nodeLifetime.WithLabelValues(nodePool).Observe(max(now.Sub(node.CreationTimestamp.Time), 0).Seconds())
}

// taint keeps new pods off a node that is going away.
func (r *Reconciler) taint(ctx context.Context, node *corev1.Node) error {
	if nodeutil.HasTaint(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint) && node.Labels[corev1.LabelNodeExcludeBalancers] != "" {
		return nil
	}
	stored := node.DeepCopy()
	if !nodeutil.HasTaint(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint) {
		node.Spec.Taints = append(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
	}
	// Load balancers stop sending traffic to the node before its pods go, as upstream
	// Karpenter has them do.
	if _, set := node.Labels[corev1.LabelNodeExcludeBalancers]; !set {
		metav1.SetMetaDataLabel(&node.ObjectMeta, corev1.LabelNodeExcludeBalancers, "karpenter")
	}
	if err := r.Client.Patch(ctx, node, nodePatch(stored)); err != nil {
		return fmt.Errorf("tainting node %s: %w", node.Name, err)
	}
	log.FromContext(ctx).Info("tainted node", "Node", klog.KRef("", node.Name),
		"taint.Key", karpv1.DisruptedNoScheduleTaint.Key, "taint.Effect", karpv1.DisruptedNoScheduleTaint.Effect)
	return nil
}

// deleteNode removes the node's finalizer and deletes it; gone is false while other finalizers
// still hold it.
func (r *Reconciler) deleteNode(ctx context.Context, node *corev1.Node) (gone bool, err error) {
	// Only this node: its name is the VM's hostname, which KakaoCloud gives again with the VM's
	// freed address, so by now the name can be a new VM's node, registered after this one went
	// and before the cache saw it (assumption A23). A conflict on a node of another UID says ours
	// is gone.
	replaced := func(err error) bool {
		if !apierrors.IsConflict(err) {
			return false
		}
		current := &corev1.Node{}
		getErr := r.Client.Get(ctx, client.ObjectKeyFromObject(node), current)
		if apierrors.IsNotFound(getErr) || (getErr == nil && current.UID != node.UID) {
			log.FromContext(ctx).V(1).Info("node already gone; its name is another node's now", "Node", klog.KRef("", node.Name))
			return true
		}
		return false
	}
	stored := node.DeepCopy()
	if controllerutil.RemoveFinalizer(node, karpv1.TerminationFinalizer) {
		if err := r.Client.Patch(ctx, node, nodePatch(stored)); err != nil {
			if apierrors.IsNotFound(err) || replaced(err) {
				return true, nil
			}
			return false, fmt.Errorf("removing the termination finalizer of node %s: %w", node.Name, err)
		}
	}
	held := len(node.Finalizers) > 0
	if !node.DeletionTimestamp.IsZero() {
		return !held, nil
	}
	err = r.Client.Delete(ctx, node, client.Preconditions{UID: &node.UID})
	if replaced(err) {
		return true, nil
	}
	if err != nil {
		// NotFound: an earlier pass deleted it and the cache has not seen it go yet; said then.
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("deleting node %s: %w", node.Name, err)
	}
	log.FromContext(ctx).Info("deleted node", "Node", klog.KRef("", node.Name))
	return !held, nil
}
