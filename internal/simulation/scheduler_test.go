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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

var zones = []string{zoneA, zoneB, zoneC}

// fakeType builds an instance type of a family with cpus vCPUs and memPerCPU GiB per vCPU,
// 100m cpu and 256Mi memory overhead, offered on demand in three zones.
func fakeType(family string, size string, cpus, memPerCPU int64, pricePerCPU float64) *cloudprovider.InstanceType {
	name := family + "." + size
	it := &cloudprovider.InstanceType{
		Name: name,
		Labels: map[string]string{
			karpv1.LabelInstanceType:  name,
			karpv1.LabelArch:          "amd64",
			karpv1.LabelOS:            "linux",
			kcv1.LabelInstanceFamily:  family,
			kcv1.LabelInstanceSize:    size,
			kcv1.LabelInstanceCPU:     fmt.Sprint(cpus),
			kcv1.LabelInstanceMemory:  fmt.Sprint(cpus * memPerCPU * 1024),
			kcv1.LabelInstanceGPUName: "",
		},
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(cpus, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(cpus*memPerCPU<<30, resource.BinarySI),
			corev1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
		},
		Overhead: cloudprovider.Overhead{KubeReserved: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("100m"),
			corev1.ResourceMemory: resource.MustParse("256Mi"),
		}},
	}
	delete(it.Labels, kcv1.LabelInstanceGPUName)
	for i, z := range zones {
		it.Offerings = append(it.Offerings, cloudprovider.Offering{
			Zone: z, CapacityType: karpv1.CapacityTypeOnDemand, Available: true,
			Price: pricePerCPU * float64(cpus) * (1 + 0.01*float64(i)),
		})
	}
	return it
}

// fakeTypes returns c2a (2 GiB/vCPU) and m2a (4 GiB/vCPU) in sizes of 2 to 32 vCPUs.
func fakeTypes() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	sizes := []struct {
		name string
		cpus int64
	}{{"large", 2}, {"xlarge", 4}, {"2xlarge", 8}, {"4xlarge", 16}, {"8xlarge", 32}}
	for _, s := range sizes {
		out = append(out, fakeType("c2a", s.name, s.cpus, 2, 0.05), fakeType("m2a", s.name, s.cpus, 4, 0.06))
	}
	return out
}

func nodePool(name string, weight int32, mutate ...func(*karpv1.NodePool)) *karpv1.NodePool {
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodePoolSpec{
			Weight: &weight,
			Template: karpv1.NodeClaimTemplate{
				ObjectMeta: karpv1.ObjectMeta{Labels: map[string]string{"team": "platform"}},
				Spec: karpv1.NodeClaimTemplateSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
						{Key: karpv1.LabelArch, Operator: karpv1.NodeSelectorOpIn, Values: []string{"amd64"}},
						{Key: karpv1.LabelCapacityType, Operator: karpv1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
					},
					NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.kakaocloud.com", Kind: "KCNodeClass", Name: "default"},
				},
			},
		},
	}
	for _, m := range mutate {
		m(np)
	}
	return np
}

func poolInput(np *karpv1.NodePool) NodePoolInput {
	return NodePoolInput{NodePool: np, InstanceTypes: fakeTypes()}
}

var podSeq int

func pod(cpu, mem string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	podSeq++
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("pod-%04d", podSeq), Namespace: "default",
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, podSeq, 0, time.UTC)),
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:      "app",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}},
		}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func pods(n int, cpu, mem string, mutate ...func(*corev1.Pod)) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = pod(cpu, mem, mutate...)
	}
	return out
}

func withNodeSelector(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

// withNodeAffinity adds one required node-affinity term of the expressions.
func withNodeAffinity(exprs ...corev1.NodeSelectorRequirement) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}},
		}}
	}
}

func withToleration(key, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: corev1.TaintEffectNoSchedule})
	}
}

func withHostPort(port int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port})
	}
}

var checkoutTaint = corev1.Taint{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}

func withTaint(np *karpv1.NodePool) { np.Spec.Template.Spec.Taints = []corev1.Taint{checkoutTaint} }

