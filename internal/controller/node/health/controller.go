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
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/result"
)

// breakerRecheck is how soon a node whose repair is held is looked at again.
const breakerRecheck = time.Minute

// instanceStateRecheck is how soon a node whose condition a repair policy names, but whose VM
// is not (yet) in the state the policy asks for, is looked at again.
const instanceStateRecheck = 30 * time.Second

// Reconciler repairs unhealthy nodes.
type Reconciler struct {
	Client        client.Client
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	// Clock tells the time tolerations are measured on; the real clock when nil.
	Clock clock.PassiveClock
}

// finding is how a node is unhealthy: the policy it meets, the node condition that meets it
// and, for a policy on the VM's state, that state.
type finding struct {
	policy        cloudprovider.RepairPolicy
	condition     corev1.NodeCondition
	instanceState string
	lasted        time.Duration
}

func (f finding) String() string {
	s := fmt.Sprintf("its %s condition has been %s for %s", f.condition.Type, f.condition.Status, f.lasted.Round(time.Second))
	if f.instanceState != "" {
		s += fmt.Sprintf(" and KakaoCloud reports its VM %s", f.instanceState)
	}
	return s + fmt.Sprintf(", past the %s its repair policy tolerates", f.policy.TolerationDuration)
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
	found, wait, err := r.unhealthy(ctx, node, nodeClaim)
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
	return reconcile.Result{}, r.repair(ctx, node, nodeClaim, *found)
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
		return nil, err
	}
	for i := range claims.Items {
		if claims.Items[i].Status.ProviderID == node.Spec.ProviderID {
			return &claims.Items[i], nil
		}
	}
	return nil, nil
}

// unhealthy finds the first repair policy the node meets past its toleration; otherwise it
// returns how long until the earliest toleration ends (0 when none is running).
func (r *Reconciler) unhealthy(ctx context.Context, node *corev1.Node, nodeClaim *karpv1.NodeClaim) (*finding, time.Duration, error) {
	now := r.now()
	var wait time.Duration
	state, stateRead := "", false
	for _, policy := range r.CloudProvider.RepairPolicies() {
		condition, ok := nodeCondition(node, policy.ConditionType)
		if !ok || condition.Status != policy.ConditionStatus {
			continue
		}
		if len(policy.InstanceStates) > 0 {
			if !stateRead {
				var err error
				if state, err = r.CloudProvider.InstanceState(ctx, nodeClaim); err != nil {
					return nil, 0, err
				}
				stateRead = true
			}
			if !slices.Contains(policy.InstanceStates, state) {
				// The VM's state is KakaoCloud's and changes without an event on the node: a
				// node that went NotReady before its VM went to error would otherwise wait for
				// the longer policy's toleration.
				wait = result.Sooner(wait, instanceStateRecheck)
				continue
			}
		}
		lasted := now.Sub(condition.LastTransitionTime.Time)
		if left := policy.TolerationDuration - lasted; left > 0 {
			wait = result.Sooner(wait, left)
			continue
		}
		found := &finding{policy: policy, condition: condition, lasted: lasted}
		if len(policy.InstanceStates) > 0 {
			found.instanceState = state
		}
		return found, 0, nil
	}
	return nil, wait, nil
}

// held says why repair holds in the NodePool ("" when it does not): repair.maxUnhealthy is 0,
// or more of the NodePool's nodes than it allows are unhealthy at once. A node counts as
// unhealthy when it meets a repair policy's condition, whether or not its toleration is over,
// as upstream Karpenter counts them.
func (r *Reconciler) held(ctx context.Context, nodeClaim *karpv1.NodeClaim) (string, error) {
	pool := nodeClaim.Labels[karpv1.LabelNodePool]
	maxUnhealthy := karpv1.DefaultMaxUnhealthy
	nodePool := &karpv1.NodePool{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: pool}, nodePool); client.IgnoreNotFound(err) != nil {
		return "", err
	}
	if repair := nodePool.Spec.Disruption.Repair; repair != nil && repair.MaxUnhealthy != "" {
		maxUnhealthy = repair.MaxUnhealthy
	}
	if maxUnhealthy == "0" {
		return fmt.Sprintf("repair is turned off for NodePool %s (its repair.maxUnhealthy is 0)", pool), nil
	}
	nodes := &corev1.NodeList{}
	if err := r.Client.List(ctx, nodes, client.MatchingLabels{karpv1.LabelNodePool: pool}); err != nil {
		return "", err
	}
	unhealthy := 0
	for i := range nodes.Items {
		if r.meetsAPolicy(&nodes.Items[i]) {
			unhealthy++
		}
	}
	allowed, err := karpv1.NodeCount(maxUnhealthy, len(nodes.Items))
	if err != nil {
		return "", fmt.Errorf("NodePool %s's repair.maxUnhealthy: %w", pool, err)
	}
	if unhealthy <= allowed {
		return "", nil
	}
	return fmt.Sprintf("repair is held: %d of the %d nodes of NodePool %s are unhealthy, more than its repair.maxUnhealthy (%s, %d nodes) allows; a fault that takes that many nodes down is not one replacing them fixes",
		unhealthy, len(nodes.Items), pool, maxUnhealthy, allowed), nil
}

