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

package nodeclass

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodeclass"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pretty"
)

// Finalizer keeps a KCNodeClass until no NodePool or NodeClaim refers to it.
const Finalizer = kcv1.Group + "/termination"

// DefaultResyncPeriod is how often a node class is re-read from KakaoCloud when nothing
// changes, so that control-plane upgrades, deprecations and image changes show up.
const DefaultResyncPeriod = time.Minute

// Reconciler reconciles KCNodeClasses.
type Reconciler struct {
	Client   client.Client
	Catalog  *catalog.Catalog
	Images   nodeclass.ImageGetter
	Recorder events.EventRecorder
	// ResyncPeriod overrides DefaultResyncPeriod.
	ResyncPeriod time.Duration
}

// +kubebuilder:rbac:groups=karpenter.kakaocloud.com,resources=kcnodeclasses,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=karpenter.kakaocloud.com,resources=kcnodeclasses/status;kcnodeclasses/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools;nodeclaims,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch

// Reconcile brings one KCNodeClass's status and finalizer up to date.
func (r *Reconciler) Reconcile(ctx context.Context, nodeClass *kcv1.KCNodeClass) (reconcile.Result, error) {
	if !nodeClass.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, nodeClass)
	}
	if err := r.ensureFinalizerAndHash(ctx, nodeClass); err != nil {
		return reconcile.Result{}, err
	}

	obs := r.reader().Observe(ctx, nodeClass)
	stored := nodeClass.DeepCopy()
	decided := nodeclass.Evaluate(nodeClass, obs)
	nodeClass.Status = decided.Status
	r.announce(nodeClass, decided.TurnedOn)
	recordMetrics(nodeClass.Name, decided)
	if !equality.Semantic.DeepEqual(stored.Status, nodeClass.Status) {
		if err := r.Client.Status().Patch(ctx, nodeClass, client.MergeFrom(stored)); err != nil {
			return reconcile.Result{}, fmt.Errorf("patching the status of KCNodeClass %s: %w", nodeClass.Name, err)
		}
	}
	if r.ResyncPeriod > 0 {
		return reconcile.Result{RequeueAfter: r.ResyncPeriod}, nil
	}
	return reconcile.Result{RequeueAfter: DefaultResyncPeriod}, nil
}

// reader reads what a node class's status depends on, through the reconciler's clients.
func (r *Reconciler) reader() nodeclass.Reader {
	return nodeclass.Reader{Client: r.Client, Catalog: r.Catalog, Images: r.Images}
}

// ensureFinalizerAndHash adds the finalizer and keeps the static hash annotation current.
func (r *Reconciler) ensureFinalizerAndHash(ctx context.Context, nodeClass *kcv1.KCNodeClass) error {
	stored := nodeClass.DeepCopy()
	controllerutil.AddFinalizer(nodeClass, Finalizer)
	metav1.SetMetaDataAnnotation(&nodeClass.ObjectMeta, kcv1.AnnotationNodeClassHash, nodeClass.StaticHash())
	metav1.SetMetaDataAnnotation(&nodeClass.ObjectMeta, kcv1.AnnotationNodeClassHashVersion, kcv1.NodeClassHashVersion)
	if equality.Semantic.DeepEqual(stored.ObjectMeta, nodeClass.ObjectMeta) {
		return nil
	}
	if err := r.Client.Patch(ctx, nodeClass, client.MergeFrom(stored)); err != nil {
		return fmt.Errorf("adding the finalizer and hash to KCNodeClass %s: %w", nodeClass.Name, err)
	}
	return nil
}

// announce publishes an event for each condition users must act on that turned on.
func (r *Reconciler) announce(nodeClass *kcv1.KCNodeClass, turnedOn []nodeclass.TurnedOn) {
	for _, on := range turnedOn {
		conditionTurnedOn(r.Recorder, nodeClass, on.Reason, on.Message)
	}
}

// finalize removes the finalizer once nothing refers to the node class, and says what it
// waits for until then.
func (r *Reconciler) finalize(ctx context.Context, nodeClass *kcv1.KCNodeClass) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(nodeClass, Finalizer) {
		return reconcile.Result{}, nil
	}
	users, err := r.users(ctx, nodeClass.Name)
	if err != nil {
		return reconcile.Result{}, err
	}
	if len(users) > 0 {
		msg := fmt.Sprintf("waiting for %s to be deleted or to stop referring to this KCNodeClass", pretty.Slice(users, shownUsers))
		// Every NodeClaim that goes reconciles the node class again: a debug line, not one per
		// NodeClaim at info; the event says what it waits for.
		log.FromContext(ctx).V(1).Info("deletion of KCNodeClass is waiting", "users", len(users), "first", users[0])
		waitingOnReferences(r.Recorder, nodeClass, msg)
		return reconcile.Result{RequeueAfter: 10 * time.Second}, nil // the watches usually come first
	}
	stored := nodeClass.DeepCopy()
	controllerutil.RemoveFinalizer(nodeClass, Finalizer)
	deleteMetrics(nodeClass.Name)
	if err := r.Client.Patch(ctx, nodeClass, client.MergeFrom(stored)); client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, fmt.Errorf("removing the finalizer of KCNodeClass %s: %w", nodeClass.Name, err)
	}
	return reconcile.Result{}, nil
}

// shownUsers is how many of the objects a deletion waits for its event names.
const shownUsers = 5

// users lists the NodePools and NodeClaims that refer to a node class.
func (r *Reconciler) users(ctx context.Context, name string) ([]string, error) {
	var users []string
	pools := &karpv1.NodePoolList{}
	if err := r.Client.List(ctx, pools, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing NodePools: %w", err)
	}
	for _, np := range pools.Items {
		if nodeclass.RefersTo(np.Spec.Template.Spec.NodeClassRef, name) {
			users = append(users, "NodePool/"+np.Name)
		}
	}
	claims := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, claims, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	for _, c := range claims.Items {
		if nodeclass.RefersTo(c.Spec.NodeClassRef, name) {
			users = append(users, "NodeClaim/"+c.Name)
		}
	}
	return users, nil
}

// SetupWithManager registers the reconciler. A deleting node class is re-checked whenever a
// NodePool or NodeClaim that referred to it changes.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Images == nil {
		return errors.New("nodeclass reconciler needs an ImageGetter")
	}
	byRef := func(name string) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: name}}}
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("nodeclass").
		For(&kcv1.KCNodeClass{}).
		Watches(&karpv1.NodePool{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if ref := o.(*karpv1.NodePool).Spec.Template.Spec.NodeClassRef; ref != nil {
				return byRef(ref.Name)
			}
			return nil
		})).
		Watches(&karpv1.NodeClaim{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if ref := o.(*karpv1.NodeClaim).Spec.NodeClassRef; ref != nil {
				return byRef(ref.Name)
			}
			return nil
		})).
		Complete(reconcile.AsReconciler(r.Client, r)); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}