// expectation checks a Results.
type expectation struct {
	nodeClaims  int
	firstTypes  []string       // first instance type of each NodeClaim, in order
	pools       []string       // NodePool of each NodeClaim
	podsPer     []int          // pods on each NodeClaim
	existing    map[string]int // pods per existing node
	errors      int
	errContains []string
	reqs        map[string][]string // key -> values of the first NodeClaim's requirement
	cpuRequests []string            // Requests cpu of each NodeClaim
}

func (e expectation) check(t *testing.T, in Input, res *Results) {
	t.Helper()
	placed := len(res.PodErrors)
	for _, ps := range res.ExistingPlacements {
		placed += len(ps)
	}
	for _, n := range res.NewNodeClaims {
		placed += len(n.Pods)
	}
	if placed != len(in.Pods) {
		t.Errorf("placed+errored = %d, want %d", placed, len(in.Pods))
	}
	if got := len(res.NewNodeClaims); got != e.nodeClaims {
		t.Errorf("NodeClaims = %d, want %d", got, e.nodeClaims)
	}
	for i, n := range res.NewNodeClaims {
		if len(n.InstanceTypes) == 0 || len(n.InstanceTypes) > MaxInstanceTypes {
			t.Errorf("NodeClaim %d has %d instance types", i, len(n.InstanceTypes))
			continue
		}
		if i < len(e.firstTypes) && n.InstanceTypes[0].Name != e.firstTypes[i] {
			t.Errorf("NodeClaim %d first type = %s, want %s", i, n.InstanceTypes[0].Name, e.firstTypes[i])
		}
		if i < len(e.pools) && n.NodePoolName != e.pools[i] {
			t.Errorf("NodeClaim %d nodepool = %s, want %s", i, n.NodePoolName, e.pools[i])
		}
		if i < len(e.podsPer) && len(n.Pods) != e.podsPer[i] {
			t.Errorf("NodeClaim %d pods = %d, want %d", i, len(n.Pods), e.podsPer[i])
		}
		if i < len(e.cpuRequests) {
			want := resource.MustParse(e.cpuRequests[i])
			if got := n.Requests[corev1.ResourceCPU]; got.Cmp(want) != 0 {
				t.Errorf("NodeClaim %d cpu requests = %s, want %s", i, got.String(), want.String())
			}
		}
	}
	if e.existing != nil || len(res.ExistingPlacements) > 0 {
		for name, want := range e.existing {
			if got := len(res.ExistingPlacements[destination.NodeNamed(name)]); got != want {
				t.Errorf("existing node %s pods = %d, want %d", name, got, want)
			}
		}
		for id := range res.ExistingPlacements {
			if _, ok := e.existing[id.Name]; !ok || id.Kind != destination.Node {
				t.Errorf("unexpected placements on %s", id)
			}
		}
	}
	if len(res.PodErrors) != e.errors {
		t.Errorf("PodErrors = %d, want %d: %v", len(res.PodErrors), e.errors, errorsOf(res))
	}
	for _, want := range e.errContains {
		found := false
		for _, err := range res.PodErrors {
			if strings.Contains(err.Error(), want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no pod error contains %q: %v", want, errorsOf(res))
		}
	}
	for key, want := range e.reqs {
		if len(res.NewNodeClaims) == 0 {
			t.Errorf("no NodeClaim to check %s", key)
			break
		}
		r := res.NewNodeClaims[0].Requirements.Get(key)
		if got := r.Values(); r.IsComplement() || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("requirement %s = %s, want In %v", key, r, want)
		}
	}
}

