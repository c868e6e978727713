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

package state

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

func claim(name, pool string, capacity, requests corev1.ResourceList, deleting bool) *karpv1.NodeClaim {
	c := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.LabelNodePool: pool}},
		Spec:       karpv1.NodeClaimSpec{Resources: karpv1.ResourceRequirements{Requests: requests}},
		Status:     karpv1.NodeClaimStatus{Capacity: capacity, Allocatable: capacity},
	}
	if deleting {
		now := metav1.Now()
		c.DeletionTimestamp = &now
	}
	return c
}

func cpu(q string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
}

func TestLimitsLeft(t *testing.T) {
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	claims := []*karpv1.NodeClaim{
		claim("launched", "a", cpu("4"), cpu("1"), false),    // counts its capacity
		claim("launching", "a", nil, cpu("2"), false),        // counts what it was created for
		claim("leaving", "a", cpu("8"), cpu("8"), true),      // being deleted: not counted
		claim("elsewhere", "b", cpu("16"), cpu("16"), false), // another pool's
	}
	if left := LimitsLeft(np, claims, nil); left != nil {
		t.Errorf("a NodePool without limits has %v left, want nil", left)
	}
	np.Spec.Limits = karpv1.Limits(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10")})
	left := LimitsLeft(np, claims, nil)
	if got := left.Cpu(); got.Cmp(resource.MustParse("4")) != 0 {
		t.Errorf("cpu left = %s, want 4 (10 - 4 launched - 2 launching)", got)
	}
	if _, ok := left[corev1.ResourceMemory]; ok {
		t.Errorf("an unlimited resource is counted: %v", left)
	}
	if q := corev1.ResourceList(np.Spec.Limits)[corev1.ResourceCPU]; q.Cmp(resource.MustParse("10")) != 0 {
		t.Error("the NodePool's limits were changed")
	}
	np.Spec.Limits = karpv1.Limits(corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("3")})
	if got := LimitsLeft(np, claims, nil)[karpv1.ResourceNodes]; got.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("nodes left = %s, want 1 (3 - the launched and the launching NodeClaim)", &got)
	}
}

// TestHeldBeforeLaunch: a NodeClaim not launched yet holds what the largest type its
// requirements allow would bring, as the run that opened it charged; without its NodePool's
// types, what it was created for.
func TestHeldBeforeLaunch(t *testing.T) {
	flavor := func(name, cpus string) *cloudprovider.InstanceType {
		return &cloudprovider.InstanceType{Name: name, Labels: map[string]string{corev1.LabelInstanceTypeStable: name}, Capacity: cpu(cpus)}
	}
	types := []*cloudprovider.InstanceType{flavor("small", "2"), flavor("medium", "4"), flavor("large", "16")}
	launching := claim("launching", "a", nil, cpu("1"), false)
	launching.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{
		{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"small", "medium"}},
	}
	for _, tc := range []struct {
		name  string
		claim *karpv1.NodeClaim
		types []*cloudprovider.InstanceType
		want  string
	}{
		{"the largest type allowed", launching, types, "4"},
		{"no type known", launching, nil, "1"},
		{"none of the types allowed", launching, types[2:], "1"},
		{"launched", claim("launched", "a", cpu("8"), cpu("1"), false), types, "8"},
	} {
		held := Held(tc.claim, tc.types)
		if got := held.Cpu(); got.Cmp(resource.MustParse(tc.want)) != 0 {
			t.Errorf("%s: holds cpu %s, want %s", tc.name, got, tc.want)
		}
		if got := held[karpv1.ResourceNodes]; got.Cmp(resource.MustParse("1")) != 0 {
			t.Errorf("%s: holds %s nodes, want 1", tc.name, &got)
		}
	}
}

func TestSchedulingTaints(t *testing.T) {
	startup := corev1.Taint{Key: "example.com/starting", Effect: corev1.TaintEffectNoSchedule}
	dedicated := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	node := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{startup, dedicated, karpv1.EphemeralTaints[0]}}}
	nodeClaim := claim("c", "a", nil, nil, false)
	nodeClaim.Spec.StartupTaints = []corev1.Taint{startup}
	for _, tc := range []struct {
		name      string
		nodeClaim *karpv1.NodeClaim
		labels    map[string]string
		want      int
	}{
		{"a node Karpenter does not manage keeps every taint", nil, nil, 3},
		{"an initialized node keeps every taint", nodeClaim, map[string]string{karpv1.LabelInitialized: "true"}, 3},
		{"a node still starting loses its startup and ephemeral taints", nodeClaim, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := node.DeepCopy()
			n.Labels = tc.labels
			if got := SchedulingTaints(n, tc.nodeClaim); len(got) != tc.want || (tc.want == 1 && got[0].Key != dedicated.Key) {
				t.Errorf("taints = %v, want %d of them", got, tc.want)
			}
		})
	}
	if len(node.Spec.Taints) != 3 {
		t.Error("the node's taints were changed")
	}
}

// TestRequestsCountPods: a node's bound pods take its pods capacity, as the scheduler charges
// each pod it places one; without it a node of 110 small pods looked empty (the benchmarks'
// allocatable check found consolidation moving 110 pods onto a node holding 6).
func TestRequestsCountPods(t *testing.T) {
	pods := []*corev1.Pod{{}, {}, {}}
	for _, pod := range pods {
		pod.Spec.Containers = []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: cpu("100m")}}}
	}
	got := Requests(pods)
	if got.Pods().Value() != 3 || got.Cpu().MilliValue() != 300 {
		t.Errorf("requests of three pods = %v, want 3 pods and 300m CPU", got)
	}
	if _, ok := Requests(nil)[corev1.ResourcePods]; ok {
		t.Error("no pods request no pods")
	}
}
