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

package static

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/index"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// Reconciler keeps static NodePools at their replica count.
type Reconciler struct {
	Client client.Client
	// Launches counts the NodePool's NodeClaims from the API server, and serializes this
	// controller's creations with the disruption loop's replacements: a NodeClaim created or
	// deleted a moment ago must count, or the next pass creates or deletes it again.
	Launches      *state.StaticLaunches
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	// Clock tells the time: the operator's one clock, which NewControllers gives every controller.
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=nodes;pods,verbs=get;list;watch

// Reconcile creates or deletes the NodePool's NodeClaims until it has spec.replicas.
//
// The candidates of a disruption under way count differently each way, as upstream's static
// NodePools count them: scaling up, a candidate holds its place until it is being deleted,
// since its replacement is being launched; scaling down, it does not, since its replacement
// holds it.
func (r *Reconciler) Reconcile(ctx context.Context, nodePool *karpv1.NodePool) (reconcile.Result, error) {
	if nodePool.Spec.Replicas == nil || !nodePool.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	want := int(*nodePool.Spec.Replicas)
	err := r.Launches.Do(ctx, nodePool.Name, func(nodeClaims []*karpv1.NodeClaim) error {
		var held, live []*karpv1.NodeClaim
		for _, nodeClaim := range nodeClaims {
			if !nodeClaim.DeletionTimestamp.IsZero() {
				continue
			}
			held = append(held, nodeClaim)
			if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason) {
				live = append(live, nodeClaim)
			}
		}
		switch {
		case len(held) < want:
			return r.scaleUp(ctx, nodePool, nodeClaims, len(held), want)
		case len(live) > want:
			return r.scaleDown(ctx, nodePool, live, len(live)-want)
		}
		return nil
	})
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("scaling NodePool %s to %d replicas: %w", nodePool.Name, want, err)
	}
	return reconcile.Result{}, nil
}

// scaleUp creates NodeClaims from the NodePool's template, as many as spec.replicas and
// limits.nodes allow, once the NodePool is Ready.
func (r *Reconciler) scaleUp(ctx context.Context, nodePool *karpv1.NodePool, nodeClaims []*karpv1.NodeClaim, have, want int) error {
	if !meta.IsStatusConditionTrue(nodePool.Status.Conditions, karpv1.ConditionTypeReady) {
		why := "its status is not computed yet"
		if c := meta.FindStatusCondition(nodePool.Status.Conditions, karpv1.ConditionTypeReady); c != nil {
			why = c.Message
		}
		scaleUpWaiting(r.Recorder, nodePool, fmt.Sprintf("%d of %d replicas: waiting for the NodePool to be Ready (%s)", have, want, why))
		return nil
	}
	create := want - have
	if room, why, limited := state.StaticNodeRoom(nodePool, nodeClaims); limited && room < create {
		create = room
		if room == 0 {
			scaleUpWaiting(r.Recorder, nodePool, fmt.Sprintf("%d of %d replicas: %s", have, want, why))
		} else {
			limit := nodePool.Spec.Limits[karpv1.ResourceNodes]
			scaleUpWaiting(r.Recorder, nodePool, fmt.Sprintf("%d of %d replicas: limits.nodes (%d) allows no more", have+room, want, limit.Value()))
		}
	}
	if create == 0 {
		return nil
	}
	types, err := r.CloudProvider.GetInstanceTypes(ctx, nodePool)
	if err != nil {
		return fmt.Errorf("listing the NodePool's instance types: %w", err)
	}
	template, err := simulation.StaticNodeClaim(simulation.NodePoolInput{NodePool: nodePool, InstanceTypes: types})
	if err != nil {
		scaleUpWaiting(r.Recorder, nodePool, fmt.Sprintf("%d of %d replicas: %v", have, want, err))
		return nil
	}
	for range create {
		nodeClaim := template.ToNodeClaim()
		if err := r.Client.Create(ctx, nodeClaim); err != nil {
			return fmt.Errorf("creating a NodeClaim: %w", err)
		}
		metrics.NodeClaimCreated(metrics.ReasonProvisioned, nodePool.Name, nodeClaim.Annotations[karpv1.NodeClaimMinValuesRelaxedAnnotationKey] == "true")
		log.FromContext(ctx).Info("created nodeclaim", "NodeClaim", klog.KObj(nodeClaim), "NodePool", klog.KObj(nodePool), "reason", "static")
	}
	scaled(r.Recorder, nodePool, ReasonScaledUp, fmt.Sprintf("created %d NodeClaims to reach %d replicas", create, want))
	return nil
}

// scaleDown deletes count NodeClaims: those not launched yet first, then those whose node
// runs no pod a deletion would move, then those with the fewest such pods; a node a
// karpenter.sh/do-not-disrupt pod runs on comes last. Scaling down is the operator's
// decision, as upstream's static NodePools have it: disruption budgets do not hold it, and
// the drains still wait for PodDisruptionBudgets.
func (r *Reconciler) scaleDown(ctx context.Context, nodePool *karpv1.NodePool, live []*karpv1.NodeClaim, count int) error {
	type candidate struct {
		nodeClaim         *karpv1.NodeClaim
		launched, blocked bool
		pods              int
	}
	candidates := make([]candidate, 0, len(live))
	now := r.Clock.Now()
	for _, nodeClaim := range live {
		c := candidate{nodeClaim: nodeClaim, launched: nodeClaim.Status.ProviderID != ""}
		if c.launched && nodeClaim.Status.NodeName != "" {
			pods := &corev1.PodList{}
			if err := r.Client.List(ctx, pods, client.MatchingFields{index.PodNodeName: nodeClaim.Status.NodeName}); err != nil {
				return fmt.Errorf("listing the pods of node %s: %w", nodeClaim.Status.NodeName, err)
			}
			for i := range pods.Items {
				pod := &pods.Items[i]
				if podutil.IsReschedulable(pod) {
					c.pods++
				}
				protected, _, _ := podutil.DoNotDisrupt(pod, now)
				c.blocked = c.blocked || protected
			}
		}
		candidates = append(candidates, c)
	}
	slices.SortStableFunc(candidates, func(a, b candidate) int {
		return cmp.Or(compareBool(a.launched, b.launched), compareBool(a.blocked, b.blocked), cmp.Compare(a.pods, b.pods), cmp.Compare(a.nodeClaim.Name, b.nodeClaim.Name))
	})
	var deleted []string
	for _, c := range candidates[:count] {
		if _, err := nodeclaimutil.Delete(ctx, r.Client, c.nodeClaim); err != nil {
			return fmt.Errorf("deleting NodeClaim %s: %w", c.nodeClaim.Name, err)
		}
		deleted = append(deleted, c.nodeClaim.Name)
	}
	log.FromContext(ctx).Info("deleting nodeclaims to come down to the replica count", "NodePool", klog.KObj(nodePool), "nodeclaims", deleted)
	scaled(r.Recorder, nodePool, ReasonScaledDown, fmt.Sprintf("deleting %d NodeClaims to come down to %d replicas: %v", count, *nodePool.Spec.Replicas, deleted))
	return nil
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// SetupWithManager registers the reconciler: a NodePool is looked at when it changes and when
// one of its NodeClaims is created or deleted (expiry, repair and drift delete them).
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	if err := builder.ControllerManagedBy(mgr).
		Named("nodepool.static").
		For(&karpv1.NodePool{}).
		Watches(&karpv1.NodeClaim{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if pool := o.GetLabels()[karpv1.LabelNodePool]; pool != "" {
				return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: pool}}}
			}
			return nil
		})).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}
