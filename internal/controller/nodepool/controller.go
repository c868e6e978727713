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

package nodepool

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// Reconciler reconciles NodePools.
type Reconciler struct {
	Client client.Client
	// CloudProvider prices the NodePool's NodeClaims for karpenter_nodepools_cost_total;
	// without it the cost is not published.
	CloudProvider cloudprovider.CloudProvider
	// RegistrationHealth holds the registration outcomes the NodeClaim lifecycle records;
	// without it NodeRegistrationHealthy stays Unknown.
	RegistrationHealth *state.RegistrationHealth
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=karpenter.kakaocloud.com,resources=kcnodeclasses,verbs=get;list;watch

// Reconcile brings one NodePool's hash annotation and status up to date.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	np := &karpv1.NodePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, np); err != nil {
		if apierrors.IsNotFound(err) {
			forgetMetrics(req.Name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("getting NodePool %s: %w", req.Name, err)
	}
	if !np.DeletionTimestamp.IsZero() {
		forgetMetrics(np.Name)
		return reconcile.Result{}, nil
	}
	// Every change to one of its NodeClaims reconciles the NodePool, and every pass reads them
	// all: without copies (read-only here; restamping copies the one it writes).
	claims := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, claims, client.MatchingLabels{karpv1.LabelNodePool: np.Name}, client.UnsafeDisableDeepCopy); err != nil {
		return reconcile.Result{}, fmt.Errorf("listing the NodeClaims of NodePool %s: %w", np.Name, err)
	}
	if err := r.stampHash(ctx, np, claims.Items); err != nil {
		return reconcile.Result{}, err
	}

	stored := np.DeepCopy()
	nodeClass, err := r.nodeClass(ctx, np)
	if err != nil {
		return reconcile.Result{}, err
	}
	np.Status = computeStatus(np, nodeClass, claims.Items, r.registrations(np, nodeClass))
	nodePoolCost, costKnown := r.cost(ctx, np, claims.Items)
	recordMetrics(np, nodePoolCost, costKnown)
	if equality.Semantic.DeepEqual(stored.Status, np.Status) {
		return reconcile.Result{}, nil
	}
	if err := r.Client.Status().Patch(ctx, np, client.MergeFrom(stored)); err != nil {
		return reconcile.Result{}, fmt.Errorf("patching the status of NodePool %s: %w", np.Name, err)
	}
	return reconcile.Result{}, nil
}

// cost is what the NodePool's NodeClaims cost, priced with its instance types; unknown
// without a cloud provider or while its instance types cannot be listed (its KCNodeClass not
// ready, say), which the NodePool's conditions already say.
func (r *Reconciler) cost(ctx context.Context, np *karpv1.NodePool, claims []karpv1.NodeClaim) (float64, bool) {
	if r.CloudProvider == nil {
		return 0, false
	}
	types, err := r.CloudProvider.GetInstanceTypes(ctx, np)
	if err != nil {
		log.FromContext(ctx).V(1).Info("the NodePool's cost is not known: its instance types cannot be listed", "error", err.Error())
		return 0, false
	}
	return costOf(claims, types), true
}

// nodeClass returns the NodePool's KCNodeClass, nil when it does not exist.
func (r *Reconciler) nodeClass(ctx context.Context, np *karpv1.NodePool) (*kcv1.KCNodeClass, error) {
	ref := np.Spec.Template.Spec.NodeClassRef
	if ref == nil {
		return nil, nil
	}
	nodeClass := &kcv1.KCNodeClass{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: ref.Name}, nodeClass); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("getting KCNodeClass %s: %w", ref.Name, err)
	}
	return nodeClass, nil
}

// registrations are a NodePool's latest registration outcomes: how many, and how many failed.
type registrations struct{ total, failed int }

// registrations reads the NodePool's registration outcomes. Those recorded before the
// NodePool or its KCNodeClass last changed are forgotten; a NodePool with none, and a
// condition from before a restart, starts from the condition.
func (r *Reconciler) registrations(np *karpv1.NodePool, nodeClass *kcv1.KCNodeClass) registrations {
	if r.RegistrationHealth == nil {
		return registrations{}
	}
	c := meta.FindStatusCondition(np.Status.Conditions, karpv1.ConditionTypeNodeRegistrationHealthy)
	switch {
	case c == nil || c.ObservedGeneration != np.Generation || (nodeClass != nil && np.Status.NodeClassObservedGeneration != nodeClass.Generation):
		r.RegistrationHealth.Forget(np.Name)
	case c.Status != metav1.ConditionUnknown:
		r.RegistrationHealth.Seed(np.Name, c.Status == metav1.ConditionTrue)
	}
	total, failed := r.RegistrationHealth.Outcomes(np.Name)
	return registrations{total: total, failed: failed}
}

