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

package disruption

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodepool"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/result"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/uidcache"
)

// Reasons of the Consolidatable condition.
const (
	ReasonConsolidatable   = "Consolidatable"
	ReasonConsolidateAfter = "ConsolidateAfterNotElapsed"
)

// DriftRecheck is how often a NodeClaim is compared with its KCNodeClass and VM again when
// nothing it watches changed.
const DriftRecheck = 5 * time.Minute

// Reconciler keeps two NodeClaim conditions current: Drifted (with the reason: the
// NodePool's template or requirements, or the KCNodeClass and VM as the cloud provider sees
// them) and Consolidatable (True once consolidateAfter has passed since the last pod event).
type Reconciler struct {
	Client        client.Client
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	// Clock tells the time: the operator's one clock, which NewControllers gives every controller.
	Clock clock.PassiveClock

	// cloudDrift remembers the cloud provider's last answer per NodeClaim, reused while the
	// KCNodeClass is unchanged and the answer is younger than DriftRecheck.
	cloudDrift uidcache.Cache[cloudDriftAnswer]
	// written is the resourceVersion each NodeClaim's last pass wrote it at: a pass on an older
	// copy would only write the same conditions again, refused with Conflict, and is tried
	// again shortly instead (nodeClaimChanged may let the write's own event through or not).
	written uidcache.Written
}

type cloudDriftAnswer struct {
	nodeClassVersion string
	at               time.Time
	drift            cloudprovider.Drift
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=karpenter.kakaocloud.com,resources=kcnodeclasses,verbs=get;list;watch

// Reconcile brings one NodeClaim's Drifted and Consolidatable conditions up to date.
func (r *Reconciler) Reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	return r.written.Pass(nodeClaim, r.Clock.Now, func() (reconcile.Result, error) { return r.reconcile(ctx, nodeClaim) })
}

func (r *Reconciler) reconcile(ctx context.Context, nodeClaim *karpv1.NodeClaim) (reconcile.Result, error) {
	if !nodeClaim.DeletionTimestamp.IsZero() {
		r.forget(nodeClaim.UID)
		return reconcile.Result{}, nil
	}
	np := &karpv1.NodePool{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: nodeClaim.Labels[karpv1.LabelNodePool]}, np); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("getting NodePool %s: %w", nodeClaim.Labels[karpv1.LabelNodePool], err)
	}

	stored := nodeClaim.DeepCopy()
	next, err := r.drift(ctx, nodeClaim, np)
	if err != nil {
		// The Drifted condition stays as it was; Consolidatable is still written.
		log.FromContext(ctx).Error(err, "checking drift with the cloud provider; trying again in a minute")
		next = result.Min(next, reconcile.Result{RequeueAfter: time.Minute})
	}
	next = result.Min(next, r.consolidatable(nodeClaim, np))
	if err := nodeclaimutil.PatchStatus(ctx, r.Client, stored, nodeClaim); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return result.RequeueOnConflict(reconcile.Result{}, fmt.Errorf("patching the status of NodeClaim %s: %w", nodeClaim.Name, err))
	}
	r.announceDrift(ctx, stored, nodeClaim)
	return next, nil
}

// drift sets or clears the Drifted condition of a launched NodeClaim.
func (r *Reconciler) drift(ctx context.Context, nodeClaim *karpv1.NodeClaim, np *karpv1.NodePool) (reconcile.Result, error) {
	if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched) {
		return reconcile.Result{}, nil
	}
	requeue := reconcile.Result{RequeueAfter: DriftRecheck}
	reason, message := nodepool.StaticDrift(nodeClaim, np)
	if reason == "" {
		nodeClass := &kcv1.KCNodeClass{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: nodeClaim.Spec.NodeClassRef.Name}, nodeClass); err != nil {
			if !apierrors.IsNotFound(err) {
				return requeue, fmt.Errorf("getting KCNodeClass %s: %w", nodeClaim.Spec.NodeClassRef.Name, err)
			}
			nodeClass = nil
		}
		cloud, err := r.cloudDriftOf(ctx, nodeClaim, nodeClass)
		if err != nil {
			return requeue, err // keep the condition as it is
		}
		reason, message = cloud.Reason, cloud.Message
	}
	if reason == "" {
		meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted)
		return requeue, nil
	}
	conditions.Set(&nodeClaim.Status.Conditions, nodeClaim.Generation, metav1.Condition{
		Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: string(reason), Message: message,
	})
	return requeue, nil
}

// cloudDriftOf asks the cloud provider whether the VM drifted from its KCNodeClass, reusing a
// recent answer while the KCNodeClass has not changed.
func (r *Reconciler) cloudDriftOf(ctx context.Context, nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) (cloudprovider.Drift, error) {
	if nodeClaim.Status.ProviderID == "" {
		return cloudprovider.Drift{}, nil
	}
	version := ""
	if nodeClass != nil {
		version = nodeClass.ResourceVersion
	}
	now := r.Clock.Now()
	prev, ok := r.cloudDrift.Get(nodeClaim.UID, now)
	if ok && prev.nodeClassVersion == version && now.Sub(prev.at) < DriftRecheck {
		return prev.drift, nil
	}
	drift, err := r.CloudProvider.IsDrifted(ctx, nodeClaim)
	if err != nil {
		return cloudprovider.Drift{}, fmt.Errorf("asking the cloud provider whether NodeClaim %s drifted: %w", nodeClaim.Name, err)
	}
	r.cloudDrift.Set(nodeClaim.UID, cloudDriftAnswer{nodeClassVersion: version, at: now, drift: drift}, now)
	return drift, nil
}

