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
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

var web = map[string]string{"app": "web"}

func withLabels(l map[string]string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Labels = maps.Clone(l) }
}

func withSpread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, minDomains *int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, MinDomains: minDomains,
			LabelSelector: &metav1.LabelSelector{MatchLabels: web},
		})
	}
}

func affinity(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

func withPodAffinity(key string, sel map[string]string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: sel}})
	}
}

func withAntiAffinity(key string, sel map[string]string, preferred bool) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		term := corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: sel}}
		if preferred {
			a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.WeightedPodAffinityTerm{Weight: 10, PodAffinityTerm: term})
			return
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
}

func withPreferredZone(weight int32, zone string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}},
			}}})
	}
}

func withRequiredZoneTerms(zones ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		a := affinity(p)
		sel := &corev1.NodeSelector{}
		for _, z := range zones {
			sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{z}},
			}})
		}
		a.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}
	}
}

// zonesOf returns, per NodeClaim in order, its zone requirement ("a|b" when still open) and
// how many pods it holds, e.g. "kr-central-2-a:2".
func zonesOf(res *Results) []string {
	var out []string
	for _, n := range res.NewNodeClaims {
		out = append(out, fmt.Sprintf("%s:%d", strings.Join(n.Requirements.Get(corev1.LabelTopologyZone).Values(), "|"), len(n.Pods)))
	}
	return out
}

// podsPerZone counts the pods of the new NodeClaims by their (single) zone.
func podsPerZone(t *testing.T, res *Results) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, n := range res.NewNodeClaims {
		z := n.Requirements.Get(corev1.LabelTopologyZone).Values()
		if len(z) != 1 {
			t.Fatalf("a NodeClaim holding spread or affinity pods must be narrowed to one zone, got %v", z)
		}
		out[z[0]] += len(n.Pods)
	}
	return out
}

// errorsOf renders pod errors by pod name.
func errorsOf(res *Results) map[string]string {
	out := map[string]string{}
	for p, err := range res.PodErrors {
		out[p.Name] = err.Error()
	}
	return out
}

func runningNode(name, zone, cpu string, bound ...*corev1.Pod) ExistingNode {
	return ExistingNode{
		ID:          destination.NodeNamed(name),
		Labels:      map[string]string{corev1.LabelTopologyZone: zone, corev1.LabelHostname: name, karpv1.LabelNodePool: "default"},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")},
		Pods:        bound,
	}
}

// inFlightNode is a NodeClaim launched in zone whose node has not registered yet.
func inFlightNode(name, zone, cpu string, bound ...*corev1.Pod) ExistingNode {
	n := runningNode(name, zone, cpu, bound...)
	n.ID = destination.NodeClaimNamed(name)
	return n
}

