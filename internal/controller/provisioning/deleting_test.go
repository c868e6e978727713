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

package provisioning

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// TestDeletingNodeLaunchesOnceForItsPods: a NodeClaim holding six pods that a budget lets go
// one at a time is deleted. Before, provisioning saw nothing until the first pod was evicted
// and pending, launched a node for it alone, and so on: six NodeClaims in sequence. Now the
// first pass after the deletion opens one NodeClaim sized for all six, and the passes after
// each eviction fit the pending pod on it and open none.
func TestDeletingNodeLaunchesOnceForItsPods(t *testing.T) {
	now := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	nodeClass.Status.Subnets = []kcv1.Subnet{{ID: "subnet-a", Name: "karpenter-subnet-a", Zone: emulator.ZoneA}}
	instanceTypes := workload.CatalogInstanceTypes(nodeClass)
	nodePool := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a"}}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
		}}},
		Status: karpv1.NodePoolStatus{Conditions: []metav1.Condition{{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue}}},
	}
	oldNode := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "old", Labels: map[string]string{
			karpv1.LabelNodePool: "default", karpv1.LabelInitialized: "true", corev1.LabelHostname: "old", corev1.LabelTopologyZone: emulator.ZoneA}},
		Spec:   corev1.NodeSpec{ProviderID: "kakaocloud:///old", Taints: []corev1.Taint{karpv1.DisruptedNoScheduleTaint}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110")}},
	}
	oldClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "old", Labels: oldNode.Labels, DeletionTimestamp: new(metav1.NewTime(now))},
		Status:     karpv1.NodeClaimStatus{ProviderID: oldNode.Spec.ProviderID, NodeName: oldNode.Name},
	}
	web := func(name, node string) *corev1.Pod {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name), Labels: map[string]string{"app": "web"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", Controller: new(true)}}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
		}
		if node == "" {
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		}
		return pod
	}
	one := intstr.FromInt32(1)
	cluster := &state.Cluster{
		NodePools: []*karpv1.NodePool{nodePool}, Nodes: []*corev1.Node{oldNode}, NodeClaims: []*karpv1.NodeClaim{oldClaim},
		PDBs: []*policyv1.PodDisruptionBudget{{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec:   policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}}},
	}
	for i := range 6 {
		cluster.Pods = append(cluster.Pods, web(fmt.Sprintf("web-%d", i), oldNode.Name))
	}
	pass := func() *simulation.Results {
		pools := simulation.NodePools(t.Context(), cluster, func(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
			return instanceTypes, nil
		})
		return simulation.Schedule(simulation.ClusterInput(cluster, simulation.PodsToPlace(cluster, now), pools))
	}

	first := pass()
	if len(first.NewNodeClaims) != 1 || len(first.NewNodeClaims[0].Pods) != 6 {
		var sizes []int
		for _, n := range first.NewNodeClaims {
			sizes = append(sizes, len(n.Pods))
		}
		t.Fatalf("at the deletion: NodeClaims holding %v pods, want one holding all 6 (before, none: the pods got a node one eviction at a time)", sizes)
	}
	replacement := first.NewNodeClaims[0].ToNodeClaim()
	replacement.Name = "replacement"
	cluster.NodeClaims = append(cluster.NodeClaims, replacement)

	// The budget lets the pods go one at a time; each comes back pending as a new pod.
	for i := range 6 {
		cluster.Pods[i] = web(fmt.Sprintf("web-%d-again", i), "")
		res := pass()
		if len(res.NewNodeClaims) != 0 || len(res.PodErrors) != 0 {
			t.Fatalf("after eviction %d: %d new NodeClaims, pod errors %v; want none: the pods fit the NodeClaim in flight opened for them", i+1, len(res.NewNodeClaims), res.PodErrors)
		}
		got := 0
		for id, placed := range res.ExistingPlacements {
			if id.Key() == destination.NodeClaimNamed("replacement") {
				got = len(placed)
			}
		}
		if got != 6 {
			t.Fatalf("after eviction %d: %d pods counted on the NodeClaim in flight, want 6", i+1, got)
		}
	}
}