func (r *Reconciler) forget(uid types.UID) {
	r.cloudDrift.Delete(uid)
}

// announceDrift logs and publishes a change of the Drifted condition.
func (r *Reconciler) announceDrift(ctx context.Context, before, after *karpv1.NodeClaim) {
	was := meta.FindStatusCondition(before.Status.Conditions, karpv1.ConditionTypeDrifted)
	now := meta.FindStatusCondition(after.Status.Conditions, karpv1.ConditionTypeDrifted)
	switch {
	case now != nil && (was == nil || was.Reason != now.Reason || was.Status != now.Status):
		log.FromContext(ctx).Info("marked nodeclaim as drifted", "NodeClaim", klog.KRef("", after.Name),
			"reason", now.Reason, "message", now.Message)
		if r.Recorder != nil {
			driftDetected(r.Recorder, after, now.Reason, now.Message)
		}
	case now == nil && was != nil:
		log.FromContext(ctx).Info("nodeclaim is no longer drifted", "NodeClaim", klog.KRef("", after.Name), "was", was.Reason)
	}
}

// consolidatable sets the Consolidatable condition of an initialized NodeClaim: True once
// consolidateAfter has passed since the last pod was bound to or removed from its node (or,
// when none has been, since it initialized), False until then; none when the NodePool does not
// consolidate.
func (r *Reconciler) consolidatable(nodeClaim *karpv1.NodeClaim, np *karpv1.NodePool) reconcile.Result {
	at, ok := nodeclaimutil.ConsolidateAfterEnds(nodeClaim, np)
	if !ok {
		meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, karpv1.ConditionTypeConsolidatable)
		return reconcile.Result{}
	}
	after := np.Spec.Disruption.ConsolidateAfter.Duration
	set := func(s metav1.ConditionStatus, reason, message string) {
		conditions.Set(&nodeClaim.Status.Conditions, nodeClaim.Generation, metav1.Condition{
			Type: karpv1.ConditionTypeConsolidatable, Status: s, Reason: reason, Message: message,
		})
	}
	if left := at.Sub(r.Clock.Now()); left > 0 {
		set(metav1.ConditionFalse, ReasonConsolidateAfter, fmt.Sprintf("consolidateAfter (%s) has not passed since the last pod event: consolidatable at %s", *after, at.UTC().Format(time.RFC3339)))
		return reconcile.Result{RequeueAfter: left}
	}
	set(metav1.ConditionTrue, ReasonConsolidatable, fmt.Sprintf("no pod was bound to or removed from the node for consolidateAfter (%s)", *after))
	return reconcile.Result{}
}

// nodeClaimChanged lets through the NodeClaim updates the conditions depend on: labels,
// annotations, the last pod event, and the conditions they read or write.
var nodeClaimChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, ok1 := e.ObjectOld.(*karpv1.NodeClaim)
		after, ok2 := e.ObjectNew.(*karpv1.NodeClaim)
		if !ok1 || !ok2 {
			return true
		}
		if !equality.Semantic.DeepEqual(before.Labels, after.Labels) || !equality.Semantic.DeepEqual(before.Annotations, after.Annotations) ||
			!before.Status.LastPodEventTime.Equal(&after.Status.LastPodEventTime) || before.DeletionTimestamp.IsZero() != after.DeletionTimestamp.IsZero() {
			return true
		}
		for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeInitialized, karpv1.ConditionTypeDrifted, karpv1.ConditionTypeConsolidatable} {
			b, a := meta.FindStatusCondition(before.Status.Conditions, t), meta.FindStatusCondition(after.Status.Conditions, t)
			if (a == nil) != (b == nil) || (a != nil && (a.Status != b.Status || a.Reason != b.Reason)) {
				return true
			}
		}
		return false
	},
}

// SetupWithManager registers the reconciler. A NodeClaim is reconciled again when it changes
// in a way that matters, when its NodePool changes, and when its KCNodeClass changes.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	if err := builder.ControllerManagedBy(mgr).
		Named("nodeclaim.disruption").
		For(&karpv1.NodeClaim{}, builder.WithPredicates(nodeClaimChanged)).
		Watches(&karpv1.NodePool{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return r.claims(ctx, func(nodeClaim *karpv1.NodeClaim) bool { return nodeClaim.Labels[karpv1.LabelNodePool] == o.GetName() })
		})).
		Watches(&kcv1.KCNodeClass{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return r.claims(ctx, func(nodeClaim *karpv1.NodeClaim) bool {
				return nodeClaim.Spec.NodeClassRef != nil && nodeClaim.Spec.NodeClassRef.Name == o.GetName()
			})
		})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}

func (r *Reconciler) claims(ctx context.Context, match func(*karpv1.NodeClaim) bool) []reconcile.Request {
	list := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if match(&list.Items[i]) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Name: list.Items[i].Name}})
		}
	}
	return out
}