func TestSchedule(t *testing.T) {
	def := poolInput(nodePool("default", 0))
	for _, tc := range []struct {
		name string
		in   Input
		want expectation
	}{
		{
			name: "30 one-cpu pods on an empty cluster take one cheapest node",
			in:   Input{Pods: pods(30, "1", "1Gi"), NodePools: []NodePoolInput{def}},
			want: expectation{nodeClaims: 1, firstTypes: []string{"c2a.8xlarge"}, podsPer: []int{30}, cpuRequests: []string{"30"}},
		},
		{
			name: "existing node with room is used before a new NodeClaim",
			in: Input{
				Pods:      pods(5, "1", "1Gi"),
				NodePools: []NodePoolInput{def},
				ExistingNodes: []ExistingNode{
					{ID: destination.NodeNamed("tainted"), Labels: map[string]string{karpv1.LabelArch: "amd64"}, Taints: []corev1.Taint{checkoutTaint},
						Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}},
					{ID: destination.NodeNamed("node-1"), Labels: map[string]string{karpv1.LabelArch: "amd64"},
						Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")},
						Requested:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
				},
			},
			want: expectation{nodeClaims: 1, existing: map[string]int{"node-1": 3}, podsPer: []int{2}, firstTypes: []string{"c2a.xlarge"}},
		},
		{
			name: "existing node in another zone is skipped",
			in: Input{
				Pods:      pods(2, "1", "1Gi", withNodeSelector(karpv1.LabelTopologyZone, zoneB)),
				NodePools: []NodePoolInput{def},
				ExistingNodes: []ExistingNode{{ID: destination.NodeNamed("node-a"), Labels: map[string]string{corev1.LabelFailureDomainBetaZone: zoneA},
					Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}}},
			},
			want: expectation{nodeClaims: 1, podsPer: []int{2}, reqs: map[string][]string{karpv1.LabelTopologyZone: {zoneB}}},
		},
		{
			name: "instance-cpu Gt narrows the types",
			in: Input{
				Pods: []*corev1.Pod{pod("1", "1Gi", func(p *corev1.Pod) {
					p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
						NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: kcv1.LabelInstanceCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{"8"}}}}},
					}}}
				})},
				NodePools: []NodePoolInput{def},
			},
			want: expectation{nodeClaims: 1, firstTypes: []string{"c2a.4xlarge"}},
		},
		{
			name: "nodeSelector zone and family narrow types and zone",
			in: Input{
				Pods:      pods(3, "1", "1Gi", withNodeSelector(karpv1.LabelTopologyZone, zoneB, kcv1.LabelInstanceFamily, "m2a")),
				NodePools: []NodePoolInput{def},
			},
			want: expectation{nodeClaims: 1, firstTypes: []string{"m2a.xlarge"}, reqs: map[string][]string{
				karpv1.LabelTopologyZone: {zoneB},
				kcv1.LabelInstanceFamily: {"m2a"},
				karpv1.LabelCapacityType: {karpv1.CapacityTypeOnDemand},
				karpv1.LabelInstanceType: {"m2a.2xlarge", "m2a.4xlarge", "m2a.8xlarge", "m2a.xlarge"},
			}},
		},
		{
			name: "incompatible zone is explained",
			in: Input{
				Pods:      []*corev1.Pod{pod("1", "1Gi", withNodeSelector(karpv1.LabelTopologyZone, "kr-central-9-z"))},
				NodePools: []NodePoolInput{def},
			},
			want: expectation{errors: 1, errContains: []string{"nodepool default: incompatible requirements, key topology.kubernetes.io/zone"}},
		},
		{
			name: "tainted higher-weight pool takes only tolerating pods",
			in: Input{
				// Tolerating pods are larger, so they are placed first and open the checkout
				// NodeClaim; a tolerating pod placed after a default NodeClaim was opened could
				// join it, since open NodeClaims are tried before new ones.
				Pods:      append(pods(2, "2", "1Gi", withToleration("dedicated", "CheckoutApp")), pods(2, "1", "1Gi")...),
				NodePools: []NodePoolInput{def, poolInput(nodePool("checkout", 10, withTaint))},
			},
			want: expectation{nodeClaims: 2, pools: []string{"checkout", "default"}, podsPer: []int{2, 2}},
		},
		{
			name: "tolerating pods prefer the higher-weight pool; others are explained without a fallback",
			in: Input{
				Pods:      []*corev1.Pod{pod("1", "1Gi", withToleration("dedicated", "CheckoutApp")), pod("1", "1Gi")},
				NodePools: []NodePoolInput{poolInput(nodePool("checkout", 10, withTaint))},
			},
			want: expectation{nodeClaims: 1, pools: []string{"checkout"}, errors: 1,
				errContains: []string{"nodepool checkout: the pod does not tolerate taint dedicated=CheckoutApp:NoSchedule"}},
		},
		{
			name: "limits cpu 0 places nothing",
			in: Input{
				Pods:      pods(2, "1", "1Gi"),
				NodePools: []NodePoolInput{{NodePool: nodePool("default", 0), InstanceTypes: fakeTypes(), Remaining: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}}},
			},
			want: expectation{errors: 2, errContains: []string{"nodepool default: would exceed limits cpu"}},
		},
		{
			name: "limits cpu 16 allows one 16-cpu node",
			in: Input{
				Pods:      pods(20, "1", "1Gi"),
				NodePools: []NodePoolInput{{NodePool: nodePool("default", 0), InstanceTypes: fakeTypes(), Remaining: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16")}}},
			},
			want: expectation{nodeClaims: 1, podsPer: []int{15}, firstTypes: []string{"c2a.4xlarge"}, errors: 5, errContains: []string{"would exceed limits cpu"}},
		},
		{
			name: "limits nodes 2 opens two NodeClaims, each holding one node of the limit",
			in: Input{
				Pods:      pods(4, "1", "1Gi", withLabels(web), withAntiAffinity(corev1.LabelHostname, web, false)),
				NodePools: []NodePoolInput{{NodePool: nodePool("default", 0), InstanceTypes: fakeTypes(), Remaining: corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("2")}}},
			},
			want: expectation{nodeClaims: 2, podsPer: []int{1, 1}, errors: 2, errContains: []string{"nodepool default: would exceed limits nodes"}},
		},
		{
			name: "a cpu limit leaves memory and pods unlimited: several NodeClaims open within it",
			in: Input{
				Pods:      pods(20, "1", "1Gi", withNodeSelector(kcv1.LabelInstanceSize, "2xlarge")),
				NodePools: []NodePoolInput{{NodePool: nodePool("default", 0), InstanceTypes: fakeTypes(), Remaining: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("40")}}},
			},
			want: expectation{nodeClaims: 3, podsPer: []int{7, 7, 6}},
		},
		{
			name: "daemonset overhead makes a bigger type necessary",
			in: Input{
				Pods:      []*corev1.Pod{pod("1500m", "1Gi")},
				NodePools: []NodePoolInput{def},
				DaemonSetPods: []*corev1.Pod{
					pod("1", "100Mi"),
					pod("5", "100Mi", withNodeSelector("gpu", "true")), // never on this pool
				},
			},
			want: expectation{nodeClaims: 1, firstTypes: []string{"c2a.xlarge"}, cpuRequests: []string{"2500m"}},
		},
		{
			name: "host port clash opens a second node",
			in: Input{
				Pods:      []*corev1.Pod{pod("1", "1Gi", withHostPort(8080)), pod("1", "1Gi", withHostPort(8080)), pod("1", "1Gi", withHostPort(9090))},
				NodePools: []NodePoolInput{def},
			},
			want: expectation{nodeClaims: 2, podsPer: []int{2, 1}},
		},
		{
			name: "init container requests are counted",
			in: Input{
				Pods: []*corev1.Pod{pod("1", "1Gi", func(p *corev1.Pod) {
					p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}
				})},
				NodePools: []NodePoolInput{def},
			},
			want: expectation{nodeClaims: 1, firstTypes: []string{"c2a.xlarge"}, cpuRequests: []string{"3"}},
		},
		{
			name: "a pod needing 1000 cpu is explained",
			in:   Input{Pods: []*corev1.Pod{pod("1000", "1Gi")}, NodePools: []NodePoolInput{def}},
			want: expectation{errors: 1, errContains: []string{"nodepool default: no instance type fits 1000 cpu"}},
		},
		{
			name: "no nodepools",
			in:   Input{Pods: []*corev1.Pod{pod("1", "1Gi")}},
			want: expectation{errors: 1, errContains: []string{"no nodepool"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Schedule(tc.in)
			tc.want.check(t, tc.in, res)
		})
	}
}

