/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// Polling while a drain or a VM deletion is under way.
const (
	drainPoll      = 5 * time.Second
	vmDeletionPoll = 5 * time.Second
)

// terminate takes a deleting NodeClaim down in order: taint its node, drain it through the
// Eviction API (PodDisruptionBudgets hold it, up to terminationGracePeriod), delete the VM and
// wait until KakaoCloud no longer has it, delete the node, and only then let the NodeClaim go.
func (r *Reconciler) terminate(ctx context.Context, nc *karpv1.NodeClaim) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(nc, karpv1.TerminationFinalizer) {
		return reconcile.Result{}, nil
	}
	node, err := r.nodeOf(ctx, nc)
	if err != nil {
		return reconcile.Result{}, err
	}
	if node != nil {
		if err := r.taint(ctx, node); err != nil {
			return reconcile.Result{}, err
		}
		if waiting, err := r.drain(ctx, nc, node); err != nil || waiting != "" {
			if waiting != "" {
				r.Recorder.Eventf(nc, nil, corev1.EventTypeNormal, "Draining", "Terminate", "%s", waiting)
			}
			return reconcile.Result{RequeueAfter: drainPoll}, err
		}
	}
	if nc.Status.ProviderID != "" {
		err := r.CloudProvider.Delete(ctx, nc)
		if !cloudprovider.IsNodeClaimNotFound(err) {
			if err != nil {
				return reconcile.Result{}, fmt.Errorf("deleting the VM: %w", err)
			}
			setCondition(nc, karpv1.ConditionTypeInstanceTerminating, metav1.ConditionTrue, "InstanceTerminating", "the VM is being deleted")
			return reconcile.Result{RequeueAfter: vmDeletionPoll}, client.IgnoreNotFound(r.Client.Status().Update(ctx, nc))
		}
	}
	if node != nil {
		if err := r.deleteNode(ctx, node); err != nil {
			return reconcile.Result{}, err
		}
	}
	stored := nc.DeepCopy()
	controllerutil.RemoveFinalizer(nc, karpv1.TerminationFinalizer)
	// Optimistic locking: finalizers are a list a stale merge patch would overwrite whole.
	if err := r.Client.Patch(ctx, nc, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})); err != nil {
		// NotFound: a pass on a stale copy after the NodeClaim went; it was counted then.
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	r.announced.forget(nc.UID)
	nodeClaimsTerminated.WithLabelValues(nc.Labels[karpv1.LabelNodePool]).Inc()
	log.FromContext(ctx).Info("deleted nodeclaim", "NodeClaim", map[string]string{"name": nc.Name}, "provider-id", nc.Status.ProviderID)
	return reconcile.Result{}, nil
}

// taint keeps new pods off a node that is going away.
func (r *Reconciler) taint(ctx context.Context, node *corev1.Node) error {
	if hasTaint(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint) {
		return nil
	}
	stored := node.DeepCopy()
	node.Spec.Taints = append(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
	if err := r.Client.Patch(ctx, node, nodePatch(stored)); err != nil {
		return err
	}
	log.FromContext(ctx).Info("tainted node", "Node", map[string]string{"name": node.Name},
		"taint.Key", karpv1.DisruptedNoScheduleTaint.Key, "taint.Effect", karpv1.DisruptedNoScheduleTaint.Effect)
	return nil
}

// drain evicts the node's pods (DaemonSet and mirror pods stay). It returns what it still
// waits for, "" once the node is empty. Past the NodeClaim's terminationGracePeriod, pods a
// PodDisruptionBudget still protects are deleted.
func (r *Reconciler) drain(ctx context.Context, nc *karpv1.NodeClaim, node *corev1.Node) (string, error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.MatchingFields{"spec.nodeName": node.Name}); err != nil {
		return "", err
	}
	deadlinePassed := nc.Spec.TerminationGracePeriod != nil &&
		r.now().After(nc.DeletionTimestamp.Add(nc.Spec.TerminationGracePeriod.Duration))
	var blocked, held, terminating []string
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !evictable(pod) {
			continue
		}
		if !pod.DeletionTimestamp.IsZero() {
			terminating = append(terminating, pod.Namespace+"/"+pod.Name)
			continue
		}
		if !deadlinePassed && pod.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true" {
			// Held until the terminationGracePeriod deadline, if there is one, as upstream
			// Karpenter holds them: the annotation asks not to be evicted.
			held = append(held, pod.Namespace+"/"+pod.Name)
			continue
		}
		if deadlinePassed {
			if err := r.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
				return "", err
			}
			continue
		}
		eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}}
		err := r.Client.SubResource("eviction").Create(ctx, pod, eviction)
		switch {
		case err == nil, apierrors.IsNotFound(err):
		case apierrors.IsTooManyRequests(err):
			// A PodDisruptionBudget does not allow it now.
			blocked = append(blocked, pod.Namespace+"/"+pod.Name)
		default:
			return "", err
		}
	}
	switch {
	case len(blocked) > 0:
		return fmt.Sprintf("waiting to evict %s: a PodDisruptionBudget does not allow it yet", strings.Join(blocked, ", ")), nil
	case len(held) > 0:
		return fmt.Sprintf("waiting for %s, annotated %s, to go: it is not evicted before the terminationGracePeriod deadline", strings.Join(held, ", "), karpv1.DoNotDisruptAnnotationKey), nil
	case len(terminating) > 0:
		return fmt.Sprintf("waiting for %s to terminate", strings.Join(terminating, ", ")), nil
	}
	return "", nil
}

// evictable pods are moved off a draining node; DaemonSet pods and static pods are not,
// finished pods need nothing, and pods that tolerate karpenter.sh/disrupted would only come
// back: like upstream Karpenter, the drain leaves them to go with the node.
func evictable(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	for i := range pod.Spec.Tolerations {
		if pod.Spec.Tolerations[i].ToleratesTaint(klog.Background(), &karpv1.DisruptedNoScheduleTaint, false) {
			return false
		}
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	for _, o := range pod.OwnerReferences {
		if o.Kind == "DaemonSet" && ptr.Deref(o.Controller, false) {
			return false
		}
	}
	return true
}

// deleteNode removes the node's finalizer and deletes it.
func (r *Reconciler) deleteNode(ctx context.Context, node *corev1.Node) error {
	stored := node.DeepCopy()
	if controllerutil.RemoveFinalizer(node, karpv1.TerminationFinalizer) {
		if err := r.Client.Patch(ctx, node, nodePatch(stored)); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	if err := r.Client.Delete(ctx, node); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	log.FromContext(ctx).Info("deleted node", "Node", map[string]string{"name": node.Name})
	return nil
}
