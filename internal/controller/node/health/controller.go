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

package health

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// breakerRecheck is how soon a node whose repair is held is looked at again.
const breakerRecheck = time.Minute

// Reconciler repairs unhealthy nodes.
type Reconciler struct {
	Client        client.Client
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	// Clock tells the time tolerations are measured on: the operator's one clock.
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;patch;delete
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools,verbs=get;list;watch

// Reconcile repairs the node if it is unhealthy past its toleration and its NodePool's
// circuit breaker allows, and otherwise comes back when the toleration ends.
func (r *Reconciler) Reconcile(ctx context.Context, node *corev1.Node) (reconcile.Result, error) {
	if !node.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	nodeClaim, err := r.nodeClaimOf(ctx, node)
	if err != nil || nodeClaim == nil || !nodeClaim.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, err
	}
	ctx = log.IntoContext(ctx, log.FromContext(ctx).WithValues("NodeClaim", klog.KObj(nodeClaim)))
	found, wait, err := repair.Evaluate(ctx, r.CloudProvider, node, nodeClaim, r.Clock.Now())
	if err != nil || found == nil {
		return reconcile.Result{RequeueAfter: wait}, err
	}
	held, err := r.held(ctx, nodeClaim)
	if err != nil {
		return reconcile.Result{}, err
	}
	if held != "" {
		repairHeld(r.Recorder, node, nodeClaim, fmt.Sprintf("The node is unhealthy (%s), but %s", found, held))
		return reconcile.Result{RequeueAfter: breakerRecheck}, nil
	}
	return reconcile.Result{}, r.replace(ctx, node, nodeClaim, *found)
}

// nodeClaimOf returns the node's NodeClaim: of the NodePool the node is labelled with, with the
// node's provider id. Nodes this operator does not manage have none.
func (r *Reconciler) nodeClaimOf(ctx context.Context, node *corev1.Node) (*karpv1.NodeClaim, error) {
	pool, ok := node.Labels[karpv1.LabelNodePool]
	if !ok || node.Spec.ProviderID == "" {
		return nil, nil
	}
	claims := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, claims, client.MatchingLabels{karpv1.LabelNodePool: pool}); err != nil {
		return nil, fmt.Errorf("listing the NodeClaims of NodePool %s: %w", pool, err)
	}
	for i := range claims.Items {
		if claims.Items[i].Status.ProviderID == node.Spec.ProviderID {
			return &claims.Items[i], nil
		}
	}
	return nil, nil
}

// held says why repair holds in the NodePool ("" when it does not), as repair.Breaker decides.
func (r *Reconciler) held(ctx context.Context, nodeClaim *karpv1.NodeClaim) (string, error) {
	pool := nodeClaim.Labels[karpv1.LabelNodePool]
	nodePool := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: pool}}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(nodePool), nodePool); client.IgnoreNotFound(err) != nil {
		return "", fmt.Errorf("getting NodePool %s: %w", pool, err)
	}
	return repair.Held(ctx, r.Client, r.CloudProvider.RepairPolicies(), nodePool)
}

// replace deletes the node's NodeClaim with its terminationGracePeriod already over: its
// termination deletes the pods without waiting on PodDisruptionBudgets or
// karpenter.sh/do-not-disrupt (an unhealthy node's pods are not serving), deletes the VM, and
// the pods are provisioned for again.
func (r *Reconciler) replace(ctx context.Context, node *corev1.Node, nodeClaim *karpv1.NodeClaim, found repair.Finding) error {
	if err := nodeclaimutil.TerminateBy(ctx, r.Client, nodeClaim, r.Clock.Now()); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("bounding the drain of NodeClaim %s: %w", nodeClaim.Name, err)
	}
	if deletion, err := nodeclaimutil.Delete(ctx, r.Client, nodeClaim); !deletion.Accepted() {
		if err != nil {
			return fmt.Errorf("deleting NodeClaim %s: %w", nodeClaim.Name, err)
		}
		return nil
	}
	repairing(r.Recorder, node, nodeClaim, fmt.Sprintf("Replacing the unhealthy node: %s. Its pods are deleted without waiting on PodDisruptionBudgets or karpenter.sh/do-not-disrupt, and provisioned for again", found))
	// Its terminationGracePeriod is over at once: the drain is forceful.
	repair.RecordRepair(found, nodeClaim, metrics.TerminationModeForceful)
	pods, err := podutil.CountReschedulable(ctx, r.Client, node.Name)
	if err != nil {
		log.FromContext(ctx).V(1).Info("counting the node's reschedulable pods for karpenter_pods_disruption_initiated_total", "error", err.Error())
	}
	metrics.Disruption{Reason: "unhealthy", NodePool: nodeClaim.Labels[karpv1.LabelNodePool], CapacityType: nodeClaim.Labels[karpv1.LabelCapacityType],
		TerminationMode: metrics.TerminationModeForceful, Pods: pods}.Record()
	log.FromContext(ctx).Info("deleting unhealthy node", "condition", found.Condition.Type, "status", found.Condition.Status,
		"instanceState", found.InstanceState, "toleration", found.Policy.TolerationDuration.String())
	return nil
}

// SetupWithManager registers the reconciler. A node is looked at when it appears and when a
// condition of it changes status or transition time: that is when a toleration starts.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("node.health").
		For(&corev1.Node{}, builder.WithPredicates(predicate.Funcs{
			UpdateFunc: func(e event.UpdateEvent) bool {
				return conditionsChanged(e.ObjectOld.(*corev1.Node), e.ObjectNew.(*corev1.Node))
			},
			DeleteFunc:  func(event.DeleteEvent) bool { return false },
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}

func conditionsChanged(before, after *corev1.Node) bool {
	if len(before.Status.Conditions) != len(after.Status.Conditions) {
		return true
	}
	for _, old := range before.Status.Conditions {
		now, ok := nodeutil.Condition(after, old.Type)
		if !ok || now.Status != old.Status || !now.LastTransitionTime.Equal(&old.LastTransitionTime) {
			return true
		}
	}
	return false
}