func TestScheduleDeterministic(t *testing.T) {
	in := Input{Pods: append(pods(10, "1", "1Gi"), pods(10, "500m", "2Gi")...), NodePools: []NodePoolInput{poolInput(nodePool("default", 0))}}
	first := Schedule(in)
	for range 3 {
		again := Schedule(in)
		if len(again.NewNodeClaims) != len(first.NewNodeClaims) {
			t.Fatalf("NodeClaims differ")
		}
		for i := range again.NewNodeClaims {
			a, b := first.NewNodeClaims[i], again.NewNodeClaims[i]
			if len(a.Pods) != len(b.Pods) || a.InstanceTypes[0].Name != b.InstanceTypes[0].Name {
				t.Fatalf("NodeClaim %d differs", i)
			}
			for j := range a.Pods {
				if a.Pods[j] != b.Pods[j] {
					t.Fatalf("NodeClaim %d pod %d differs", i, j)
				}
			}
		}
	}
}

func TestToNodeClaim(t *testing.T) {
	np := nodePool("default", 0, func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.Taints = []corev1.Taint{checkoutTaint}
		np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "startup", Effect: corev1.TaintEffectNoSchedule}}
		np.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration("720h")
		np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Hour}
		np.Spec.Template.Annotations = map[string]string{"example.com/a": "b"}
		np.UID = "pool-uid"
	})
	res := Schedule(Input{
		Pods:      pods(2, "1", "1Gi", withToleration("dedicated", "CheckoutApp"), withNodeSelector(karpv1.LabelTopologyZone, zoneA)),
		NodePools: []NodePoolInput{poolInput(np)},
	})
	if len(res.NewNodeClaims) != 1 {
		t.Fatalf("NodeClaims = %d, errors %v", len(res.NewNodeClaims), errorsOf(res))
	}
	n := res.NewNodeClaims[0]
	nodeClaim := n.ToNodeClaim()
	// Owned by its NodePool, so that deleting the NodePool deletes it.
	if owners := nodeClaim.OwnerReferences; len(owners) != 1 || owners[0].Kind != "NodePool" || owners[0].Name != "default" ||
		owners[0].UID != "pool-uid" || owners[0].BlockOwnerDeletion == nil || !*owners[0].BlockOwnerDeletion {
		t.Errorf("owner references = %+v, want the NodePool, blocking its deletion", owners)
	}

	reqs := scheduling.FromNodeClaimRequirements(nodeClaim.Spec.Requirements...)
	names := reqs.Get(karpv1.LabelInstanceType).Values()
	if len(names) != len(n.InstanceTypes) {
		t.Errorf("instance-type requirement has %d values, want %d", len(names), len(n.InstanceTypes))
	}
	for _, it := range n.InstanceTypes {
		if !reqs.Get(karpv1.LabelInstanceType).Has(it.Name) {
			t.Errorf("instance-type requirement lacks %s", it.Name)
		}
	}
	if got := reqs.Get(karpv1.LabelNodePool).Values(); len(got) != 1 || got[0] != "default" {
		t.Errorf("nodepool requirement = %v", got)
	}
	if got := reqs.Get(karpv1.LabelTopologyZone).Values(); len(got) != 1 || got[0] != zoneA {
		t.Errorf("zone requirement = %v", got)
	}
	for k, want := range map[string]string{
		"team":                   "platform",
		karpv1.LabelNodePool:     "default",
		karpv1.LabelTopologyZone: zoneA,
		karpv1.LabelArch:         "amd64",
		karpv1.LabelCapacityType: karpv1.CapacityTypeOnDemand,
	} {
		if got := nodeClaim.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if _, ok := nodeClaim.Labels[karpv1.LabelInstanceType]; ok && len(n.InstanceTypes) > 1 {
		t.Errorf("multi-valued instance type became a label")
	}
	if nodeClaim.Annotations["example.com/a"] != "b" {
		t.Errorf("annotations = %v", nodeClaim.Annotations)
	}
	if len(nodeClaim.Spec.Taints) != 1 || nodeClaim.Spec.Taints[0] != checkoutTaint {
		t.Errorf("taints = %v", nodeClaim.Spec.Taints)
	}
	if len(nodeClaim.Spec.StartupTaints) != 1 || nodeClaim.Spec.StartupTaints[0].Key != "startup" {
		t.Errorf("startupTaints = %v", nodeClaim.Spec.StartupTaints)
	}
	if nodeClaim.Spec.NodeClassRef == nil || nodeClaim.Spec.NodeClassRef.Name != "default" || nodeClaim.Spec.NodeClassRef == np.Spec.Template.Spec.NodeClassRef {
		t.Errorf("nodeClassRef = %v (must be a copy)", nodeClaim.Spec.NodeClassRef)
	}
	if nodeClaim.Spec.ExpireAfter.Duration == nil || *nodeClaim.Spec.ExpireAfter.Duration != 720*time.Hour {
		t.Errorf("expireAfter = %v", nodeClaim.Spec.ExpireAfter)
	}
	if nodeClaim.Spec.TerminationGracePeriod == nil || nodeClaim.Spec.TerminationGracePeriod.Duration != time.Hour {
		t.Errorf("terminationGracePeriod = %v", nodeClaim.Spec.TerminationGracePeriod)
	}
	cpu := nodeClaim.Spec.Resources.Requests[corev1.ResourceCPU]
	if cpu.Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("cpu requests = %s", cpu.String())
	}
	mem := nodeClaim.Spec.Resources.Requests[corev1.ResourceMemory]
	if mem.Cmp(resource.MustParse("2Gi")) != 0 {
		t.Errorf("memory requests = %s", mem.String())
	}
	if nodeClaim.GenerateName != "default-" {
		t.Errorf("generateName = %q", nodeClaim.GenerateName)
	}
}