func TestTopologySpread(t *testing.T) {
	def := []NodePoolInput{poolInput(nodePool("default", 0))}

	t.Run("zonal maxSkew 1 spreads evenly over the three zones", func(t *testing.T) {
		res := Schedule(Input{Pods: pods(7, "1", "1Gi", withLabels(web), withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, nil)), NodePools: def})
		if len(res.PodErrors) > 0 {
			t.Fatalf("errors: %v", errorsOf(res))
		}
		got := podsPerZone(t, res)
		counts := []int{got[zoneA], got[zoneB], got[zoneC]}
		if slices.Max(counts)-slices.Min(counts) > 1 || counts[0]+counts[1]+counts[2] != 7 {
			t.Errorf("pods per zone = %v, want 7 pods with a skew of at most 1", got)
		}
	})

	t.Run("pods already running count, so new ones go to the emptier zones first", func(t *testing.T) {
		running := pods(2, "100m", "100Mi", withLabels(web))
		full := runningNode("node-a", zoneA, "200m", running...)
		full.Requested = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}
		res := Schedule(Input{
			Pods:          pods(4, "1", "1Gi", withLabels(web), withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, nil)),
			NodePools:     def,
			ExistingNodes: []ExistingNode{full},
		})
		got := podsPerZone(t, res)
		if got[zoneA] != 0 || got[zoneB] != 2 || got[zoneC] != 2 {
			t.Errorf("pods per zone = %v, want 0/2/2 (zone a already has 2)", got)
		}
	})

	t.Run("hostname maxSkew 1 puts each pod on its own node, other pods share", func(t *testing.T) {
		spread := pods(3, "1", "1Gi", withLabels(web), withSpread(corev1.LabelHostname, 1, corev1.DoNotSchedule, nil))
		plain := pods(3, "100m", "100Mi")
		res := Schedule(Input{Pods: append(spread, plain...), NodePools: def})
		if len(res.NewNodeClaims) != 3 || len(res.PodErrors) > 0 {
			t.Fatalf("NodeClaims = %d (want 3), errors %v", len(res.NewNodeClaims), errorsOf(res))
		}
		for _, n := range res.NewNodeClaims {
			count := 0
			for _, p := range n.Pods {
				if p.Labels["app"] == "web" {
					count++
				}
			}
			if count != 1 {
				t.Errorf("a NodeClaim holds %d spread pods, want 1", count)
			}
		}
	})

	t.Run("minDomains larger than the zones offered caps each zone at maxSkew", func(t *testing.T) {
		twoZones := poolInput(nodePool("default", 0, func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{
				Key: corev1.LabelTopologyZone, Operator: karpv1.NodeSelectorOpIn, Values: []string{zoneA, zoneB}})
		}))
		res := Schedule(Input{Pods: pods(4, "1", "1Gi", withLabels(web), withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, ptr.To[int32](3))), NodePools: []NodePoolInput{twoZones}})
		if len(res.PodErrors) != 2 {
			t.Fatalf("errors = %d, want 2 (one pod per zone while fewer than 3 zones exist)", len(errorsOf(res)))
		}
		for _, err := range res.PodErrors {
			if !strings.Contains(err.Error(), "topology spread on topology.kubernetes.io/zone (maxSkew 1) for pods matching {app=web} cannot be satisfied") {
				t.Errorf("error = %v", err)
			}
		}
	})

	t.Run("a spread over a key no node has blocks DoNotSchedule and relaxes ScheduleAnyway", func(t *testing.T) {
		strict := pod("1", "1Gi", withLabels(web), withSpread("example.com/rack", 1, corev1.DoNotSchedule, nil))
		soft := pod("1", "1Gi", withLabels(web), withSpread("example.com/rack", 1, corev1.ScheduleAnyway, nil))
		res := Schedule(Input{Pods: []*corev1.Pod{strict, soft}, NodePools: def})
		if res.PodErrors[strict] == nil || res.PodErrors[soft] != nil {
			t.Errorf("errors = %v, want only the DoNotSchedule pod refused", errorsOf(res))
		}
	})

	t.Run("a spread keeps the pod's own node affinity", func(t *testing.T) {
		res := Schedule(Input{Pods: pods(3, "1", "1Gi", withLabels(web), withNodeSelector(corev1.LabelTopologyZone, zoneC),
			withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, nil)), NodePools: def})
		if got := podsPerZone(t, res); got[zoneC] != 3 || len(res.PodErrors) > 0 {
			t.Errorf("pods per zone = %v, errors %v; want all 3 in zone c (only eligible domain)", got, errorsOf(res))
		}
	})
}

