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

package explain

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodepool"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

var now = time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)

const (
	zoneA = "kr-central-2-a"
	zoneB = "kr-central-2-b"
)

func readyCondition() []metav1.Condition {
	return []metav1.Condition{{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: karpv1.ConditionTypeReady, LastTransitionTime: metav1.NewTime(now)}}
}

// workers is a ready KCNodeClass on Kubernetes 1.35 over two zones.
func workers() *kcv1.KCNodeClass {
	nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "workers"}, Spec: kcv1.KCNodeClassSpec{Bootstrap: kcv1.Bootstrap{KubernetesVersion: "1.35"}}}
	for _, zone := range []string{zoneA, zoneB} {
		nodeClass.Status.Subnets = append(nodeClass.Status.Subnets, kcv1.Subnet{ID: "subnet-" + zone, Zone: zone})
	}
	nodeClass.Status.Conditions = readyCondition()
	return nodeClass
}

// pool is a ready NodePool of workers, stamped with its template hash.
func pool(name string, mutate func(*karpv1.NodePool)) *karpv1.NodePool {
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
		NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "workers"},
		Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a"}}},
	}}}}
	if mutate != nil {
		mutate(np)
	}
	np.Status.Conditions = readyCondition()
	return stamped(np)
}

// typeOf is the catalog's type of the family with cpus vCPUs.
func typeOf(t *testing.T, family string, cpus string) *cloudprovider.InstanceType {
	t.Helper()
	for _, it := range workload.CatalogInstanceTypes(workers()) {
		if it.Labels[kcv1.LabelInstanceFamily] == family && it.Labels[kcv1.LabelInstanceCPU] == cpus {
			return it
		}
	}
	t.Fatalf("no %s type with %s vCPUs", family, cpus)
	return nil
}

// launched is a registered NodeClaim of np on a node of type it in zone, and its node.
func launched(name string, np *karpv1.NodePool, it *cloudprovider.InstanceType, zone string) (*karpv1.NodeClaim, *corev1.Node) {
	labels := map[string]string{karpv1.LabelNodePool: np.Name, karpv1.LabelInstanceType: it.Name, karpv1.LabelTopologyZone: zone,
		karpv1.LabelCapacityType: karpv1.CapacityTypeOnDemand, corev1.LabelHostname: name, karpv1.LabelInitialized: "true", karpv1.LabelRegistered: "true"}
	maps.Copy(labels, it.Labels)
	nodeClass := workers()
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{
			kcv1.AnnotationKubernetesVersion: "1.35", kcv1.AnnotationNodeClassHash: nodeClass.StaticHash(), kcv1.AnnotationNodeClassHashVersion: kcv1.NodeClassHashVersion,
			karpv1.NodePoolHashAnnotationKey: np.Annotations[karpv1.NodePoolHashAnnotationKey], karpv1.NodePoolHashVersionAnnotationKey: nodepool.HashVersion,
		}},
		Spec:   karpv1.NodeClaimSpec{NodeClassRef: np.Spec.Template.Spec.NodeClassRef},
		Status: karpv1.NodeClaimStatus{ProviderID: "kakaocloud:///" + name, NodeName: name, Allocatable: it.Allocatable(), Capacity: it.Capacity},
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{ProviderID: nodeClaim.Status.ProviderID},
		Status: corev1.NodeStatus{Allocatable: it.Allocatable(), Capacity: it.Capacity, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	return nodeClaim, node
}

// replica is a running pod of a ReplicaSet on node, asking for cpu.
func replica(name, node, cpu string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID(name), OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "web", Controller: new(true),
		}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")},
		}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if node == "" {
		pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}
	}
	return pod
}

// instanceTypes is a cloud provider for the simulation alone: the catalog's types for any
// NodePool, read from its KCNodeClass.
type instanceTypes struct {
	cloudprovider.CloudProvider
	kube client.Reader
}

func (p instanceTypes) GetInstanceTypes(ctx context.Context, np *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	nodeClass := &kcv1.KCNodeClass{}
	if err := p.kube.Get(ctx, client.ObjectKey{Name: np.Spec.Template.Spec.NodeClassRef.Name}, nodeClass); err != nil {
		return nil, err
	}
	return workload.CatalogInstanceTypes(nodeClass), nil
}

func explainer(objects ...client.Object) *Explainer {
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).Build()
	return &Explainer{Reader: kube, Clock: clocktesting.NewFakePassiveClock(now), NodeClassDrift: kakao.SpecDriftOf,
		Inputs: simulation.Builder{Reader: kube, InstanceTypes: instanceTypes{kube: kube}.GetInstanceTypes}}
}