// TestInFlightNodeClaimTakesCompatiblePods is the NodeClaim created in an earlier round and not
// launched yet: its zone is still open, among a and b, and its requirements can no longer
// change. A pod that accepts both zones waits for it instead of opening a second NodeClaim; a
// pod that wants only a does not count on it (the launch may pick b, and the kube-scheduler
// would then refuse the pod there), nor does a pod that wants another zone.
func TestInFlightNodeClaimTakesCompatiblePods(t *testing.T) {
	inFlight := ExistingNode{
		ID:          destination.NodeClaimNamed("default-abcde"),
		Labels:      map[string]string{karpv1.LabelNodePool: "default"},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")},
		Requirements: scheduling.NewRequirements(
			scheduling.NewRequirement(karpv1.LabelNodePool, corev1.NodeSelectorOpIn, "default"),
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "kr-central-2-a", "kr-central-2-b"),
		),
	}
	wantsAOrB := pod("1", "1Gi", withNodeAffinity(corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-a", "kr-central-2-b"}}))
	wantsA := pod("1", "1Gi", withNodeSelector(corev1.LabelTopologyZone, "kr-central-2-a"))
	wantsC := pod("1", "1Gi", withNodeSelector(corev1.LabelTopologyZone, "kr-central-2-c"))
	res := Schedule(Input{
		Pods:          []*corev1.Pod{wantsAOrB, wantsA, wantsC},
		NodePools:     []NodePoolInput{poolInput(nodePool("default", 0))},
		ExistingNodes: []ExistingNode{inFlight},
	})
	if placed := res.ExistingPlacements[inFlight.ID]; len(placed) != 1 || placed[0] != wantsAOrB {
		t.Errorf("in-flight NodeClaim got %v, want only the pod that accepts both of its zones", placed)
	}
	if len(res.NewNodeClaims) != 2 {
		t.Fatalf("new NodeClaims = %d, want one each for the pods that want kr-central-2-a and kr-central-2-c", len(res.NewNodeClaims))
	}
	for _, n := range res.NewNodeClaims {
		if len(n.Pods) != 1 || n.Pods[0] == wantsAOrB {
			t.Errorf("new NodeClaim for %v", n.Pods)
		}
	}
}

// TestIncompatibleNodePools: an available NodePool whose requirements leave none of its
// instance types is named, so that it can be told (upstream's NoCompatibleInstanceTypes); an
// unavailable one is not, its pods already say why.
func TestIncompatibleNodePools(t *testing.T) {
	nothing := poolInput(nodePool("nothing", 0, func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			karpv1.NodeSelectorRequirementWithMinValues{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"no-such-type"}})
	}))
	unavailable := poolInput(nodePool("unavailable", 0))
	unavailable.Unavailable = "not ready: its KCNodeClass is not ready"
	res := Schedule(Input{Pods: pods(1, "1", "1Gi"), NodePools: []NodePoolInput{poolInput(nodePool("fine", 0)), nothing, unavailable}})
	if !slices.Equal(res.IncompatibleNodePools, []string{"nothing"}) {
		t.Errorf("incompatible NodePools %v, want [nothing]", res.IncompatibleNodePools)
	}
}

