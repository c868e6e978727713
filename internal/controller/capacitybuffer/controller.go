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

package capacitybuffer

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
)

// ResyncPeriod is how often a buffer is looked at again without a change: each look starts a
// provisioning pass, which refills the buffer once pods have taken its room.
const ResyncPeriod = 30 * time.Second

// Reconciler keeps each CapacityBuffer's status: ReadyForProvisioning, its replicas and the
// PodTemplate observed. Provisioning reads it (capacitybuffer.ReadVirtualPods).
type Reconciler struct {
	Client client.Client
	// Provision starts a provisioning pass.
	Provision func()
	Clock     clock.Clock
}

// +kubebuilder:rbac:groups=autoscaling.x-k8s.io,resources=capacitybuffers,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling.x-k8s.io,resources=capacitybuffers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=podtemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;replicasets,verbs=get;list;watch

// Reconcile resolves the buffer, patches its status when it changed, and starts a
// provisioning pass, whose placement of the buffer's virtual pods sets its Provisioning
// condition. A buffer gone starts one too: its room is no longer kept.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cb := &autoscalingv1beta1.CapacityBuffer{}
	if err := r.Client.Get(ctx, req.NamespacedName, cb); err != nil {
		if apierrors.IsNotFound(err) {
			r.Provision()
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("getting CapacityBuffer %s: %w", req.NamespacedName, err)
	}
	resolution, err := capacitybuffer.Resolve(ctx, r.Client, cb)
	if err != nil && !apierrors.IsNotFound(err) && !capacitybuffer.IsUnresolvable(err) {
		return reconcile.Result{}, fmt.Errorf("resolving CapacityBuffer %s: %w", req.NamespacedName, err)
	}
	status := capacitybuffer.Status(cb, resolution, err, metav1.NewTime(r.Clock.Now()))
	if !equality.Semantic.DeepEqual(status, cb.Status) {
		stored := cb.DeepCopy()
		cb.Status = status
		if err := r.Client.Status().Patch(ctx, cb, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})); err != nil {
			if apierrors.IsNotFound(err) {
				return reconcile.Result{}, nil
			}
			return reconcile.Result{}, fmt.Errorf("patching the status of CapacityBuffer %s: %w", req.NamespacedName, err)
		}
	}
	r.Provision()
	return reconcile.Result{RequeueAfter: ResyncPeriod}, nil
}

// SetupWithManager registers the reconciler: a buffer is looked at when it changes, when the
// PodTemplate or workload it names changes, and every ResyncPeriod; a deleted one starts a
// provisioning pass, which no longer keeps its room.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	workloadOf := func(kind string) handler.EventHandler {
		return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return r.buffersNaming(ctx, o.GetNamespace(), func(cb *autoscalingv1beta1.CapacityBuffer) bool {
				ref := cb.Spec.ScalableRef
				return ref != nil && ref.Kind == kind && ref.Name == o.GetName() && (ref.APIGroup == "" || ref.APIGroup == appsv1.GroupName)
			})
		})
	}
	if err := builder.ControllerManagedBy(mgr).
		Named("capacitybuffer").
		For(&autoscalingv1beta1.CapacityBuffer{}).
		Watches(&corev1.PodTemplate{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return r.buffersNaming(ctx, o.GetNamespace(), func(cb *autoscalingv1beta1.CapacityBuffer) bool {
				return cb.Spec.PodTemplateRef != nil && cb.Spec.PodTemplateRef.Name == o.GetName()
			})
		})).
		// A workload's status changes with every pod; its spec (template, replicas) is what counts.
		Watches(&appsv1.Deployment{}, workloadOf(autoscalingv1beta1.KindDeployment), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&appsv1.StatefulSet{}, workloadOf(autoscalingv1beta1.KindStatefulSet), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&appsv1.ReplicaSet{}, workloadOf(autoscalingv1beta1.KindReplicaSet), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}

// buffersNaming lists the buffers of namespace that name the object (matches).
func (r *Reconciler) buffersNaming(ctx context.Context, namespace string, matches func(*autoscalingv1beta1.CapacityBuffer) bool) []reconcile.Request {
	list := &autoscalingv1beta1.CapacityBufferList{}
	if err := r.Client.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if matches(&list.Items[i]) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return out
}
