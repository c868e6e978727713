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

package status

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// condition is what the metrics read of a status condition, whichever API type holds it.
type condition struct {
	Type               string
	Status             metav1.ConditionStatus
	Reason             string
	LastTransitionTime time.Time
}

// kind is how the Reconciler reads one kind of object.
type kind[T client.Object] struct {
	// name is the kind in lower case, as metric and controller names spell it.
	name      string
	newObject func() T
	// conditions lists the object's status conditions.
	conditions func(T) []condition
	// labelKeys are the object labels each series carries, under labelNames(labelKeys).
	labelKeys []string
	families  *families
	// groupKind labels the kind's series in genericFamilies; empty for the kinds upstream does
	// not report there.
	groupKind []string
}

// Object labels the series carry: the node class and NodePool a NodeClaim or node belongs to,
// and whether a node has been initialized.
var (
	nodeClaimLabels = []string{kcv1.LabelNodeClass, karpv1.LabelNodePool}
	nodeLabels      = []string{kcv1.LabelNodeClass, karpv1.LabelNodePool, karpv1.LabelInitialized}
)

// Controller is a reconciler the operator puts on its manager.
type Controller interface {
	SetupWithManager(mgr ctrl.Manager) error
}

// NewControllers returns the status-condition metrics controllers of every kind, reading
// through kubeClient and telling the time by clk.
func NewControllers(kubeClient client.Client, clk clock.PassiveClock) []Controller {
	return []Controller{
		NewNodeClaimReconciler(kubeClient, clk),
		NewNodePoolReconciler(kubeClient, clk),
		NewNodeReconciler(kubeClient, clk),
		NewNodeClassReconciler(kubeClient, clk),
	}
}

// NewNodeClaimReconciler keeps the operator_nodeclaim_* families, and the generic ones with
// kind NodeClaim.
func NewNodeClaimReconciler(kubeClient client.Client, clk clock.PassiveClock) *Reconciler[*karpv1.NodeClaim] {
	return &Reconciler[*karpv1.NodeClaim]{Client: kubeClient, Clock: clk, kind: kind[*karpv1.NodeClaim]{
		name:      "nodeclaim",
		newObject: func() *karpv1.NodeClaim { return &karpv1.NodeClaim{} },
		conditions: func(nodeClaim *karpv1.NodeClaim) []condition {
			return withExpected(fromMeta(nodeClaim.Status.Conditions), nodeClaim.CreationTimestamp.Time,
				karpv1.ConditionTypeReady, karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized)
		},
		labelKeys: nodeClaimLabels,
		families:  nodeClaimFamilies,
		groupKind: []string{karpv1.Group, "NodeClaim"},
	}}
}

// NewNodePoolReconciler keeps the operator_nodepool_* families, and the generic ones with kind
// NodePool.
func NewNodePoolReconciler(kubeClient client.Client, clk clock.PassiveClock) *Reconciler[*karpv1.NodePool] {
	return &Reconciler[*karpv1.NodePool]{Client: kubeClient, Clock: clk, kind: kind[*karpv1.NodePool]{
		name:      "nodepool",
		newObject: func() *karpv1.NodePool { return &karpv1.NodePool{} },
		conditions: func(nodePool *karpv1.NodePool) []condition {
			// NodeRegistrationHealthy is left out, as upstream's NodePool leaves it out of the
			// conditions it expects.
			return withExpected(fromMeta(nodePool.Status.Conditions), nodePool.CreationTimestamp.Time,
				karpv1.ConditionTypeReady, karpv1.ConditionTypeValidationSucceeded, karpv1.ConditionTypeNodeClassReady)
		},
		families:  nodePoolFamilies,
		groupKind: []string{karpv1.Group, "NodePool"},
	}}
}

// NewNodeReconciler keeps the operator_node_* families of every node, Karpenter's or not.
func NewNodeReconciler(kubeClient client.Client, clk clock.PassiveClock) *Reconciler[*corev1.Node] {
	return &Reconciler[*corev1.Node]{Client: kubeClient, Clock: clk, kind: kind[*corev1.Node]{
		name:      "node",
		newObject: func() *corev1.Node { return &corev1.Node{} },
		// Only the conditions the node has: which ones a node reports is the kubelet's and
		// its plugins' business, so none is expected.
		conditions: func(node *corev1.Node) []condition { return fromNode(node.Status.Conditions) },
		labelKeys:  nodeLabels,
		families:   nodeFamilies,
	}}
}

// NewNodeClassReconciler keeps the operator_kcnodeclass_* families.
func NewNodeClassReconciler(kubeClient client.Client, clk clock.PassiveClock) *Reconciler[*kcv1.KCNodeClass] {
	return &Reconciler[*kcv1.KCNodeClass]{Client: kubeClient, Clock: clk, kind: kind[*kcv1.KCNodeClass]{
		name:      "kcnodeclass",
		newObject: func() *kcv1.KCNodeClass { return &kcv1.KCNodeClass{} },
		conditions: func(nodeClass *kcv1.KCNodeClass) []condition {
			return withExpected(fromMeta(nodeClass.Status.Conditions), nodeClass.CreationTimestamp.Time,
				kcv1.ConditionTypeReady, kcv1.ReadyDependencies...)
		},
		families: nodeClassFamilies,
	}}
}

func fromMeta(conditions []metav1.Condition) []condition {
	out := make([]condition, 0, len(conditions))
	for _, c := range conditions {
		out = append(out, condition{Type: c.Type, Status: c.Status, Reason: c.Reason, LastTransitionTime: c.LastTransitionTime.Time})
	}
	return out
}

func fromNode(conditions []corev1.NodeCondition) []condition {
	out := make([]condition, 0, len(conditions))
	for _, c := range conditions {
		out = append(out, condition{
			Type: string(c.Type), Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, LastTransitionTime: c.LastTransitionTime.Time,
		})
	}
	return out
}

// reasonAwaitingReconciliation is the reason of an expected condition the object does not
// have yet.
const reasonAwaitingReconciliation = "AwaitingReconciliation"

// withExpected adds the expected conditions (root and those it depends on) that the object does
// not have yet, as Unknown since its creation. Upstream reads its objects so, which is what
// lets the first change of such a condition, a NodeClaim's Launched becoming True say, count
// how long it took from creation.
func withExpected(conditions []condition, created time.Time, root string, dependents ...string) []condition {
	for _, t := range append([]string{root}, dependents...) {
		if find(conditions, t) == nil {
			conditions = append(conditions, condition{
				Type: t, Status: metav1.ConditionUnknown, Reason: reasonAwaitingReconciliation, LastTransitionTime: created,
			})
		}
	}
	return conditions
}

// find returns the condition of type t, nil when there is none.
func find(conditions []condition, t string) *condition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}