// TestPolicies: --preference-policy and --min-values-policy as upstream's scheduler takes them.
func TestPolicies(t *testing.T) {
	preferM2a := func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a"}}}},
		}}}}
	}
	for _, tc := range []struct {
		name      string
		policies  Policies
		wantFirst string
	}{
		{"Respect honours a preference that can be met, though it costs more", Policies{}, "m2a.large"},
		{"Ignore drops it from the start: the cheapest type", Policies{IgnorePreferences: true}, "c2a.large"},
	} {
		res := Schedule(Input{Pods: pods(1, "1", "1Gi", preferM2a), NodePools: []NodePoolInput{poolInput(nodePool("default", 0))}, Policies: tc.policies})
		if len(res.NewNodeClaims) != 1 || res.NewNodeClaims[0].InstanceTypes[0].Name != tc.wantFirst {
			t.Errorf("%s: NodeClaims %d, first type %v; want one, %s", tc.name, len(res.NewNodeClaims), res.NewNodeClaims[0].InstanceTypes[0].Name, tc.wantFirst)
		}
	}

	threeFamilies := func(minValues int) func(*karpv1.NodePool) {
		return func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{
				Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"c2a", "m2a", "r2a"}, MinValues: new(minValues)})
		}
	}
	// Only c2a and m2a exist: minValues 3 cannot be met.
	strict := Schedule(Input{Pods: pods(1, "1", "1Gi"), NodePools: []NodePoolInput{poolInput(nodePool("default", 0, threeFamilies(3)))}})
	if len(strict.NewNodeClaims) != 0 || len(strict.PodErrors) != 1 {
		t.Fatalf("Strict: %d NodeClaims, errors %v; want none and the pod pending", len(strict.NewNodeClaims), errorsOf(strict))
	}
	for _, err := range strict.PodErrors {
		if !strings.Contains(err.Error(), "minValues 3 not met, only 2 values [c2a m2a] available") {
			t.Errorf("Strict: the pod's error %q does not say which minValues", err)
		}
	}
	bestEffort := Schedule(Input{Pods: pods(1, "1", "1Gi"), NodePools: []NodePoolInput{poolInput(nodePool("default", 0, threeFamilies(3)))},
		Policies: Policies{MinValuesBestEffort: true}})
	if len(bestEffort.NewNodeClaims) != 1 || len(bestEffort.PodErrors) != 0 {
		t.Fatalf("BestEffort: %d NodeClaims, errors %v; want one", len(bestEffort.NewNodeClaims), errorsOf(bestEffort))
	}
	nodeClaim := bestEffort.NewNodeClaims[0].ToNodeClaim()
	if got := nodeClaim.Annotations[karpv1.NodeClaimMinValuesRelaxedAnnotationKey]; got != "true" {
		t.Errorf("BestEffort: %s = %q, want true", karpv1.NodeClaimMinValuesRelaxedAnnotationKey, got)
	}
	for _, r := range nodeClaim.Spec.Requirements {
		if r.Key == kcv1.LabelInstanceFamily && (r.MinValues == nil || *r.MinValues != 2) {
			t.Errorf("BestEffort: the NodeClaim's %s requirement %+v, want minValues lowered to the 2 families there are", r.Key, r)
		}
	}
	met := Schedule(Input{Pods: pods(1, "1", "1Gi"), NodePools: []NodePoolInput{poolInput(nodePool("default", 0, threeFamilies(2)))},
		Policies: Policies{MinValuesBestEffort: true}})
	if got := met.NewNodeClaims[0].ToNodeClaim().Annotations[karpv1.NodeClaimMinValuesRelaxedAnnotationKey]; got != "false" {
		t.Errorf("BestEffort with minValues met: %s = %q, want false", karpv1.NodeClaimMinValuesRelaxedAnnotationKey, got)
	}
}

