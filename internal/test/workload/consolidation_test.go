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

package workload

import (
	"reflect"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// TestConsolidationCluster checks that the drawn cluster is what ConsolidationCluster promises.
func TestConsolidationCluster(t *testing.T) {
	const nodes = 1000
	c := ConsolidationCluster(nodes, 1)
	if again := ConsolidationCluster(nodes, 1); !reflect.DeepEqual(c, again) {
		t.Fatal("the same seed drew two different clusters")
	}
	if other := ConsolidationCluster(nodes, 2); reflect.DeepEqual(c.Pods, other.Pods) {
		t.Fatal("two seeds drew the same pods")
	}
	if len(c.Nodes) != nodes || len(c.NodeClaims) != nodes || len(c.NodePools) != 3 || len(c.DaemonSets) != 3 {
		t.Fatalf("%d nodes, %d NodeClaims, %d NodePools, %d DaemonSets", len(c.Nodes), len(c.NodeClaims), len(c.NodePools), len(c.DaemonSets))
	}
	if perNode := float64(len(c.Pods)) / nodes; perNode < 9 || perNode > 11 {
		t.Errorf("%.1f pods per node, want about 10", perNode)
	}
	for _, nodeClaim := range c.NodeClaims {
		if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeConsolidatable) {
			t.Fatalf("nodeclaim %s is not consolidatable", nodeClaim.Name)
		}
	}

	pods := map[string][]*corev1.Pod{}
	for _, pod := range c.Pods {
		pods[pod.Spec.NodeName] = append(pods[pod.Spec.NodeName], pod)
	}
	families := map[string]map[string]bool{}
	busy, underused := 0, 0
	for _, node := range c.Nodes {
		cpus, _ := strconv.Atoi(node.Labels[kcv1.LabelInstanceCPU])
		if cpus < 2 || cpus > 32 {
			t.Errorf("node %s has %d vCPUs", node.Name, cpus)
		}
		pool := node.Labels[karpv1.LabelNodePool]
		if families[pool] == nil {
			families[pool] = map[string]bool{}
		}
		families[pool][node.Labels[kcv1.LabelInstanceFamily]] = true
		var cpu, mem int64
		daemons := 0
		for _, pod := range pods[node.Name] {
			cpu += pod.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
			mem += pod.Spec.Containers[0].Resources.Requests.Memory().Value()
			if pod.OwnerReferences[0].Kind == "DaemonSet" {
				daemons++
			}
		}
		if daemons != len(c.DaemonSets) {
			t.Errorf("node %s runs %d DaemonSet pods", node.Name, daemons)
		}
		util := max(float64(cpu)/float64(node.Status.Allocatable.Cpu().MilliValue()), float64(mem)/float64(node.Status.Allocatable.Memory().Value()))
		switch {
		case util > 0.8:
			t.Errorf("node %s is %.0f%% requested", node.Name, 100*util)
		case util >= 0.55:
			busy++
		case util <= 0.45:
			underused++
		}
	}
	if busy < nodes*75/100 || underused < nodes/14 {
		t.Errorf("%d nodes busy (55-80%%) and %d underused, of %d", busy, underused, nodes)
	}
	if len(families["general"]) != 2 || len(families["compute"]) != 1 || len(families["memory"]) != 1 {
		t.Errorf("families by pool: %v", families)
	}

	// Spreads and anti-affinities hold; PodDisruptionBudgets come in every kind.
	type key struct{ namespace, app string }
	perZone := map[key]map[string]int{}
	kinds := map[key]string{}
	zoneOf := map[string]string{}
	for _, node := range c.Nodes {
		zoneOf[node.Name] = node.Labels[karpv1.LabelTopologyZone]
	}
	for _, pod := range c.Pods {
		k := key{pod.Namespace, pod.Labels["app"]}
		switch {
		case len(pod.Spec.TopologySpreadConstraints) > 0:
			kinds[k] = kindZoneSpread
		case pod.Spec.Affinity != nil && pod.Spec.Affinity.PodAntiAffinity != nil:
			kinds[k] = kindZoneAnti
		default:
			continue
		}
		if perZone[k] == nil {
			perZone[k] = map[string]int{}
		}
		perZone[k][zoneOf[pod.Spec.NodeName]]++
	}
	counted := map[string]int{}
	for k, zones := range perZone {
		counted[kinds[k]]++
		least, most := nodes, 0
		for _, z := range consolidationZones {
			least, most = min(least, zones[z]), max(most, zones[z])
		}
		if kinds[k] == kindZoneSpread && most-least > 1 {
			t.Errorf("%v is spread %v", k, zones)
		}
		if kinds[k] == kindZoneAnti && most > 1 {
			t.Errorf("%v runs %v pods per zone", k, zones)
		}
	}
	if counted[kindZoneSpread] == 0 || counted[kindZoneAnti] == 0 {
		t.Errorf("deployments by kind: %v", counted)
	}
	var minAvailable, maxUnavailable, blocking int
	for _, pdb := range c.PDBs {
		if pdb.Spec.MinAvailable != nil {
			minAvailable++
		} else {
			maxUnavailable++
		}
		if pdb.Status.DisruptionsAllowed == 0 {
			blocking++
		}
	}
	if minAvailable == 0 || maxUnavailable == 0 || blocking == 0 || blocking > len(c.PDBs)/5 {
		t.Errorf("%d PodDisruptionBudgets by minAvailable, %d by maxUnavailable, %d allow nothing", minAvailable, maxUnavailable, blocking)
	}
	t.Logf("%d nodes (%d busy, %d underused), %d pods, %d PodDisruptionBudgets (%d allow nothing), deployments with topology: %v",
		nodes, busy, underused, len(c.Pods), len(c.PDBs), blocking, counted)
}