func TestDrifts(t *testing.T) {
	nodeClass := workers()
	np := pool("default", nil)
	small := typeOf(t, "m2a", "2")
	a, _ := launched("a", np, small, zoneA)
	b, _ := launched("b", np, small, zoneA)
	c, _ := launched("c", np, small, zoneA)
	c.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "others"}
	d, _ := launched("d", np, small, zoneA)
	d.Annotations[kcv1.AnnotationKubernetesVersion] = "1.36"
	gone, _ := launched("gone", np, small, zoneA)
	gone.DeletionTimestamp = &metav1.Time{Time: now}
	claims := []*karpv1.NodeClaim{a, b, c, d, gone}

	upgraded := nodeClass.DeepCopy()
	upgraded.Spec.Bootstrap.KubernetesVersion = "1.36"
	drifts, unchanged, _, err := Drifts(claims, upgraded, kakao.SpecDriftOf)
	if err != nil {
		t.Fatal(err)
	}
	var drifted []string
	for _, d := range drifts {
		drifted = append(drifted, d.NodeClaim)
		if d.Reason != string(kakao.DriftKubernetesVersion) || !strings.Contains(d.Message, "now asks for 1.36") || d.Node != d.NodeClaim {
			t.Errorf("drift %+v", d)
		}
	}
	if strings.Join(drifted, ",") != "a,b" || unchanged != 1 {
		t.Errorf("drifts %v and %d unchanged, want a and b (c of another class, d already on 1.36, gone being deleted)", drifted, unchanged)
	}

	// The rest of the spec drifts every node of the class by its hash.
	resized := nodeClass.DeepCopy()
	resized.Spec.RootVolume.SizeGiB = 100
	if drifts, _, _, _ = Drifts(claims, resized, kakao.SpecDriftOf); len(drifts) != 3 {
		t.Errorf("%d drifts after a root volume change, want the class's 3: %+v", len(drifts), drifts)
	}

	// A NodePool template edit drifts the NodeClaims stamped with the old template.
	relabelled := np.DeepCopy()
	relabelled.Spec.Template.Labels = map[string]string{"team": "checkout"}
	if drifts, _, _, _ = Drifts(claims, relabelled, kakao.SpecDriftOf); len(drifts) != 4 || drifts[0].Reason != "NodePoolDrifted" {
		t.Errorf("drifts %+v, want NodePoolDrifted for a to d", drifts)
	}
	if _, _, _, err := Drifts(claims, &corev1.Pod{}, kakao.SpecDriftOf); err == nil {
		t.Error("no error for a pod")
	}
}

func TestDecode(t *testing.T) {
	obj, err := Decode([]byte("apiVersion: karpenter.kakaocloud.com/v1\nkind: KCNodeClass\nmetadata:\n  name: workers\nspec:\n  bootstrap:\n    kubernetesVersion: \"1.36\"\n"))
	if nodeClass, ok := obj.(*kcv1.KCNodeClass); err != nil || !ok || nodeClass.Spec.Bootstrap.KubernetesVersion != "1.36" {
		t.Errorf("decoded %#v, %v", obj, err)
	}
	if pod, err := Decode([]byte("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: app\n    image: app\n")); err != nil || pod.(*corev1.Pod).Spec.Containers[0].Name != "app" {
		t.Errorf("a pod without a name: %#v, %v", pod, err)
	}
	for bad, says := range map[string]string{
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n":                             "not apps/v1 Deployment",
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {}\n":                               "has no metadata.name",
		"apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec:\n  tmplate: {}\n": `unknown field "tmplate"`,
	} {
		if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: error %v, want one that says %q", bad, err, says)
		}
	}
}

func TestWhatIfVersionChange(t *testing.T) {
	np := pool("default", nil)
	small, large := typeOf(t, "m2a", "2"), typeOf(t, "m2a", "8")
	a, nodeA := launched("a", np, small, zoneA)
	b, nodeB := launched("b", np, large, zoneB)
	objects := []client.Object{workers(), np, a, nodeA, b, nodeB, replica("web-1", "a", "1"), replica("web-2", "b", "1")}
	e := explainer(objects...)

	upgraded := workers()
	upgraded.Spec.Bootstrap.KubernetesVersion = "1.36"
	answer, err := e.WhatIf(context.Background(), upgraded)
	if err != nil {
		t.Fatal(err)
	}
	if len(answer.Drifts) != 2 || answer.Kind != "KCNodeClass" {
		t.Fatalf("answer %+v, want a and b drifted", answer)
	}
	// Both replicas move, to one node that holds the two of them, smaller than the large one.
	if len(answer.Launches) != 1 || answer.Launches[0].Pods != 2 || answer.Launches[0].NodePool != "default" {
		t.Fatalf("launches %+v, want one for the two replicas", answer.Launches)
	}
	smallPrice, _ := small.PriceOf(nodeA.Labels)
	largePrice, _ := large.PriceOf(nodeB.Labels)
	replacement := answer.Launches[0].Price
	if replacement >= largePrice {
		t.Errorf("the replacement costs %v, the large node %v", replacement, largePrice)
	}
	want := Cost{Now: smallPrice + largePrice, WithoutEdit: smallPrice + largePrice, WithEdit: replacement, Change: replacement - smallPrice - largePrice}
	if answer.Cost != want || answer.LaunchesWithoutEdit != 0 || len(answer.Pending) != 0 {
		t.Errorf("cost %+v, %d launches without the edit, pending %v; want %+v, none, none", answer.Cost, answer.LaunchesWithoutEdit, answer.Pending, want)
	}
	if !slices.Equal(answer.Launches[0].Zones, []string{zoneA, zoneB}) {
		t.Errorf("zones %v, want both", answer.Launches[0].Zones)
	}
}