// computeStatus derives a NodePool's status from its node class, NodeClaims and latest
// registration outcomes.
func computeStatus(np *karpv1.NodePool, nodeClass *kcv1.KCNodeClass, claims []karpv1.NodeClaim, outcomes registrations) karpv1.NodePoolStatus {
	status := *np.Status.DeepCopy()
	set := func(t string, s metav1.ConditionStatus, reason, message string) {
		conditions.Set(&status.Conditions, np.Generation, metav1.Condition{Type: t, Status: s, Reason: reason, Message: message})
	}

	// Resources and node count: what its live NodeClaims hold. As upstream's, the core
	// resources and nodes are there at zero, so that a NodePool without nodes shows 0 and the
	// usage metric has a series for limits.nodes to be read against.
	launched := corev1.ResourceList{
		corev1.ResourceCPU: resource.Quantity{}, corev1.ResourceMemory: resource.Quantity{},
		corev1.ResourcePods: resource.Quantity{}, corev1.ResourceEphemeralStorage: resource.Quantity{},
	}
	var nodes, drifted int64
	for _, c := range claims {
		if !c.DeletionTimestamp.IsZero() {
			continue
		}
		nodes++
		resources.AddTo(launched, c.Status.Capacity)
		if meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeDrifted) {
			drifted++
		}
	}
	launched[karpv1.ResourceNodes] = *resource.NewQuantity(nodes, resource.DecimalSI)
	status.Resources, status.Nodes, status.Drifted = launched, &nodes, drifted

	if errs := np.RuntimeValidate(); len(errs) > 0 {
		set(karpv1.ConditionTypeValidationSucceeded, metav1.ConditionFalse, karpv1.ReasonInvalid, errs.ToAggregate().Error())
	} else {
		set(karpv1.ConditionTypeValidationSucceeded, metav1.ConditionTrue, karpv1.ReasonValid, "the NodePool's spec is valid")
	}

	switch {
	case nodeClass == nil:
		set(karpv1.ConditionTypeNodeClassReady, metav1.ConditionFalse, karpv1.ReasonNodeClassNotFound,
			fmt.Sprintf("KCNodeClass %q does not exist", refName(np)))
	default:
		status.NodeClassObservedGeneration = nodeClass.Generation
		ready := meta.FindStatusCondition(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)
		switch {
		case ready == nil:
			set(karpv1.ConditionTypeNodeClassReady, metav1.ConditionUnknown, karpv1.ReasonAwaitingReconciliation,
				fmt.Sprintf("KCNodeClass %q has not been resolved yet", nodeClass.Name))
		case ready.Status == metav1.ConditionTrue:
			set(karpv1.ConditionTypeNodeClassReady, metav1.ConditionTrue, karpv1.ReasonNodeClassReady, fmt.Sprintf("KCNodeClass %q is ready", nodeClass.Name))
		default:
			set(karpv1.ConditionTypeNodeClassReady, ready.Status, ready.Reason, fmt.Sprintf("KCNodeClass %q: %s", nodeClass.Name, ready.Message))
		}
	}

	// NodeRegistrationHealthy: informational, as upstream's; Ready does not depend on it.
	switch {
	case outcomes.total == 0:
		set(karpv1.ConditionTypeNodeRegistrationHealthy, metav1.ConditionUnknown, karpv1.ReasonAwaitingRegistration,
			"no NodeClaim launched since the NodePool or its KCNodeClass last changed has registered its node, or failed to, yet")
	case state.Unhealthy(outcomes.total, outcomes.failed):
		set(karpv1.ConditionTypeNodeRegistrationHealthy, metav1.ConditionFalse, karpv1.ReasonRegistrationFailed,
			fmt.Sprintf("%d of the last %d NodeClaims launched did not register their node in time: check the KCNodeClass's images, subnets and security groups, and the VMs' console output",
				outcomes.failed, outcomes.total))
	default:
		set(karpv1.ConditionTypeNodeRegistrationHealthy, metav1.ConditionTrue, karpv1.ReasonNodesRegistered,
			fmt.Sprintf("%d of the last %d NodeClaims launched registered their node", outcomes.total-outcomes.failed, outcomes.total))
	}

	conditions.SetReady(&status.Conditions, np.Generation, metav1.Condition{
		Type: karpv1.ConditionTypeReady, Reason: karpv1.ReasonReady, Message: "the NodePool can launch nodes",
	}, karpv1.ConditionTypeValidationSucceeded, karpv1.ConditionTypeNodeClassReady)
	return status
}

func refName(np *karpv1.NodePool) string {
	if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil {
		return ref.Name
	}
	return ""
}

// SetupWithManager registers the reconciler; a NodePool is reconciled again when its node
// class or one of its NodeClaims changes.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("nodepool").
		For(&karpv1.NodePool{}).
		Watches(&kcv1.KCNodeClass{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			pools := &karpv1.NodePoolList{}
			if err := r.Client.List(ctx, pools); err != nil {
				return nil
			}
			var reqs []reconcile.Request
			for _, np := range pools.Items {
				if refName(&np) == o.GetName() {
					reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKey{Name: np.Name}})
				}
			}
			return reqs
		})).
		Watches(&karpv1.NodeClaim{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if name := o.GetLabels()[karpv1.LabelNodePool]; name != "" {
				return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: name}}}
			}
			return nil
		})).
		Complete(r); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}