// TestDaemonSetOverheadOnNewNodes: a DaemonSet that requires the labels every launched node
// gets once registered and initialized runs on a new NodeClaim, and one whose preferred node
// affinity names a label no node has still runs there: both are counted in its requests.
func TestDaemonSetOverheadOnNewNodes(t *testing.T) {
	daemon := func(name string, affinity *corev1.NodeAffinity) *corev1.Pod {
		p := pod("500m", "64Mi")
		p.Name = name
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: affinity}
		return p
	}
	requiresInitialized := daemon("agent", &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: karpv1.LabelInitialized, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}}}}})
	prefersNowhere := daemon("logs", &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
		Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "example.com/no-such-label", Operator: corev1.NodeSelectorOpExists}}}}}})
	res := Schedule(Input{Pods: pods(1, "1", "1Gi"), NodePools: []NodePoolInput{poolInput(nodePool("default", 0))}, DaemonSetPods: []*corev1.Pod{requiresInitialized, prefersNowhere}})
	if len(res.NewNodeClaims) != 1 {
		t.Fatalf("%d NodeClaims, want 1: %v", len(res.NewNodeClaims), errorsOf(res))
	}
	if got := res.NewNodeClaims[0].Requests[corev1.ResourceCPU]; got.Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("cpu requests %s, want 2: the pod's 1 and both DaemonSets' 500m", got.String())
	}
}