func TestPodAffinity(t *testing.T) {
	def := []NodePoolInput{poolInput(nodePool("default", 0))}

	t.Run("zonal self-affinity keeps every pod in one zone", func(t *testing.T) {
		res := Schedule(Input{Pods: pods(40, "1", "1Gi", withLabels(web), withPodAffinity(corev1.LabelTopologyZone, web)), NodePools: def})
		if got := podsPerZone(t, res); len(got) != 1 || len(res.PodErrors) > 0 {
			t.Errorf("pods per zone = %v, errors %v; want one zone", got, errorsOf(res))
		}
	})

	t.Run("affinity to a running pod follows it to its zone", func(t *testing.T) {
		db := pod("100m", "100Mi", withLabels(map[string]string{"app": "db"}))
		node := runningNode("node-b", zoneB, "100m", db)
		node.Requested = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
		res := Schedule(Input{Pods: pods(2, "1", "1Gi", withPodAffinity(corev1.LabelTopologyZone, map[string]string{"app": "db"})), NodePools: def, ExistingNodes: []ExistingNode{node}})
		if got := zonesOf(res); !slices.Equal(got, []string{zoneB + ":2"}) {
			t.Errorf("NodeClaims = %v, want one in zone b", got)
		}
	})

	t.Run("affinity to pods that exist nowhere is refused with the term", func(t *testing.T) {
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi", withPodAffinity(corev1.LabelTopologyZone, map[string]string{"app": "missing"}))}, NodePools: def})
		if len(res.PodErrors) != 1 {
			t.Fatalf("errors = %v", errorsOf(res))
		}
		for _, err := range res.PodErrors {
			if !strings.Contains(err.Error(), "pod affinity on topology.kubernetes.io/zone for pods matching {app=missing} cannot be satisfied") {
				t.Errorf("error = %v", err)
			}
		}
	})

	t.Run("hostname affinity to a running pod lands on its node", func(t *testing.T) {
		db := pod("100m", "100Mi", withLabels(map[string]string{"app": "db"}))
		node := runningNode("node-b", zoneB, "8", db)
		other := runningNode("node-a", zoneA, "8")
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi", withPodAffinity(corev1.LabelHostname, map[string]string{"app": "db"}))}, NodePools: def, ExistingNodes: []ExistingNode{other, node}})
		if len(res.ExistingPlacements[destination.NodeNamed("node-b")]) != 1 || len(res.NewNodeClaims) != 0 {
			t.Errorf("placements = %v, NodeClaims %d; want the pod on node-b", res.ExistingPlacements, len(res.NewNodeClaims))
		}
	})

	t.Run("namespaceSelector matches pods in the selected namespaces", func(t *testing.T) {
		db := pod("100m", "100Mi", withLabels(map[string]string{"app": "db"}))
		db.Namespace = "data"
		node := runningNode("node-b", zoneB, "100m", db)
		node.Requested = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
		p := pod("1", "1Gi", withPodAffinity(corev1.LabelTopologyZone, map[string]string{"app": "db"}))
		p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "data"}}
		res := Schedule(Input{Pods: []*corev1.Pod{p}, NodePools: def, ExistingNodes: []ExistingNode{node},
			NamespaceLabels: map[string]map[string]string{"data": {"tier": "data"}, "default": {}}})
		if got := zonesOf(res); !slices.Equal(got, []string{zoneB + ":1"}) {
			t.Errorf("NodeClaims = %v, errors %v; want one in zone b", got, errorsOf(res))
		}
	})
}

func TestPodAntiAffinity(t *testing.T) {
	def := []NodePoolInput{poolInput(nodePool("default", 0))}

	t.Run("hostname anti-affinity gives each pod a node; unrelated pods share", func(t *testing.T) {
		anti := pods(4, "1", "1Gi", withLabels(web), withAntiAffinity(corev1.LabelHostname, web, false))
		res := Schedule(Input{Pods: append(anti, pods(4, "100m", "100Mi")...), NodePools: def})
		if len(res.NewNodeClaims) != 4 || len(res.PodErrors) > 0 {
			t.Errorf("NodeClaims = %d, errors %v; want 4", len(res.NewNodeClaims), errorsOf(res))
		}
	})

	t.Run("zonal anti-affinity: one pod per zone, the fourth refused", func(t *testing.T) {
		res := Schedule(Input{Pods: pods(4, "1", "1Gi", withLabels(web), withAntiAffinity(corev1.LabelTopologyZone, web, false)), NodePools: def})
		if len(res.PodErrors) != 1 {
			t.Fatalf("errors = %v, want 1", errorsOf(res))
		}
		if got := podsPerZone(t, res); got[zoneA] != 1 || got[zoneB] != 1 || got[zoneC] != 1 {
			t.Errorf("pods per zone = %v", got)
		}
	})

	t.Run("a running pod's anti-affinity keeps matching pods off its node", func(t *testing.T) {
		guard := pod("100m", "100Mi", withLabels(map[string]string{"app": "guard"}), withAntiAffinity(corev1.LabelHostname, web, false))
		node := runningNode("node-a", zoneA, "8", guard)
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi", withLabels(web)), pod("1", "1Gi")}, NodePools: def, ExistingNodes: []ExistingNode{node}})
		nodeA := destination.NodeNamed("node-a")
		if len(res.ExistingPlacements[nodeA]) != 1 || res.ExistingPlacements[nodeA][0].Labels["app"] == "web" || len(res.NewNodeClaims) != 1 {
			t.Errorf("node-a got %v, NodeClaims %d; want only the unlabelled pod on node-a", res.ExistingPlacements[nodeA], len(res.NewNodeClaims))
		}
	})

	t.Run("a pod placed with anti-affinity in this run repels matching pods placed after it", func(t *testing.T) {
		owner := pod("2", "1Gi", withLabels(map[string]string{"app": "guard"}), withAntiAffinity(corev1.LabelHostname, web, false))
		follower := pod("1", "1Gi", withLabels(web))
		res := Schedule(Input{Pods: []*corev1.Pod{owner, follower}, NodePools: def})
		if len(res.NewNodeClaims) != 2 {
			t.Errorf("NodeClaims = %d, want 2 (the web pod may not join the guard)", len(res.NewNodeClaims))
		}
	})
}

