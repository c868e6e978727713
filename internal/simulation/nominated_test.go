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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// TestNominatedPodsKeepTheirNodeClaims: the judge's "launched twice" case. Two NodeClaims are
// in flight: x (4 CPUs) opened for pod b, y (1.5 CPUs) for pod a; both use host port 80. A new
// pod c (1.2 CPUs, port 80) sorts before a. Without nominations c takes y, a finds no room
// and gets a third NodeClaim although y was opened for it; with them, a and b keep theirs and
// only c, which is new, gets one.
func TestNominatedPodsKeepTheirNodeClaims(t *testing.T) {
	port80 := func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}}
	}
	a, b, c := pod("1", "1Gi", port80, named("a")), pod("3", "1Gi", port80, named("b")), pod("1200m", "1Gi", port80, named("c"))
	input := func(nominated map[types.UID]destination.Destination) Input {
		return Input{
			Pods:          []*corev1.Pod{a, b, c},
			NodePools:     []NodePoolInput{poolInput(nodePool("default", 0))},
			ExistingNodes: []ExistingNode{inFlightNode("x", zoneA, "4"), inFlightNode("y", zoneA, "1500m")},
			Nominated:     nominated,
		}
	}
	where := func(res *Results) map[string]destination.Destination {
		out := map[string]destination.Destination{}
		for _, p := range res.Placed {
			out[p.Pod.Name] = p.ExistingNode
		}
		return out
	}
	if got := where(Schedule(input(nil))); !got["a"].IsZero() {
		t.Fatalf("without nominations: %v; the case no longer shows the double launch", got)
	}
	x, y := destination.NodeClaimNamed("x"), destination.NodeClaimNamed("y")
	got := where(Schedule(input(map[types.UID]destination.Destination{"a": y, "b": x})))
	if got["a"] != y || got["b"] != x || !got["c"].IsZero() {
		t.Errorf("with nominations: %v, want a on y, b on x, c on a new NodeClaim", got)
	}
}

// TestNominatedPodClosesZonesWithoutNodes: NodeClaim x, launched in zone a for web pod p, is
// coming up; zones a and c each hold a web pod already and zone b has no node. The zone spread
// (maxSkew 1) counts b, where the NodePool can launch, with no pods: p on x would be 2 against
// 0. The kube-scheduler counts nodes only and will bind p to x, so p keeps x, zone b is closed
// to the spread for the run, and the next web pod goes to c, not to a new node in b.
func TestNominatedPodClosesZonesWithoutNodes(t *testing.T) {
	p, next := pod("1", "1Gi", webZoneSpread, named("p")), pod("1", "1Gi", webZoneSpread, named("next"))
	input := func(nominated map[types.UID]destination.Destination) Input {
		return Input{
			Pods:      []*corev1.Pod{p, next},
			NodePools: []NodePoolInput{poolInput(nodePool("default", 0))},
			ExistingNodes: []ExistingNode{
				inFlightNode("x", zoneA, "4", pod("1", "1Gi", withLabels(web))),
				runningNode("node-c", zoneC, "4", pod("1", "1Gi", withLabels(web))),
			},
			Nominated: nominated,
		}
	}
	if res := Schedule(input(nil)); len(res.NewNodeClaims) == 0 {
		t.Fatalf("without nominations p got no new NodeClaim: the case no longer shows the second launch (%v)", zonesOf(res))
	}
	x := destination.NodeClaimNamed("x")
	res := Schedule(input(map[types.UID]destination.Destination{"p": x}))
	if len(res.PodErrors) > 0 {
		t.Fatalf("errors: %v", errorsOf(res))
	}
	placed := map[string]destination.Destination{}
	for _, placement := range res.Placed {
		placed[placement.Pod.Name] = placement.ExistingNode
	}
	if placed["p"] != x || placed["next"] != destination.NodeNamed("node-c") {
		t.Errorf("placed %v, want p on NodeClaim x and next on node-c", placed)
	}
	if len(res.NewNodeClaims) > 0 {
		t.Errorf("new NodeClaims %v: zone b is closed to the spread", zonesOf(res))
	}
}

