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

package state_test

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

func pod(name, node string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: phase}}
}

func TestRead(t *testing.T) {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent"}}},
		}},
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(
		ds,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: map[string]string{"tier": "data"}}},
		&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}},
		&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: "block.csi.example.com", NodeID: "node-a", Allocatable: &storagev1.VolumeNodeResources{Count: new(int32(2))}}}}},
		pod("running", "node-a", corev1.PodRunning), pod("done", "node-a", corev1.PodSucceeded), pod("pending", "", corev1.PodPending),
	).Build()

	cluster, err := state.Read(t.Context(), kube)
	if err != nil {
		t.Fatal(err)
	}
	if len(cluster.NodePools) != 1 || len(cluster.Nodes) != 1 || len(cluster.Pods) != 3 {
		t.Errorf("read %d NodePools, %d nodes, %d pods; want 1, 1, 3", len(cluster.NodePools), len(cluster.Nodes), len(cluster.Pods))
	}
	if len(cluster.DaemonSetPods) != 1 || cluster.DaemonSetPods[0].Labels["app"] != "agent" || cluster.DaemonSetPods[0].Spec.Containers[0].Name != "agent" {
		t.Errorf("DaemonSet pods = %v, want the agent's template", cluster.DaemonSetPods)
	}
	if cluster.NamespaceLabels["data"]["tier"] != "data" {
		t.Errorf("namespace labels = %v", cluster.NamespaceLabels)
	}
	if csiNode := cluster.CSINodes["node-a"]; csiNode == nil || len(csiNode.Spec.Drivers) != 1 {
		t.Errorf("CSINodes = %v, want node-a's", cluster.CSINodes)
	}
	bound := cluster.BoundPods()
	var names []string
	for _, p := range bound["node-a"] {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"running"}) || len(bound) != 1 {
		t.Errorf("bound pods = %v, want only the running pod on node-a", bound)
	}
}

// A DaemonSet's overhead is its newest live pod's spec once it has one: admission may have
// given the pod requests its template lacks (a LimitRange's defaults here).
func TestDaemonSetPodAsObserved(t *testing.T) {
	affinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}},
	}}}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system", UID: "ds-uid"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Affinity: affinity, Containers: []corev1.Container{{Name: "agent"}}},
		}},
	}
	owned := func(name string, created int64, cpu string, mutate func(*corev1.Pod)) *corev1.Pod {
		p := pod(name, "node-"+name, corev1.PodRunning)
		p.Namespace, p.CreationTimestamp = "kube-system", metav1.Unix(created, 0)
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}
		p.Spec.Containers = []corev1.Container{{Name: "agent", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}
		// The DaemonSet controller pins each pod to its node.
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{p.Spec.NodeName}}}}},
		}}}
		if mutate != nil {
			mutate(p)
		}
		return p
	}
	finished := func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }
	for _, tc := range []struct {
		name          string
		templateLimit string
		pods          []*corev1.Pod
		wantCPU       string
	}{
		{name: "no pod yet: the template", wantCPU: "0"},
		{name: "no pod yet: the template, its limits as requests as the API server defaults them", templateLimit: "500m", wantCPU: "500m"},
		{name: "the newest live pod", pods: []*corev1.Pod{owned("old", 1, "1", nil), owned("new", 2, "2", nil), owned("gone", 3, "3", finished)}, wantCPU: "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			daemonSet := ds.DeepCopy()
			if tc.templateLimit != "" {
				daemonSet.Spec.Template.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(tc.templateLimit)}
			}
			objects := []client.Object{daemonSet}
			for _, p := range tc.pods {
				objects = append(objects, p)
			}
			cluster, err := state.Read(t.Context(), fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).Build())
			if err != nil {
				t.Fatal(err)
			}
			got := cluster.DaemonSetPods[0]
			cpu := got.Spec.Containers[0].Resources.Requests.Cpu()
			if cpu.Cmp(resource.MustParse(tc.wantCPU)) != 0 {
				t.Errorf("cpu request %s, want %s", cpu, tc.wantCPU)
			}
			if got.Name != "agent" || got.Spec.NodeName != "" || !equality.Semantic.DeepEqual(got.Spec.Affinity, affinity) || metav1.GetControllerOf(got).UID != ds.UID {
				t.Errorf("want the DaemonSet's name, owner and node affinity, and no node: %+v", got)
			}
		})
	}
}