func TestPreferences(t *testing.T) {
	def := []NodePoolInput{poolInput(nodePool("default", 0))}

	t.Run("a satisfiable preferred zone is honoured", func(t *testing.T) {
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi", withPreferredZone(10, zoneB), withPreferredZone(50, zoneC))}, NodePools: def})
		if got := zonesOf(res); !slices.Equal(got, []string{zoneC + ":1"}) {
			t.Errorf("NodeClaims = %v, want zone c (the heaviest preference)", got)
		}
	})

	t.Run("an unsatisfiable preferred zone is relaxed, then the next one applies", func(t *testing.T) {
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi", withPreferredZone(50, "kr-central-9-z"), withPreferredZone(10, zoneB))}, NodePools: def})
		if got := zonesOf(res); !slices.Equal(got, []string{zoneB + ":1"}) || len(res.PodErrors) > 0 {
			t.Errorf("NodeClaims = %v, errors %v; want zone b", got, errorsOf(res))
		}
	})

	t.Run("required node-affinity terms are tried in turn", func(t *testing.T) {
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi", withRequiredZoneTerms("kr-central-9-z", zoneC))}, NodePools: def})
		if got := zonesOf(res); !slices.Equal(got, []string{zoneC + ":1"}) {
			t.Errorf("NodeClaims = %v, errors %v; want zone c from the second term", got, errorsOf(res))
		}
	})

	t.Run("preferred zonal anti-affinity is relaxed for the fourth pod", func(t *testing.T) {
		res := Schedule(Input{Pods: pods(4, "1", "1Gi", withLabels(web), withAntiAffinity(corev1.LabelTopologyZone, web, true)), NodePools: def})
		if len(res.PodErrors) > 0 {
			t.Errorf("errors = %v, want all placed", errorsOf(res))
		}
	})

	t.Run("PreferNoSchedule taints repel until nothing else fits", func(t *testing.T) {
		soft := corev1.Taint{Key: "spot-like", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule}
		preferred := nodePool("soft", 10, func(np *karpv1.NodePool) { np.Spec.Template.Spec.Taints = []corev1.Taint{soft} })
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi")}, NodePools: []NodePoolInput{poolInput(preferred), poolInput(nodePool("default", 0))}})
		if len(res.NewNodeClaims) != 1 || res.NewNodeClaims[0].NodePoolName != "default" {
			t.Errorf("want the untainted NodePool despite its lower weight")
		}
		res = Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi")}, NodePools: []NodePoolInput{poolInput(preferred)}})
		if len(res.NewNodeClaims) != 1 || len(res.PodErrors) > 0 {
			t.Errorf("want the tainted NodePool when it is the only one: %v", errorsOf(res))
		}
	})
}

func TestScheduleMinValues(t *testing.T) {
	families := func(np *karpv1.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{
			Key: kcv1.LabelInstanceFamily, Operator: karpv1.NodeSelectorOpExists, MinValues: new(2)})
	}
	t.Run("a pod only one family can hold is refused with the minValues reason", func(t *testing.T) {
		// 100 GiB fits only m2a.8xlarge (128 GiB); c2a tops out at 64 GiB.
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "100Gi")}, NodePools: []NodePoolInput{poolInput(nodePool("default", 0, families))}})
		if len(res.PodErrors) != 1 {
			t.Fatalf("errors = %v", errorsOf(res))
		}
		for _, err := range res.PodErrors {
			if !strings.Contains(err.Error(), "minValues 2 not met") {
				t.Errorf("error = %v", err)
			}
		}
	})

	t.Run("capping the instance types keeps the families minValues asks for", func(t *testing.T) {
		var types []*cloudprovider.InstanceType
		for i := range 80 {
			types = append(types, fakeType("c2a", fmt.Sprintf("s%02d", i), 4, 2, 0.01+0.0001*float64(i)))
		}
		types = append(types, fakeType("m2a", "xlarge", 4, 4, 0.5))
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi")}, NodePools: []NodePoolInput{{NodePool: nodePool("default", 0, families), InstanceTypes: types}}})
		if len(res.NewNodeClaims) != 1 {
			t.Fatalf("errors = %v", errorsOf(res))
		}
		n := res.NewNodeClaims[0]
		if len(n.InstanceTypes) != MaxInstanceTypes || n.InstanceTypes[len(n.InstanceTypes)-1].Name != "m2a.xlarge" {
			t.Errorf("instance types = %d, last %s; want %d ending with the one m2a type", len(n.InstanceTypes), n.InstanceTypes[len(n.InstanceTypes)-1].Name, MaxInstanceTypes)
		}
	})
}