// TestZonesNoNodeIsLeftInAreClosed: the judge's seed 452. Zones a and b each hold a node of 2
// CPUs with a web pod; zone c has no node. Pod big opens NodeClaim n, which may launch in any zone and takes the
// NodePool's last CPU (held at its largest type); pod zonal, which asks for zone a, joins it,
// and n is in zone a from then on. A web pod with a zone spread (maxSkew 1) came after: zone c
// counted while n could still land there, and no NodeClaim can be launched there now. The
// kube-scheduler counts nodes only and will bind the web pod to the node in a or b: the
// simulation places it there too, rather than report it pending.
func TestZonesNoNodeIsLeftInAreClosed(t *testing.T) {
	pool := poolInput(nodePool("default", 0))
	pool.Remaining = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32")}
	res := Schedule(Input{
		Pods: []*corev1.Pod{
			pod("10", "1Gi", named("big")),
			pod("3", "1Gi", named("zonal"), func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: zoneA} }),
			pod("1", "1Gi", named("web"), webZoneSpread),
		},
		NodePools: []NodePoolInput{pool},
		ExistingNodes: []ExistingNode{
			runningNode("node-a", zoneA, "2", pod("1", "1Gi", withLabels(web))),
			runningNode("node-b", zoneB, "2", pod("1", "1Gi", withLabels(web))),
		},
	})
	placed := map[string]string{}
	for _, p := range res.Placed {
		placed[p.Pod.Name] = p.ExistingNode.Name
		if p.NodeClaim != nil {
			placed[p.Pod.Name] = "n in " + strings.Join(p.NodeClaim.Requirements.Get(corev1.LabelTopologyZone).Values(), ",")
		}
	}
	if placed["big"] != "n in "+zoneA || placed["zonal"] != "n in "+zoneA {
		t.Fatalf("placed %v, errors %v: the case no longer has n narrowed to zone a", placed, errorsOf(res))
	}
	if w := placed["web"]; w != "node-a" && w != "node-b" {
		t.Errorf("web placed on %q, errors %v; want node-a or node-b", w, errorsOf(res))
	}
}

// named names the pod, and gives it that UID.
func named(name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Name, p.UID = name, types.UID(name) }
}

// webZoneSpread makes the pod a web pod spread over zones with maxSkew 1.
func webZoneSpread(p *corev1.Pod) {
	withLabels(web)(p)
	withSpread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, nil)(p)
}

// TestNodeClaimThatWouldUnbalanceASpreadWaits: the judge's seeds 1514 (provisioning) and 1561
// (disruption). Web pods spread over zones (maxSkew 1) can only launch into zones a and b,
// where a node each already holds one of them; the run puts the new ones there, up to two
// in a zone. Pod c, which tolerates the dedicated NodePool's taint, can only launch in zone c,
// where no node is. Its NodeClaim would make zone c a domain of the web spread with no web pod
// (the spread counts tainted nodes: nodeTaintsPolicy Ignore), and the kube-scheduler would
// then refuse the web pods placed two to a zone. So pod c is not given a NodeClaim in this run.
func TestNodeClaimThatWouldUnbalanceASpreadWaits(t *testing.T) {
	inZones := func(zones ...string) func(*karpv1.NodePool) {
		return func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelTopologyZone, Operator: karpv1.NodeSelectorOpIn, Values: zones})
		}
	}
	res := Schedule(Input{
		Pods: append(pods(3, "1", "1Gi", webZoneSpread),
			pod("100m", "128Mi", named("c"), withToleration(checkoutTaint.Key, checkoutTaint.Value), withNodeSelector(corev1.LabelTopologyZone, zoneC))),
		NodePools: []NodePoolInput{poolInput(nodePool("web", 10, inZones(zoneA, zoneB))), poolInput(nodePool("dedicated", 0, inZones(zoneC), withTaint))},
		ExistingNodes: []ExistingNode{
			runningNode("node-a", zoneA, "4", pod("1", "1Gi", withLabels(web))),
			runningNode("node-b", zoneB, "4", pod("1", "1Gi", withLabels(web))),
		},
	})
	perNode := map[string]int{}
	for _, p := range res.Placed {
		if p.Pod.Labels["app"] == web["app"] {
			perNode[p.ExistingNode.Name]++
		}
	}
	if perNode["node-a"]+perNode["node-b"] != 3 {
		t.Fatalf("web pods placed %v, errors %v: the case no longer puts them on the nodes there are", perNode, errorsOf(res))
	}
	if zones := zonesOf(res); len(zones) > 0 {
		t.Errorf("NodeClaims opened in %v: a node in zone c would unbalance the web spread", zones)
	}
	if err := errorsOf(res)["c"]; !strings.Contains(err, "would unbalance the topology spread on "+corev1.LabelTopologyZone) {
		t.Errorf("pod c: error %q, want one saying a node in zone c would unbalance the web spread", err)
	}
}