// TestResourceClaimsAreNotProvisionedFor: a pod that requests dynamic resources gets no node,
// and says why, instead of a node without the device.
func TestResourceClaimsAreNotProvisionedFor(t *testing.T) {
	gpu := pod("1", "1Gi", func(p *corev1.Pod) {
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: new("single-gpu")}}
	})
	res := Schedule(Input{Pods: []*corev1.Pod{gpu}, NodePools: []NodePoolInput{poolInput(nodePool("default", 0))}})
	if len(res.NewNodeClaims) != 0 || res.PodErrors[gpu] == nil || !strings.Contains(res.PodErrors[gpu].Error(), "dynamic resources") {
		t.Errorf("%d NodeClaims, error %v; want none, and the pod told why", len(res.NewNodeClaims), res.PodErrors[gpu])
	}
}

// TestPodLevelRequestsSizeTheNodeClaim: a pod whose requests are set for the whole pod
// (spec.resources, pod-level resources) is sized by them, as the kube-scheduler sizes it, and
// not by its containers' much smaller ones: its NodeClaim offers only types that fit 6 vCPUs.
func TestPodLevelRequestsSizeTheNodeClaim(t *testing.T) {
	sized := pod("100m", "128Mi", func(p *corev1.Pod) {
		p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("6"), corev1.ResourceMemory: resource.MustParse("8Gi"),
		}}
	})
	res := Schedule(Input{Pods: []*corev1.Pod{sized}, NodePools: []NodePoolInput{poolInput(nodePool("default", 0))}})
	if len(res.NewNodeClaims) != 1 {
		t.Fatalf("%d NodeClaims, errors %v; want 1", len(res.NewNodeClaims), errorsOf(res))
	}
	nodeClaim := res.NewNodeClaims[0]
	if cpu := nodeClaim.Requests[corev1.ResourceCPU]; cpu.Cmp(resource.MustParse("6")) < 0 {
		t.Errorf("NodeClaim requests cpu %s, want at least the pod's 6", cpu.String())
	}
	for _, it := range nodeClaim.InstanceTypes {
		if cpu := it.Capacity[corev1.ResourceCPU]; cpu.Value() < 8 {
			t.Errorf("instance type %s (%d vCPUs) offered for a pod that requests 6", it.Name, cpu.Value())
		}
	}
}

// TestPodCapacityOpensMoreNodeClaims: instance types whose pods capacity is 3 (a KCNodeClass's
// kubelet.maxPods: 3, which instancetype turns into that capacity) take at most 3 pods each,
// however small the pods: 7 of them need 3 NodeClaims.
func TestPodCapacityOpensMoreNodeClaims(t *testing.T) {
	types := fakeTypes()
	for _, it := range types {
		it.Capacity[corev1.ResourcePods] = resource.MustParse("3")
	}
	res := Schedule(Input{Pods: pods(7, "10m", "16Mi"), NodePools: []NodePoolInput{{NodePool: nodePool("default", 0), InstanceTypes: types}}})
	if len(res.PodErrors) > 0 {
		t.Fatalf("errors %v", errorsOf(res))
	}
	if len(res.NewNodeClaims) != 3 {
		t.Errorf("%d NodeClaims, want 3 for 7 pods at 3 pods a node", len(res.NewNodeClaims))
	}
	for _, nodeClaim := range res.NewNodeClaims {
		if len(nodeClaim.Pods) > 3 {
			t.Errorf("a NodeClaim holds %d pods; its types take 3", len(nodeClaim.Pods))
		}
	}
}
