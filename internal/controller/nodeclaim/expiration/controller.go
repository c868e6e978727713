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

package expiration

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// Reconciler deletes NodeClaims whose expireAfter has elapsed. Expiry is forceful:
// budgets, PodDisruptionBudgets and karpenter.sh/do-not-disrupt do not hold it. The NodeClaim's
// termination drains the node (PodDisruptionBudgets are honoured until terminationGracePeriod
// runs out) and the evicted pods are provisioned for like any pending pods.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	// Clock tells the time: the operator's one clock, which NewControllers gives every controller.
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;delete

// Reconcile deletes the NodeClaim once it has expired, and otherwise comes back then.
func (r *Reconciler) Reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	expireAfter := nodeClaim.Spec.ExpireAfter.Duration
	if !nodeClaim.DeletionTimestamp.IsZero() || expireAfter == nil {
		return reconcile.Result{}, nil
	}
	now := r.Clock.Now()
	if left := nodeClaim.CreationTimestamp.Add(*expireAfter).Sub(now); left > 0 {
		return reconcile.Result{RequeueAfter: left}, nil
	}
	if deletion, err := nodeclaimutil.Delete(ctx, r.Client, nodeClaim); !deletion.Accepted() {
		if err != nil {
			return reconcile.Result{}, fmt.Errorf("deleting expired NodeClaim %s: %w", nodeClaim.Name, err)
		}
		return reconcile.Result{}, nil
	}
	drain := "draining waits for PodDisruptionBudgets without a time limit (no terminationGracePeriod)"
	if g := nodeClaim.Spec.TerminationGracePeriod; g != nil {
		drain = fmt.Sprintf("draining takes at most its terminationGracePeriod (%s)", g.Duration)
	}
	message := fmt.Sprintf("expireAfter (%s) has elapsed: the NodeClaim is deleted and its pods are rescheduled; budgets and karpenter.sh/do-not-disrupt do not hold expiry, and %s", *expireAfter, drain)
	if r.Recorder != nil {
		expired(r.Recorder, nodeClaim, message)
	}
	// Its pods are still bound: the count is what the deletion starts to move.
	pods, err := podutil.CountReschedulable(ctx, r.Client, nodeClaim.Status.NodeName)
	if err != nil {
		log.FromContext(ctx).V(1).Info("counting the node's reschedulable pods for karpenter_pods_disruption_initiated_total", "error", err.Error())
	}
	metrics.Disruption{Reason: "expired", NodePool: nodeClaim.Labels[karpv1.LabelNodePool], CapacityType: nodeClaim.Labels[karpv1.LabelCapacityType],
		TerminationMode: metrics.TerminationMode(nodeClaim.Spec.TerminationGracePeriod), Pods: pods}.Record()
	log.FromContext(ctx).Info("disrupting nodeclaim(s) via delete, terminating 1 nodes "+nodeClaim.Name, "reason", "expired",
		"NodeClaim", klog.KRef("", nodeClaim.Name), "expireAfter", expireAfter.String(), "age", now.Sub(nodeClaim.CreationTimestamp.Time).Round(time.Second).String())
	return reconcile.Result{}, nil
}

// SetupWithManager registers the reconciler.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	if err := builder.ControllerManagedBy(mgr).
		Named("nodeclaim.expiration").
		For(&karpv1.NodeClaim{}).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}