func TestExtendedResourcesAndVolumes(t *testing.T) {
	gpuType := fakeType("gn1i", "xlarge", 8, 4, 0.5)
	gpuType.Capacity["nvidia.com/gpu"] = resource.MustParse("1")
	pool := NodePoolInput{NodePool: nodePool("default", 0), InstanceTypes: append(fakeTypes(), gpuType)}

	t.Run("a GPU pod gets the GPU type; a pod without one gets the cheapest CPU type", func(t *testing.T) {
		gpuPod := pod("1", "1Gi", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"] = resource.MustParse("1")
		})
		res := Schedule(Input{Pods: []*corev1.Pod{gpuPod}, NodePools: []NodePoolInput{pool}})
		if len(res.NewNodeClaims) != 1 || len(res.NewNodeClaims[0].InstanceTypes) != 1 || res.NewNodeClaims[0].InstanceTypes[0].Name != "gn1i.xlarge" {
			t.Errorf("GPU pod: NodeClaims %d, errors %v; want one of gn1i.xlarge only", len(res.NewNodeClaims), errorsOf(res))
		}
		res = Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi")}, NodePools: []NodePoolInput{pool}})
		if len(res.NewNodeClaims) != 1 || res.NewNodeClaims[0].InstanceTypes[0].Name != "c2a.large" {
			t.Errorf("CPU pod: want c2a.large first")
		}
	})

	t.Run("two GPUs fit no type and say so", func(t *testing.T) {
		res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"] = resource.MustParse("2")
		})}, NodePools: []NodePoolInput{pool}})
		for _, err := range res.PodErrors {
			if !strings.Contains(err.Error(), "no instance type fits") || !strings.Contains(err.Error(), "2 nvidia.com/gpu") {
				t.Errorf("error = %v", err)
			}
		}
		if len(res.PodErrors) != 1 {
			t.Errorf("errors = %v", errorsOf(res))
		}
	})

	t.Run("a volume's zone places the pod's NodeClaim there", func(t *testing.T) {
		p := pod("1", "1Gi")
		res := Schedule(Input{Pods: []*corev1.Pod{p}, NodePools: []NodePoolInput{pool},
			VolumeRequirements: map[*corev1.Pod]scheduling.Requirements{p: scheduling.NewRequirements(scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zoneB))}})
		if got := zonesOf(res); !slices.Equal(got, []string{zoneB + ":1"}) {
			t.Errorf("NodeClaims = %v, errors %v; want zone b", got, errorsOf(res))
		}
	})
}

func TestUnavailableNodePoolIsNamedInTheReason(t *testing.T) {
	blocked := poolInput(nodePool("checkout", 10))
	blocked.Unavailable = `not ready: NodeClassReady: KCNodeClass "checkout": no subnet matches the selector terms`
	res := Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi")}, NodePools: []NodePoolInput{blocked, poolInput(nodePool("default", 0))}})
	if len(res.NewNodeClaims) != 1 || res.NewNodeClaims[0].NodePoolName != "default" {
		t.Fatalf("want the pod on the ready NodePool, errors %v", errorsOf(res))
	}
	res = Schedule(Input{Pods: []*corev1.Pod{pod("1", "1Gi")}, NodePools: []NodePoolInput{blocked}})
	for _, err := range res.PodErrors {
		if !strings.Contains(err.Error(), `nodepool checkout: not ready: NodeClassReady: KCNodeClass "checkout": no subnet matches`) {
			t.Errorf("error = %v", err)
		}
	}
	if len(res.PodErrors) != 1 {
		t.Errorf("errors = %v", errorsOf(res))
	}
}

