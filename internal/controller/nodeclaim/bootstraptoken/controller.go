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

package bootstraptoken

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
)

// Reconciler deletes the bootstrap token of each NodeClaim whose node has registered or that
// is being deleted.
type Reconciler struct {
	Client client.Client
	// TokenTTL is how long a token is valid (bootstrap.DefaultTokenTTL when 0), and
	// LaunchTimeout the lifecycle controller's, which the operator passes. A token
	// is minted by a launch attempt, within a launch timeout of the NodeClaim's creation, so a
	// NodeClaim found at start that is older than the two together has only expired tokens,
	// which no one can use, and is left to the garbage collector. (Twice the TTL would do only
	// while the TTL is at least the launch timeout, which --bootstrap-token-ttl does not demand.)
	TokenTTL      time.Duration
	LaunchTimeout time.Duration
	// Clock tells the time: the operator's one clock, which NewControllers gives every controller.
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch

// Reconcile deletes the NodeClaim's token once it is spent.
func (r *Reconciler) Reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	if !spent(nodeClaim) {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, bootstrap.DeleteTokens(ctx, r.Client, nodeClaim.UID)
}

// spent reports whether the NodeClaim's token is of no more use: its node registered, or the
// NodeClaim is going.
func spent(nodeClaim *karpv1.NodeClaim) bool {
	return !nodeClaim.DeletionTimestamp.IsZero() || meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeRegistered)
}

// mayHoldValidToken reports whether a token of the NodeClaim may not have expired yet.
func (r *Reconciler) mayHoldValidToken(nodeClaim *karpv1.NodeClaim) bool {
	return r.Clock.Since(nodeClaim.CreationTimestamp.Time) < r.LaunchTimeout+cmp.Or(r.TokenTTL, bootstrap.DefaultTokenTTL)
}

// SetupWithManager registers the reconciler. A NodeClaim is looked at when its token becomes
// spent, and, at start, when it may still hold a valid token that a restart kept this
// controller from deleting; not on its every update.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	becameSpent := predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			nodeClaim, ok := e.Object.(*karpv1.NodeClaim)
			return ok && spent(nodeClaim) && r.mayHoldValidToken(nodeClaim)
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, ok := e.ObjectOld.(*karpv1.NodeClaim)
			after, ok2 := e.ObjectNew.(*karpv1.NodeClaim)
			return ok && ok2 && !spent(before) && spent(after)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
	if err := builder.ControllerManagedBy(mgr).
		Named("nodeclaim.bootstraptoken").
		For(&karpv1.NodeClaim{}, builder.WithPredicates(becameSpent)).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}
