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
	"fmt"
	"maps"
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
)

// Fixtures of the pure tests and the benchmark: a small instance-type catalog shaped like
// KakaoCloud's, and builders for NodePools, NodeClaims with their nodes, and pods.

var testZones = []string{"kr-central-2-a", "kr-central-2-b", "kr-central-2-c"}

var testNow = time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)

// testInstanceType is a type of vcpu CPUs and memGiB GiB at a relative price, with a little
// overhead, sold in three zones.
func testInstanceType(name string, vcpu, memGiB int64, price float64) *cloudprovider.InstanceType {
	family, size := name[:3], name[4:]
	return &cloudprovider.InstanceType{
		Name: name,
		Labels: map[string]string{
			karpv1.LabelInstanceType: name, karpv1.LabelArch: "amd64", karpv1.LabelOS: "linux",
			kcv1.LabelInstanceFamily: family, kcv1.LabelInstanceSize: size,
			kcv1.LabelInstanceCPU: fmt.Sprint(vcpu), kcv1.LabelInstanceMemory: fmt.Sprint(memGiB * 1024),
		},
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(vcpu, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(memGiB<<30, resource.BinarySI),
			corev1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
		},
		Overhead: cloudprovider.Overhead{KubeReserved: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("100m"),
			corev1.ResourceMemory: resource.MustParse("512Mi"),
		}},
		Offerings: func() cloudprovider.Offerings {
			var out cloudprovider.Offerings
			for _, z := range testZones {
				out = append(out, cloudprovider.Offering{Zone: z, CapacityType: karpv1.CapacityTypeOnDemand, Price: price, Available: true})
			}
			return out
		}(),
	}
}

// testInstanceTypes: general purpose (4 GiB/vCPU), compute (2 GiB/vCPU) and memory (8 GiB/vCPU)
// families from 2 to 16 vCPU, priced like the provider's built-in relative costs (1 per vCPU,
// 0.125 per GiB).
func testInstanceTypes() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, f := range []struct {
		name   string
		perCPU int64
	}{{"m2a", 4}, {"c2a", 2}, {"r2a", 8}} {
		for _, s := range []struct {
			name string
			cpu  int64
		}{{"large", 2}, {"xlarge", 4}, {"2xlarge", 8}, {"4xlarge", 16}} {
			mem := s.cpu * f.perCPU
			out = append(out, testInstanceType(f.name+"."+s.name, s.cpu, mem, float64(s.cpu)+0.125*float64(mem)))
		}
	}
	return out
}

func typeByName(instanceTypes []*cloudprovider.InstanceType, name string) *cloudprovider.InstanceType {
	for _, it := range instanceTypes {
		if it.Name == name {
			return it
		}
	}
	panic("no instance type " + name)
}

// testPool is a ready NodePool that consolidates at once, with the given budgets (the
// default 10% when none).
func testPool(name string, policy karpv1.ConsolidationPolicy, budgets ...karpv1.Budget) *karpv1.NodePool {
	if len(budgets) == 0 {
		budgets = []karpv1.Budget{{Nodes: "10%"}}
	}
	return &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"},
				ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
			}},
			Disruption: karpv1.Disruption{ConsolidationPolicy: policy, ConsolidateAfter: karpv1.MustParseNillableDuration("0s"), Budgets: budgets},
		},
		Status: karpv1.NodePoolStatus{Conditions: []metav1.Condition{{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: "Ready"}}},
	}
}

// nodeOpt adjusts a test node.
type nodeOpt func(*karpv1.NodeClaim, *corev1.Node)

func withCondition(t string, status metav1.ConditionStatus) nodeOpt {
	return func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions, metav1.Condition{Type: t, Status: status, Reason: t})
	}
}

var (
	isDrifted        = withCondition(karpv1.ConditionTypeDrifted, metav1.ConditionTrue)
	isConsolidatable = withCondition(karpv1.ConditionTypeConsolidatable, metav1.ConditionTrue)
)

// withLastPodEvent sets when a pod was last bound to or removed from the node.
func withLastPodEvent(at time.Time) nodeOpt {
	return func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		nodeClaim.Status.LastPodEventTime = metav1.NewTime(at)
	}
}

