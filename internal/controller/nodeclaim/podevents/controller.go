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

package podevents

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// PodEventDedupe is the shortest time between two writes of a NodeClaim's lastPodEventTime;
// it is shorter than the validation delay, so a pod event during validation is always seen.
const PodEventDedupe = 10 * time.Second

// Reconciler writes status.lastPodEventTime on a NodeClaim when a pod is bound to its
// node, finishes, or is deleted from it: consolidateAfter counts from there.
type Reconciler struct {
	Client client.Client
	// Clock tells the time: the operator's one clock, which NewControllers gives every controller.
	Clock clock.PassiveClock
}

// Reconcile stamps the NodeClaim, unless it was stamped within PodEventDedupe.
func (r *Reconciler) Reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	now := r.Clock.Now()
	if !nodeClaim.DeletionTimestamp.IsZero() || now.Sub(nodeClaim.Status.LastPodEventTime.Time) < PodEventDedupe {
		return reconcile.Result{}, nil
	}
	if err := nodeclaimutil.StampLastPodEvent(ctx, r.Client, nodeClaim, now); client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, fmt.Errorf("recording the last pod event time of NodeClaim %s: %w", nodeClaim.Name, err)
	}
	return reconcile.Result{}, nil
}

// SetupWithManager registers the reconciler: pod events are mapped to the NodeClaim that owns
// the pod's node.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	if err := builder.ControllerManagedBy(mgr).
		Named("nodeclaim.podevents").
		Watches(&corev1.Pod{}, &podEventHandler{client: mgr.GetClient()}).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}

// podEventHandler enqueues the NodeClaim of a pod's node when the pod is bound to it, finishes,
// starts terminating, or is deleted.
type podEventHandler struct {
	client client.Client
}

var _ handler.EventHandler = (*podEventHandler)(nil)

func (h *podEventHandler) Create(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if pod, ok := e.Object.(*corev1.Pod); ok && pod.Spec.NodeName != "" && !podutil.IsTerminal(pod) {
		h.enqueue(ctx, pod.Spec.NodeName, q)
	}
}

func (h *podEventHandler) Update(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	before, ok1 := e.ObjectOld.(*corev1.Pod)
	after, ok2 := e.ObjectNew.(*corev1.Pod)
	if !ok1 || !ok2 || after.Spec.NodeName == "" {
		return
	}
	if before.Spec.NodeName != after.Spec.NodeName || podutil.IsTerminal(before) != podutil.IsTerminal(after) ||
		before.DeletionTimestamp.IsZero() != after.DeletionTimestamp.IsZero() {
		h.enqueue(ctx, after.Spec.NodeName, q)
	}
}

func (h *podEventHandler) Delete(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if pod, ok := e.Object.(*corev1.Pod); ok && pod.Spec.NodeName != "" {
		h.enqueue(ctx, pod.Spec.NodeName, q)
	}
}

func (h *podEventHandler) Generic(context.Context, event.GenericEvent, workqueue.TypedRateLimitingInterface[reconcile.Request]) {
}

// enqueue finds the NodeClaim of a node through the owner reference registration puts on it.
func (h *podEventHandler) enqueue(ctx context.Context, nodeName string, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	node := &corev1.Node{}
	if err := h.client.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
		return
	}
	for _, o := range node.OwnerReferences {
		if o.Kind == "NodeClaim" && o.APIVersion == karpv1.GroupVersion.String() {
			q.Add(reconcile.Request{NamespacedName: client.ObjectKey{Name: o.Name}})
		}
	}
}