// TestGroupIndex checks that the index offers every group that matches a pod, each once.
func TestGroupIndex(t *testing.T) {
	selectors := []*metav1.LabelSelector{
		{MatchLabels: map[string]string{"app": "web"}},
		{MatchLabels: map[string]string{"app": "web", "tier": "front"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "db", "web"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpDoesNotExist}, {Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"back"}}}},
		{},
		nil,
	}
	topo := newTopology(nil)
	for i, sel := range selectors {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprint(i)}, Spec: corev1.PodSpec{Affinity: &corev1.Affinity{
			PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelTopologyZone, LabelSelector: sel}}}}}}
		if _, err := topo.termsOf(pod); err != nil {
			t.Fatal(err)
		}
	}
	for _, podLabels := range []map[string]string{
		nil, {"app": "web"}, {"app": "web", "tier": "front"}, {"app": "db", "tier": "back"}, {"tier": "back"}, {"app": "cache", "a": "1", "tier": "back"},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Labels: podLabels}}
		offered := map[*topologyGroup]int{}
		topo.index().Each(pod.Labels, func(g *topologyGroup) { offered[g]++ })
		for _, g := range topo.ordered {
			if offered[g] > 1 {
				t.Errorf("pod %v: group %s offered %d times", podLabels, g.describe, offered[g])
			}
			if g.matches(pod) && offered[g] == 0 {
				t.Errorf("pod %v: group %s matches it and is not offered", podLabels, g.describe)
			}
		}
	}
}

// TestNodeClaimForOthersKeepsToTheSpreadsDomains: the web pods spread over the zones their
// NodePool reaches (a and b), two in each. A pod of a tainted NodePool that reaches zone c too
// needs a node; the kube-scheduler counts that node for the web spread whatever its taints
// (nodeTaintsPolicy Ignore), so in zone c it would be an empty domain against which the web
// pods already placed break maxSkew 1. The NodeClaim keeps to zones a and b.
func TestNodeClaimForOthersKeepsToTheSpreadsDomains(t *testing.T) {
	inZones := func(zones ...string) func(*karpv1.NodePool) {
		return func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelTopologyZone, Operator: karpv1.NodeSelectorOpIn, Values: zones})
		}
	}
	in := Input{
		Pods: append(pods(4, "3", "1Gi", withLabels(web), withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, nil)),
			pod("100m", "128Mi", withToleration(checkoutTaint.Key, checkoutTaint.Value), withNodeSelector(karpv1.LabelNodePool, "checkout"))),
		NodePools: []NodePoolInput{
			poolInput(nodePool("default", 0, inZones(zoneA, zoneB))),
			poolInput(nodePool("checkout", 0, withTaint)),
		},
	}
	res := Schedule(in)
	if len(res.PodErrors) > 0 {
		t.Fatalf("errors: %v", errorsOf(res))
	}
	for _, n := range res.NewNodeClaims {
		if n.NodePoolName != "checkout" {
			continue
		}
		if zones := n.Requirements.Get(corev1.LabelTopologyZone); zones.Has(zoneC) {
			t.Errorf("the checkout NodeClaim may launch in %v: in zone c it would unbalance the web spread (%v)", zones.Values(), zonesOf(res))
		}
		return
	}
	t.Fatalf("no checkout NodeClaim: %v", zonesOf(res))
}

// TestHostnameSpreadOfFullNodePools: the web pods' only NodePool is at its cpu limit, so no
// new node (a hostname with no pods) can come; like the kube-scheduler, the hostname spread is
// balanced over the nodes there are, one web pod each, and a third joins one of them.
func TestHostnameSpreadOfFullNodePools(t *testing.T) {
	full := poolInput(nodePool("default", 0, func(np *karpv1.NodePool) {
		np.Spec.Limits = karpv1.Limits(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")})
	}))
	full.Remaining = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}
	in := Input{
		Pods:      []*corev1.Pod{pod("1", "1Gi", withLabels(web), withSpread(corev1.LabelHostname, 1, corev1.DoNotSchedule, nil))},
		NodePools: []NodePoolInput{full},
		ExistingNodes: []ExistingNode{
			runningNode("node-1", zoneA, "4", pod("1", "1Gi", withLabels(web))),
			runningNode("node-2", zoneB, "4", pod("1", "1Gi", withLabels(web))),
		},
	}
	res := Schedule(in)
	if len(res.PodErrors) > 0 || len(res.NewNodeClaims) > 0 {
		t.Fatalf("errors %v, new NodeClaims %v: the pod joins a node", errorsOf(res), zonesOf(res))
	}
	full.Remaining = nil
	in.NodePools = []NodePoolInput{full}
	if res := Schedule(in); len(res.NewNodeClaims) != 1 {
		t.Errorf("with room in the NodePool the pod gets a node of its own, got %v (existing %v)", zonesOf(res), res.ExistingPlacements)
	}
}
