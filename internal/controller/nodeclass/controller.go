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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
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
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pretty"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/version"
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
	Images   ImageGetter
	Recorder events.EventRecorder
	// ResyncPeriod overrides DefaultResyncPeriod.
	ResyncPeriod time.Duration
}

// ImageGetter reads a pinned image.
type ImageGetter interface {
	GetImage(ctx context.Context, id string) (kakaocloud.Image, error)
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

	obs := r.observe(ctx, nodeClass)
	stored := nodeClass.DeepCopy()
	nodeClass.Status = computeStatus(nodeClass, obs)
	r.announce(stored, nodeClass)
	recordMetrics(nodeClass)
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

// Evaluate returns the status the controller would give nodeClass now, from what KakaoCloud
// says, without writing anything: the KCNodeClass as a preflight check sees it.
func (r *Reconciler) Evaluate(ctx context.Context, nodeClass *kcv1.KCNodeClass) kcv1.KCNodeClassStatus {
	return computeStatus(nodeClass, r.observe(ctx, nodeClass))
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

// observe reads everything the status depends on. A failed cluster read falls back to the
// last cluster read, so that a short Kubernetes Engine outage does not stop node creation.
func (r *Reconciler) observe(ctx context.Context, nodeClass *kcv1.KCNodeClass) observation {
	var obs observation
	if cluster, err := r.Catalog.Cluster(ctx); err == nil {
		obs.cluster = &cluster
	} else if cached, ok := r.Catalog.CachedCluster(); ok {
		obs.cluster = &cached
	} else {
		obs.clusterErr = err
	}
	obs.versions, obs.versionsErr = r.Catalog.Versions(ctx)
	if nodeClass.Spec.ImageID != "" {
		image, err := r.Images.GetImage(ctx, nodeClass.Spec.ImageID)
		if err == nil {
			obs.pinnedImage = &image
		}
		obs.pinnedImageErr = err
	} else {
		obs.images, obs.imagesErr = r.Catalog.NodeImages(ctx, nodeClass.Spec.Bootstrap.KubernetesVersion)
	}
	obs.subnets, obs.missingSubnets, obs.subnetsErr = r.resolveSubnets(ctx, nodeClass.Spec.SubnetSelectorTerms)
	obs.securityGroups, obs.missingSecurityGroups, obs.securityGroupsErr = r.resolveSecurityGroups(ctx, nodeClass.Spec.SecurityGroupSelectorTerms)
	obs.signingKeys, obs.nodeVersions, obs.nodeClaimsErr = r.countNodeClaims(ctx, nodeClass)
	return obs
}

// countNodeClaims counts the node class's NodeClaims by the signing key their VM's marker
// names (the label the cloud provider sets at launch; NodeClaims not launched yet have none)
// and by the Kubernetes minor version of their node (nodeClaimVersion).
func (r *Reconciler) countNodeClaims(ctx context.Context, nodeClass *kcv1.KCNodeClass) (keys, versions map[string]int32, err error) {
	// Every change to a NodeClaim reconciles its node class, and every pass reads them all:
	// without copies, as nothing here writes them.
	claims := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, claims, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	nodes := &corev1.NodeList{}
	if err := r.Client.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing nodes: %w", err)
	}
	byProviderID := make(map[string]*corev1.Node, len(nodes.Items))
	for i := range nodes.Items {
		if id := nodes.Items[i].Spec.ProviderID; id != "" {
			byProviderID[id] = &nodes.Items[i]
		}
	}
	keys, versions = map[string]int32{}, map[string]int32{}
	for i := range claims.Items {
		nodeClaim := &claims.Items[i]
		if !refersTo(nodeClaim.Spec.NodeClassRef, nodeClass.Name) {
			continue
		}
		if key := nodeClaim.Labels[kcv1.LabelSigningKey]; key != "" {
			keys[key]++
		}
		var node *corev1.Node
		if id := nodeClaim.Status.ProviderID; id != "" {
			node = byProviderID[id]
		}
		versions[nodeClaimVersion(nodeClaim, node, nodeClass.Spec.Bootstrap.KubernetesVersion)]++
	}
	return keys, versions, nil
}

// nodeClaimVersion is the Kubernetes minor version a NodeClaim's node is on: its kubelet's
// once the node has registered (whether Ready or not), before that the version its VM was
// launched with, and for a NodeClaim not launched yet the node class's, which its launch will
// use.
func nodeClaimVersion(nodeClaim *karpv1.NodeClaim, node *corev1.Node, nodeClassVersion string) string {
	if node != nil {
		if v, err := version.Minor(node.Status.NodeInfo.KubeletVersion); err == nil {
			return v.String()
		}
	}
	if v := nodeClaim.Annotations[kcv1.AnnotationKubernetesVersion]; v != "" {
		return v
	}
	return nodeClassVersion
}

func (r *Reconciler) resolveSubnets(ctx context.Context, terms []kcv1.SubnetSelectorTerm) ([]kcv1.Subnet, []string, error) {
	return resolve(ctx, terms, r.Catalog.SubnetsByID, r.Catalog.SubnetsByName,
		func(s kakaocloud.Subnet) (string, kcv1.Subnet) {
			return s.ID, kcv1.Subnet{ID: s.ID, Name: s.Name, Zone: s.AvailabilityZone, CIDRBlock: s.CIDRBlock}
		})
}

func (r *Reconciler) resolveSecurityGroups(ctx context.Context, terms []kcv1.SecurityGroupSelectorTerm) ([]kcv1.SecurityGroup, []string, error) {
	return resolve(ctx, terms, r.Catalog.SecurityGroupsByID, r.Catalog.SecurityGroupsByName,
		func(g kakaocloud.SecurityGroup) (string, kcv1.SecurityGroup) {
			return g.ID, kcv1.SecurityGroup{ID: g.ID, Name: g.Name}
		})
}

// selectorTerm is a subnet or security group selector term: an id, or else a name.
type selectorTerm interface {
	kcv1.SubnetSelectorTerm | kcv1.SecurityGroupSelectorTerm
}

// resolve looks every term up, by id or else by name, and returns what they select (each
// once, in the order selected, as status) and the terms that select nothing.
func resolve[Term selectorTerm, T, S any](ctx context.Context, terms []Term, byID, byName func(context.Context, string) ([]T, error),
	status func(T) (string, S)) ([]S, []string, error) {
	var found []S
	var missing []string
	seen := map[string]bool{}
	for _, term := range terms {
		// Both term types are an id and a name; the conversion says so to the compiler.
		sel := kcv1.SubnetSelectorTerm(term)
		lookup, key, what := byName, sel.Name, "name "+sel.Name
		if sel.ID != "" {
			lookup, key, what = byID, sel.ID, "id "+sel.ID
		}
		selected, err := lookup(ctx, key)
		if err != nil {
			return nil, nil, err
		}
		if len(selected) == 0 {
			missing = append(missing, what)
		}
		for _, item := range selected {
			if id, s := status(item); !seen[id] {
				seen[id] = true
				found = append(found, s)
			}
		}
	}
	return found, missing, nil
}

// announce emits an event when a condition users must act on turns on.
func (r *Reconciler) announce(before, after *kcv1.KCNodeClass) {
	turnedOn := func(t, reason string) (string, bool) {
		now := meta.FindStatusCondition(after.Status.Conditions, t)
		if now == nil || now.Reason != reason {
			return "", false
		}
		was := meta.FindStatusCondition(before.Status.Conditions, t)
		return now.Message, was == nil || was.Reason != reason || was.Status != now.Status
	}
	for _, e := range []struct{ condition, reason string }{
		{kcv1.ConditionTypeKubernetesVersionDeprecated, kcv1.ReasonWorkerVersionNotOffered},
		{kcv1.ConditionTypeImagesReady, kcv1.ReasonImagesRetained},
		{kcv1.ConditionTypeKubernetesVersionReady, kcv1.ReasonVersionSkewUnsupported},
		{kcv1.ConditionTypeImagesReady, kcv1.ReasonImagesNotFound},
		{kcv1.ConditionTypeSubnetsReady, kcv1.ReasonSubnetsNotFound},
		{kcv1.ConditionTypeSecurityGroupsReady, kcv1.ReasonSecurityGroupsNotFound},
	} {
		if msg, ok := turnedOn(e.condition, e.reason); ok {
			conditionTurnedOn(r.Recorder, after, e.reason, msg)
		}
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
		if refersTo(np.Spec.Template.Spec.NodeClassRef, name) {
			users = append(users, "NodePool/"+np.Name)
		}
	}
	claims := &karpv1.NodeClaimList{}
	if err := r.Client.List(ctx, claims, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	for _, c := range claims.Items {
		if refersTo(c.Spec.NodeClassRef, name) {
			users = append(users, "NodeClaim/"+c.Name)
		}
	}
	return users, nil
}

// refersTo reports whether a NodePool's or NodeClaim's node class reference names the
// KCNodeClass name.
func refersTo(ref *karpv1.NodeClassReference, name string) bool {
	return ref != nil && ref.Name == name && ref.Kind == "KCNodeClass"
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