func TestWhatIfNodePoolEdit(t *testing.T) {
	np := pool("default", func(np *karpv1.NodePool) {
		np.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("2")}
	})
	small := typeOf(t, "m2a", "2")
	a, nodeA := launched("a", np, small, zoneA)
	waiting := replica("web-2", "", "1500m")
	e := explainer(workers(), np, a, nodeA, replica("web-1", "a", "1500m"), waiting)

	// Raising the limit (limits are not in the template hash) drifts nothing and launches one
	// node for the pod the limit holds back.
	raised := np.DeepCopy()
	raised.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("10")}
	answer, err := e.WhatIf(context.Background(), raised)
	if err != nil {
		t.Fatal(err)
	}
	smallPrice, _ := small.PriceOf(nodeA.Labels)
	if len(answer.Drifts) != 0 || answer.Unchanged != 1 || len(answer.Launches) != 1 || answer.LaunchesWithoutEdit != 0 ||
		answer.Cost.Change != answer.Launches[0].Price || answer.Cost.Now != smallPrice {
		t.Errorf("answer %+v, want no drift, one launch that costs the change", answer)
	}

	// Moving the NodePool to the compute family drifts its node, and the two pods go to
	// compute nodes; the limit still holds one back.
	compute := np.DeepCopy()
	compute.Spec.Template.Spec.Requirements[0].Values = []string{"c2a"}
	if answer, err = e.WhatIf(context.Background(), compute); err != nil {
		t.Fatal(err)
	}
	if len(answer.Drifts) != 1 || answer.Drifts[0].Reason != "RequirementsDrifted" {
		t.Errorf("drifts %+v, want a's RequirementsDrifted", answer.Drifts)
	}
	if len(answer.Launches) != 1 || !strings.HasPrefix(answer.Launches[0].InstanceType, "c2a.") || len(answer.Pending) != 1 ||
		!strings.Contains(answer.Pending[0].Reason, "would exceed limits cpu") {
		t.Errorf("launches %+v, pending %+v; want one c2a node and a pod over the limit", answer.Launches, answer.Pending)
	}
}

func TestWhatIfPod(t *testing.T) {
	np := pool("default", nil)
	large := typeOf(t, "m2a", "8")
	a, nodeA := launched("a", np, large, zoneA)
	e := explainer(workers(), np, a, nodeA, replica("web-1", "a", "1"))
	ask := func(pod *corev1.Pod) *PodWhatIfAnswer {
		t.Helper()
		answer, err := e.WhatIfPod(context.Background(), pod)
		if err != nil {
			t.Fatal(err)
		}
		return answer
	}
	pod := func(cpu string, mutate func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "api-"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}
		if mutate != nil {
			mutate(p)
		}
		return p
	}
	if answer := ask(pod("2", nil)); answer.Node != "node/a" || answer.Pod != "default/api-whatif" {
		t.Errorf("a pod that fits node a: %+v", answer)
	}
	if answer := ask(pod("12", nil)); answer.Launch == nil || answer.Launch.NodePool != "default" || answer.Launch.Pods != 1 {
		t.Errorf("a pod too large for node a: %+v, want a launch", answer)
	}
	gpu := ask(pod("1", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{kcv1.LabelInstanceFamily: "g2a"} }))
	if gpu.Node != "" || gpu.Launch != nil || len(gpu.RefusedBy) != 1 || gpu.RefusedBy[0].NodePool != "default" {
		t.Errorf("a pod no NodePool takes: %+v", gpu)
	}
	if _, err := e.WhatIfPod(context.Background(), pod("1", func(p *corev1.Pod) { p.Spec.NodeName = "a" })); err == nil {
		t.Error("no error for a pod bound by spec.nodeName")
	}
	if answer := ask(pod("2", nil)); answer.Destination == nil || *answer.Destination != destination.OfNode(nodeA) {
		t.Errorf("a pod that fits node a: destination %v, want node a", answer.Destination)
	}
}

// TestWhatIfPendingPod asks about a pending pod with its own manifest, as kubectl karpenter
// why pod does: the manifest stands for the pod, which is not placed a second time beside it.
func TestWhatIfPendingPod(t *testing.T) {
	np := pool("default", nil)
	a, nodeA := launched("a", np, typeOf(t, "m2a", "8"), zoneA)
	waiting := replica("web-2", "", "12")
	e := explainer(workers(), np, a, nodeA, replica("web-1", "a", "1"), waiting)
	answer, err := e.WhatIfPod(context.Background(), waiting)
	if err != nil {
		t.Fatal(err)
	}
	if answer.Pod != "shop/web-2" || answer.Launch == nil || answer.Launch.Pods != 1 {
		t.Errorf("answer %+v, launch %+v: want a launch of its own, not one shared with a copy of it", answer, answer.Launch)
	}
}
