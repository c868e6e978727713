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

package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/index"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/result"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/uidcache"
)

// Timeouts after which a NodeClaim that did not come up is deleted, so that its pods get
// another chance elsewhere.
const (
	DefaultLaunchTimeout       = 5 * time.Minute
	DefaultRegistrationTimeout = 15 * time.Minute
)

// lifecycleConcurrency is how many NodeClaims are reconciled at once.
const lifecycleConcurrency = 100

// Reconciler reconciles NodeClaims.
type Reconciler struct {
	Client        client.Client
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	// Clock tells the time of timeouts and drain deadlines: the operator's one clock.
	Clock               clock.Clock
	LaunchTimeout       time.Duration
	RegistrationTimeout time.Duration
	// RegistrationHealth, when set, is told whether each launched NodeClaim's node registered
	// in time, for its NodePool's NodeRegistrationHealthy condition.
	RegistrationHealth *state.RegistrationHealth

	// launches remembers each launch's result until the NodeClaim terminates: a pass on a copy
	// the cache has not updated yet must not launch again. announced remembers the steps
	// logged (firstAnnouncement).
	launches  uidcache.Cache[*karpv1.NodeClaim]
	announced uidcache.Cache[sets.Set[string]]
	// written is the resourceVersion each NodeClaim's last pass wrote it at.
	written uidcache.Written
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims/status,verbs=get;update;patch
// A node is owned by its NodeClaim with blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement
// admission plugin (on in OpenShift) allows only to who may update the owner's finalizers.
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create

// Reconcile moves one NodeClaim forward. A Conflict from any of its writes is a requeue, not
// an error: its node writes conflict whenever the kubelet or the node lifecycle controller has
// just written the node (heartbeats, taints), its NodeClaim writes whenever another controller
// has, and the next pass works on the current object.
func (r *Reconciler) Reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	// A copy older than the last pass's writes is left alone, to be tried again once the cache
	// has them (uidcache.Written.Pass). A pass on it would only redo those writes, each
	// refused with Conflict and retried on a fresh read; while 1,000 pods scaled out, a quarter
	// to a third of the operator's patches were refused, on the API server the kube-scheduler's
	// bindings wait on.
	return r.written.Pass(nodeClaim, r.Clock.Now, func() (reconcile.Result, error) {
		return result.RequeueOnConflict(r.reconcile(ctx, nodeClaim))
	})
}

func (r *Reconciler) reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	if !nodeClaim.DeletionTimestamp.IsZero() {
		return r.terminate(ctx, nodeClaim)
	}
	if unfinalized := nodeClaim.DeepCopy(); controllerutil.AddFinalizer(nodeClaim, karpv1.TerminationFinalizer) {
		if err := nodeclaimutil.Patch(ctx, r.Client, unfinalized, nodeClaim); err != nil {
			if apierrors.IsNotFound(err) {
				return reconcile.Result{}, nil
			}
			return reconcile.Result{}, fmt.Errorf("adding the termination finalizer to NodeClaim %s: %w", nodeClaim.Name, err)
		}
	}

	stored := nodeClaim.DeepCopy()
	var next reconcile.Result
	var errs []error
	// Every step runs, as upstream's do: a launch that keeps failing must still time out.
	for _, step := range []func(context.Context, *karpv1.NodeClaim) (stepResult, error){
		r.launch, r.register, r.checkLaunch, r.initialize, r.checkConsistency, r.liveness, r.followNodeDeletion,
	} {
		res, err := step(ctx, nodeClaim)
		if err != nil {
			errs = append(errs, err)
		}
		if res.delete {
			// Termination takes over on the next event.
			return reconcile.Result{}, errors.Join(append(errs, r.delete(ctx, stored, nodeClaim))...)
		}
		next = result.Min(next, res.requeue)
	}
	err := errors.Join(errs...)
	r.setReady(nodeClaim)
	if patchErr := nodeclaimutil.Write(ctx, r.Client, stored, nodeClaim); client.IgnoreNotFound(patchErr) != nil {
		return reconcile.Result{}, fmt.Errorf("writing NodeClaim %s: %w", nodeClaim.Name, patchErr)
	}
	return next, err
}

// stepResult is what a lifecycle step decided: when to look at the NodeClaim again, and
// whether to delete it, after which the steps after it do not run.
type stepResult struct {
	requeue reconcile.Result
	delete  bool
}

// deleted is the result of a step that decided the NodeClaim goes.
var deleted = stepResult{delete: true}

