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

package operatorcondition

import (
	"context"
	"fmt"
	"time"

	"github.com/operator-framework/operator-lib/conditions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// DefaultNextReleaseMinimum is the oldest Kubernetes minor the next release of this operator
// supports: Kubernetes Engine deprecates 1.33 and ends it on 2026-12-31, and the next release
// drops it (docs/assumptions.md, A20).
const DefaultNextReleaseMinimum = "1.34"

// resyncPeriod bounds how long a missed event can leave the condition stale.
const resyncPeriod = 10 * time.Minute

// key is the one request this controller reconciles: the condition sums up the cluster.
var key = reconcile.Request{NamespacedName: types.NamespacedName{Name: "upgradeable"}}

// Reconciler keeps the Upgradeable condition current.
type Reconciler struct {
	// Client reads KCNodeClasses and NodeClaims (through the manager's cache).
	Client client.Client
	// Condition is the Upgradeable condition of the operator's OperatorCondition.
	Condition conditions.Condition
	// NextReleaseMinimum is the oldest Kubernetes minor the next release supports.
	NextReleaseMinimum string
}

// Reconcile computes Upgradeable and writes it when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	nodeClasses := &kcv1.KCNodeClassList{}
	if err := r.Client.List(ctx, nodeClasses); err != nil {
		return reconcile.Result{}, fmt.Errorf("listing KCNodeClasses: %w", err)
	}
	nodeClaims := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, nodeClaims); err != nil {
		return reconcile.Result{}, fmt.Errorf("listing NodeClaims: %w", err)
	}
	want := ComputeUpgradeable(nodeClasses.Items, nodeClaims.Items, r.NextReleaseMinimum)
	have, err := r.Condition.Get(ctx)
	// Before the first write the condition is absent, which operator-lib reports as an error
	// that is not NotFound; NotFound itself is the OperatorCondition missing.
	if apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("reading the OperatorCondition's Upgradeable condition: %w", err)
	}
	if err == nil && have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
		return reconcile.Result{RequeueAfter: resyncPeriod}, nil
	}
	if err := r.Condition.Set(ctx, want.Status, conditions.WithReason(want.Reason), conditions.WithMessage(want.Message)); err != nil {
		return reconcile.Result{}, fmt.Errorf("setting the OperatorCondition's Upgradeable condition: %w", err)
	}
	logf.FromContext(ctx).Info("updated the Upgradeable condition", "status", want.Status, "reason", want.Reason, "message", want.Message)
	return reconcile.Result{RequeueAfter: resyncPeriod}, nil
}

// SetupWithManager reconciles at start and whenever a KCNodeClass or NodeClaim changes.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toKey := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{key}
	})
	start := make(chan event.GenericEvent, 1)
	start <- event.GenericEvent{Object: &metav1.PartialObjectMetadata{}}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("operatorcondition").
		// Only what the condition reads: a KCNodeClass's spec (its kubernetesVersion), and a
		// NodeClaim's coming, going and annotations (the version it was launched with); not
		// the NodeClaim status updates of every lifecycle step.
		Watches(&kcv1.KCNodeClass{}, toKey, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&karpv1.NodeClaim{}, toKey, builder.WithPredicates(predicate.AnnotationChangedPredicate{})).
		WatchesRawSource(source.Channel(start, toKey)).
		Complete(r); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}