func (r *Reconciler) meetsAPolicy(node *corev1.Node) bool {
	for _, policy := range r.CloudProvider.RepairPolicies() {
		if condition, ok := nodeCondition(node, policy.ConditionType); ok && condition.Status == policy.ConditionStatus {
			return true
		}
	}
	return false
}

// repair deletes the node's NodeClaim with its terminationGracePeriod already over: its
// termination deletes the pods without waiting on PodDisruptionBudgets or
// karpenter.sh/do-not-disrupt (an unhealthy node's pods are not serving), deletes the VM, and
// the pods are provisioned for again.
func (r *Reconciler) repair(ctx context.Context, node *corev1.Node, nodeClaim *karpv1.NodeClaim, found finding) error {
	now := r.now().UTC()
	if at, ok := nodeClaim.Annotations[karpv1.NodeClaimTerminationTimestampAnnotationKey]; !ok || terminatesAfter(at, now) {
		patch := client.MergeFrom(nodeClaim.DeepCopy())
		if nodeClaim.Annotations == nil {
			nodeClaim.Annotations = map[string]string{}
		}
		nodeClaim.Annotations[karpv1.NodeClaimTerminationTimestampAnnotationKey] = now.Format(time.RFC3339)
		if err := r.Client.Patch(ctx, nodeClaim, patch); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
	if deleted, err := nodeclaimutil.Delete(ctx, r.Client, nodeClaim); !deleted {
		return err
	}
	pool, capacityType := nodeClaim.Labels[karpv1.LabelNodePool], nodeClaim.Labels[karpv1.LabelCapacityType]
	repairing(r.Recorder, node, nodeClaim, fmt.Sprintf("Replacing the unhealthy node: %s. Its pods are deleted without waiting on PodDisruptionBudgets or karpenter.sh/do-not-disrupt, and provisioned for again", found))
	unhealthyDisrupted.WithLabelValues(snakeCase(string(found.condition.Type)), pool, capacityType, nodeClaim.Status.ImageID).Inc()
	metrics.NodeClaimsDisrupted.WithLabelValues(pool, "unhealthy", capacityType).Inc()
	log.FromContext(ctx).Info("deleting unhealthy node", "condition", found.condition.Type, "status", found.condition.Status,
		"instanceState", found.instanceState, "toleration", found.policy.TolerationDuration.String())
	return nil
}

// terminatesAfter reports whether a termination timestamp annotation is later than now, or
// unreadable.
func terminatesAfter(at string, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, at)
	return err != nil || t.After(now)
}

func nodeCondition(node *corev1.Node, t corev1.NodeConditionType) (corev1.NodeCondition, bool) {
	for _, c := range node.Status.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return corev1.NodeCondition{}, false
}

// snakeCase writes a condition type as upstream's metric label does: Ready as ready,
// MemoryPressure as memory_pressure.
func snakeCase(s string) string {
	var b strings.Builder
	for i, c := range s {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (r *Reconciler) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

// SetupWithManager registers the reconciler. A node is looked at when it appears and when a
// condition of it changes status or transition time: that is when a toleration starts.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("node.health").
		For(&corev1.Node{}, builder.WithPredicates(predicate.Funcs{
			UpdateFunc: func(e event.UpdateEvent) bool {
				return conditionsChanged(e.ObjectOld.(*corev1.Node), e.ObjectNew.(*corev1.Node))
			},
			DeleteFunc:  func(event.DeleteEvent) bool { return false },
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		Complete(reconcile.AsReconciler(r.Client, r))
}

func conditionsChanged(before, after *corev1.Node) bool {
	if len(before.Status.Conditions) != len(after.Status.Conditions) {
		return true
	}
	for _, old := range before.Status.Conditions {
		now, ok := nodeCondition(after, old.Type)
		if !ok || now.Status != old.Status || !now.LastTransitionTime.Equal(&old.LastTransitionTime) {
			return true
		}
	}
	return false
}