// delete deletes the NodeClaim a step decided to delete. A provider ID this pass found (a VM
// launched and failed at once) is written first, with the rest of the pass's status:
// termination deletes the VM it names.
func (r *Reconciler) delete(ctx context.Context, stored, nodeClaim *karpv1.NodeClaim) error {
	if nodeClaim.Status.ProviderID != "" {
		if err := nodeclaimutil.PatchStatus(ctx, r.Client, stored, nodeClaim); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("writing the status of NodeClaim %s before deleting it: %w", nodeClaim.Name, err)
		}
	}
	// By UID: the name may already be a new NodeClaim's, which this pass decided nothing about.
	if _, err := nodeclaimutil.Delete(ctx, r.Client, nodeClaim); err != nil {
		return fmt.Errorf("deleting nodeclaim %s: %w", nodeClaim.Name, err)
	}
	return nil
}

// setCondition sets a NodeClaim condition the lifecycle owns.
func (r *Reconciler) setCondition(nodeClaim *karpv1.NodeClaim, t string, s metav1.ConditionStatus, reason, message string) {
	// Stamped by the reconciler's clock, which timeouts are measured on.
	conditions.Set(&nodeClaim.Status.Conditions, nodeClaim.Generation, metav1.Condition{
		Type: t, Status: s, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(r.Clock.Now()),
	})
}

// setReady derives Ready from Launched, Registered and Initialized, as upstream's NodeClaim
// does: Unknown while one of them is still under way, False once one has failed.
func (r *Reconciler) setReady(nodeClaim *karpv1.NodeClaim) {
	conditions.SetReady(&nodeClaim.Status.Conditions, nodeClaim.Generation, metav1.Condition{
		Type: karpv1.ConditionTypeReady, Reason: karpv1.ReasonReady, Message: "the node is ready", LastTransitionTime: metav1.NewTime(r.Clock.Now()),
	}, karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized)
}

// nodeOf returns the NodeClaim's node, nil when none has registered yet.
func (r *Reconciler) nodeOf(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*corev1.Node, error) {
	if nodeClaim.Status.ProviderID == "" {
		return nil, nil
	}
	nodes := &corev1.NodeList{}
	if err := r.Client.List(ctx, nodes, client.MatchingFields{index.NodeProviderID: nodeClaim.Status.ProviderID}); err != nil {
		return nil, fmt.Errorf("listing the node of NodeClaim %s: %w", nodeClaim.Name, err)
	}
	if len(nodes.Items) == 0 {
		return nil, nil
	}
	return &nodes.Items[0], nil
}

// nodePatch patches a node with optimistic locking: a merge patch replaces lists such as taints
// whole, so a patch computed from a stale copy would bring back a taint that someone (the node
// lifecycle controller, a device plugin) has just removed. A conflict makes the reconcile retry
// with the current node instead.
func nodePatch(stored *corev1.Node) client.Patch {
	return client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})
}

// SetupWithManager registers the reconciler, which reads through the indexes of package
// index. A NodeClaim is reconciled again when its node changes.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("nodeclaim.lifecycle").
		For(&karpv1.NodeClaim{}).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			node := o.(*corev1.Node)
			if node.Spec.ProviderID == "" {
				return nil
			}
			claims := &karpv1.NodeClaimList{}
			if err := r.Client.List(ctx, claims, client.MatchingFields{index.NodeClaimProviderID: node.Spec.ProviderID}); err != nil {
				return nil
			}
			var requests []reconcile.Request
			for _, c := range claims.Items {
				requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&c)})
			}
			return requests
		})).
		// NodeClaims wait on KakaoCloud and the API server, not on CPU: hundreds launching at
		// once went one at a time (upstream runs a thousand at once). A NodeClaim is still
		// reconciled by one worker at a time.
		WithOptions(controller.Options{MaxConcurrentReconciles: lifecycleConcurrency}).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}

// firstAnnouncement reports whether the NodeClaim's step is logged for the first time: a
// pass on a copy the cache has not updated yet repeats a step's (idempotent) writes, and must
// not repeat its log line.
func (r *Reconciler) firstAnnouncement(nodeClaim *karpv1.NodeClaim, step string) bool {
	first := false
	r.announced.Update(nodeClaim.UID, r.Clock.Now(), func(done sets.Set[string], _ bool) sets.Set[string] {
		if first = !done.Has(step); first {
			done = done.Clone()
			if done == nil {
				done = sets.New[string]()
			}
			done.Insert(step)
		}
		return done
	})
	return first
}

// recordRegistration tells the NodePool's registration health how a launched NodeClaim's
// node did: registered, or not in time.
func (r *Reconciler) recordRegistration(nodeClaim *karpv1.NodeClaim, registered bool) {
	if pool := nodeClaim.Labels[karpv1.LabelNodePool]; r.RegistrationHealth != nil && pool != "" {
		r.RegistrationHealth.Record(pool, registered)
	}
}
