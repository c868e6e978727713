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

package simulation

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// TestClusterInput holds the cases of the cluster read that the kube-scheduler judge found
// departing from what the kube-scheduler sees; each failed before its fix.
func TestClusterInput(t *testing.T) {
	node := func(name string, mutate ...func(*corev1.Node)) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelTopologyZone: "kr-central-2-a"}},
			Spec: corev1.NodeSpec{ProviderID: "kakaocloud:///" + name}}
		for _, m := range mutate {
			m(n)
		}
		return n
	}
	managed := func(n *corev1.Node) { n.Labels[karpv1.LabelNodePool] = "default" }
	claimOf := func(n *corev1.Node) *karpv1.NodeClaim {
		return &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{karpv1.LabelNodePool: "default"}},
			Status: karpv1.NodeClaimStatus{ProviderID: n.Spec.ProviderID, NodeName: n.Name}}
	}
	bound := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", Controller: new(true)}}},
			Spec: corev1.PodSpec{NodeName: node}}
	}
	unschedulable := func(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}}
		for _, m := range mutate {
			m(p)
		}
		return p
	}

	unmanaged := node("ng-1")
	disrupted := node("managed-1", managed, func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{karpv1.DisruptedNoScheduleTaint} })
	deleting := node("managed-2", managed, func(n *corev1.Node) { n.DeletionTimestamp = new(metav1.Now()) })
	cordoned := node("managed-3", managed, func(n *corev1.Node) { n.Spec.Unschedulable = true })
	starting := node("managed-4", managed, func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{karpv1.UnregisteredNoExecuteTaint, {Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
			{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoSchedule}, {Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}}
	})
	startingClaim := claimOf(starting)
	startingClaim.Spec.StartupTaints = []corev1.Taint{{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoSchedule}}
	// The NodeClaim is deleted first; its termination taints the node a moment later.
	claimDeleting := node("managed-5", managed)
	deletingClaim := claimOf(claimDeleting)
	deletingClaim.DeletionTimestamp = new(metav1.Now())
	held := bound("held", "managed-2")
	held.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	guarded := bound("guarded", "managed-2")
	guarded.Labels = map[string]string{"app": "ledger"}
	naked := bound("naked", "managed-2")
	naked.OwnerReferences = nil
	daemon := bound("daemon", "managed-2")
	daemon.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", Controller: new(true)}}
	zero := intstr.FromInt32(0)
	cluster := &state.Cluster{
		Nodes:      []*corev1.Node{unmanaged, disrupted, deleting, cordoned, starting, claimDeleting},
		NodeClaims: []*karpv1.NodeClaim{claimOf(disrupted), claimOf(deleting), claimOf(cordoned), startingClaim, deletingClaim},
		Pods: []*corev1.Pod{
			bound("on-unmanaged", "ng-1"), bound("on-disrupted", "managed-1"),
			unschedulable("pending"),
			unschedulable("preempting", func(p *corev1.Pod) { p.Status.NominatedNodeName = "ng-1" }),
			bound("leaving", "managed-2"), held, guarded, daemon, naked,
			bound("leaving-too", "managed-5"),
		},
		PDBs: []*policyv1.PodDisruptionBudget{{ObjectMeta: metav1.ObjectMeta{Name: "ledger", Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ledger"}}}}},
	}
	in := ClusterInput(cluster, PodsToPlace(cluster, time.Now()), nil)
	// The pods placed may be copies (given default topology spread constraints): a pod leaving
	// a node is still not counted there.
	var copies []*corev1.Pod
	for _, pod := range in.Pods {
		copies = append(copies, pod.DeepCopy())
	}
	for _, e := range ClusterInput(cluster, copies, nil).ExistingNodes {
		if e.ID.Key() == destination.NodeNamed("managed-2") && len(e.Pods) != 4 {
			t.Errorf("the deleting node with copies placed: %d pods counted there, want the 4 that stay", len(e.Pods))
		}
	}

	byName := map[destination.Destination]ExistingNode{}
	for _, e := range in.ExistingNodes {
		byName[e.ID.Key()] = e
	}
	onNode, inFlight := destination.NodeNamed, destination.NodeClaimNamed
	for _, tc := range []struct {
		name          string
		node          destination.Destination
		present       bool
		topologyOnly  bool
		unschedulable bool
		pods          int
		why           string
	}{
		{"an unmanaged node is a destination and its pods count", onNode("ng-1"), true, false, false, 1, "provisioning ignored nodes without karpenter.sh/nodepool"},
		{"a disrupted node takes no pod, but its pods count", onNode("managed-1"), true, true, false, 1, "it was left out, its pods uncounted"},
		{"a deleting node takes no pod; the pods that stay count there, not those leaving", onNode("managed-2"), true, true, false, 4, "it was left out"},
		{"a node whose NodeClaim is deleting takes no pod", onNode("managed-5"), true, true, false, 0, "it took pods until its termination tainted it"},
		{"the NodeClaim of a node whose NodeClaim is deleting is not in flight", inFlight("managed-5"), false, false, false, 0, "it reappeared as an empty NodeClaim in flight"},
		{"a cordoned node is marked unschedulable", onNode("managed-3"), true, false, true, 0, "it took any pod"},
		{"the NodeClaim of a disrupted node is not in flight", inFlight("managed-1"), false, false, false, 0, "it reappeared as an empty NodeClaim in flight"},
		{"the NodeClaim of a deleting node is not in flight", inFlight("managed-2"), false, false, false, 0, "it reappeared as an empty NodeClaim in flight"},
	} {
		e, ok := byName[tc.node]
		if ok != tc.present || e.TopologyOnly != tc.topologyOnly || e.Unschedulable != tc.unschedulable || len(e.Pods) != tc.pods {
			t.Errorf("%s: got present=%v topologyOnly=%v unschedulable=%v pods=%d (before the fix %s)", tc.name, ok, e.TopologyOnly, e.Unschedulable, len(e.Pods), tc.why)
		}
	}
	// A node still starting is counted without the taints of its start, which go before its
	// pods run; its own taints stay.
	if got := byName[onNode("managed-4")].Taints; len(got) != 1 || got[0].Key != "dedicated" {
		t.Errorf("taints of a node still starting = %v, want only its own (dedicated): counting the others launched a second node for its pods", got)
	}
	var placing []string
	for _, pod := range in.Pods {
		placing = append(placing, pod.Name)
	}
	// A pod the kube-scheduler nominated for preemption is not provisioned for. Of a node being
	// deleted, the pods placed are those that will leave it: not one held by do-not-disrupt or
	// by a budget that never allows an eviction, not a DaemonSet's, not one no controller
	// recreates.
	if want := []string{"pending", "leaving", "leaving-too"}; !slices.Equal(placing, want) {
		t.Errorf("pods to place = %v, want %v (before, only the pending pods: the pods of a deleting node got a node only once evicted, one at a time)", placing, want)
	}
}

// TestStaticNodePoolsCauseNoNodeClaims: a static NodePool keeps its replicas; pods never
// cause its nodes, so the scheduling input leaves it out.
func TestStaticNodePoolsCauseNoNodeClaims(t *testing.T) {
	ready := []metav1.Condition{{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue}}
	dynamic := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "dynamic"}, Status: karpv1.NodePoolStatus{Conditions: ready}}
	static := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "static"}, Spec: karpv1.NodePoolSpec{Replicas: new(int64(3))}, Status: karpv1.NodePoolStatus{Conditions: ready}}
	pools := NodePools(t.Context(), &state.Cluster{NodePools: []*karpv1.NodePool{dynamic, static}},
		func(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) { return nil, nil })
	if len(pools) != 1 || pools[0].NodePool.Name != "dynamic" {
		t.Errorf("pools %v, want only the dynamic one", pools)
	}
}