func withNodeAnnotation(k, v string) nodeOpt {
	return func(_ *karpv1.NodeClaim, n *corev1.Node) { metav1.SetMetaDataAnnotation(&n.ObjectMeta, k, v) }
}

func withDisruptedTaint(_ *karpv1.NodeClaim, n *corev1.Node) {
	n.Spec.Taints = append(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
}

// testNode is an initialized NodeClaim of the pool and its ready node.
func testNode(name, poolName string, it *cloudprovider.InstanceType, zone string, opts ...nodeOpt) (*karpv1.NodeClaim, *corev1.Node) {
	labels := map[string]string{karpv1.LabelNodePool: poolName, karpv1.LabelTopologyZone: zone, karpv1.LabelCapacityType: karpv1.CapacityTypeOnDemand}
	maps.Copy(labels, it.Labels)
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(testNow.Add(-time.Hour))},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"},
			ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
		},
		Status: karpv1.NodeClaimStatus{
			ProviderID: "kakaocloud://" + name, NodeName: "node-" + name,
			Capacity: it.Capacity, Allocatable: it.Allocatable(),
			Conditions: []metav1.Condition{
				{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: "Launched"},
				{Type: karpv1.ConditionTypeRegistered, Status: metav1.ConditionTrue, Reason: "Registered"},
				{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized"},
			},
		},
	}
	nodeLabels := map[string]string{corev1.LabelHostname: "node-" + name}
	maps.Copy(nodeLabels, labels)
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-" + name, Labels: nodeLabels},
		Spec:       corev1.NodeSpec{ProviderID: nodeClaim.Status.ProviderID},
		Status: corev1.NodeStatus{
			Allocatable: it.Allocatable(), Capacity: it.Capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	for _, o := range opts {
		o(nodeClaim, node)
	}
	return nodeClaim, node
}

// podOpt adjusts a test pod.
type podOpt func(*corev1.Pod)

func withPodAnnotation(k, v string) podOpt {
	return func(p *corev1.Pod) { metav1.SetMetaDataAnnotation(&p.ObjectMeta, k, v) }
}

func withLabels(l map[string]string) podOpt { return func(p *corev1.Pod) { p.Labels = l } }

func ownedByRS(p *corev1.Pod) {
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", Controller: new(true)}}
}

func ownedByDS(p *corev1.Pod) {
	t := true
	p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: &t}}
}

// testPod is a running pod on node (unbound when node is "") requesting cpu and memory.
func testPod(name, node, cpu, mem string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(testNow.Add(-time.Hour))},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)},
		}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if node == "" {
		// Pending as the kube-scheduler leaves a pod it found no node for.
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	} else {
		// Running since it was created, as the kubelet reports it.
		p.Status.StartTime = &p.CreationTimestamp
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func testPDB(name string, selector map[string]string, allowed int32) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: selector}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

// cluster collects objects for a snapshot.
type cluster struct {
	in SnapshotInput
}

func newCluster(pools ...*karpv1.NodePool) *cluster {
	c := &cluster{in: SnapshotInput{Now: testNow, InstanceTypes: map[string][]*cloudprovider.InstanceType{}}}
	for _, np := range pools {
		c.in.NodePools = append(c.in.NodePools, np)
		c.in.InstanceTypes[np.Name] = testInstanceTypes()
	}
	return c
}

// node adds a node of the pool and returns its node name.
func (c *cluster) node(name, pool, typeName string, opts ...nodeOpt) string {
	nodeClaim, node := testNode(name, pool, typeByName(testInstanceTypes(), typeName), testZones[0], opts...)
	c.in.NodeClaims = append(c.in.NodeClaims, nodeClaim)
	c.in.Nodes = append(c.in.Nodes, node)
	return node.Name
}

func (c *cluster) pods(pods ...*corev1.Pod) { c.in.Pods = append(c.in.Pods, pods...) }

func (c *cluster) snapshot() *Snapshot { return NewSnapshot(c.in) }
