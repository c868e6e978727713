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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// TestSpreadCountsPodsItDoesNotOwn: pods a zone spread's selector matches but that do not own
// the spread are counted where they go. Plain pods labelled a go first, onto a NodeClaim
// whose zone is still open; spread pods that count pods labelled a follow. The spread must see
// the plain pods in the zone their NodeClaim gets, or the kube-scheduler refuses the spread
// pods placed beside them.
func TestSpreadCountsPodsItDoesNotOwn(t *testing.T) {
	own := map[string]string{"my-label": "a"}
	var spreadAndPlain []*corev1.Pod
	spreadAndPlain = append(spreadAndPlain, pods(6, "1", "1Gi", withLabels(own))...)
	spreadAndPlain = append(spreadAndPlain, pods(3, "500m", "512Mi", func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: own}}}
	})...)
	in := Input{Pods: spreadAndPlain, NodePools: []NodePoolInput{benchNodePool()}}
	res := Schedule(in)
	if err := checkPlacements(in, res); err != nil {
		t.Fatal(err)
	}
	for _, n := range res.NewNodeClaims {
		if zones := n.Requirements.Get(karpv1.LabelTopologyZone); zones.Len() != 1 {
			t.Errorf("a NodeClaim with pods %v has zones %s: the spread cannot count them", names(n.Pods), zones)
		}
	}
}

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// checkPlacements says how a run on an empty cluster (the benchmarks' NodePools, the zones of
// the workload package) breaks a constraint of the diverse workload's kinds, if it does: a pod
// not placed, a node or NodeClaim given more than its allocatable (checkFits), a hostname
// anti-affinity pod sharing its node with another pod its selector matches, a zonal
// self-affinity group in more than one zone (or on a NodeClaim whose zone its launch would
// still choose), or a topology spread whose skew, at the moment the pod is placed (in the
// order the run placed them, as the kube-scheduler would bind them onto the new nodes),
// exceeds maxSkew. A zone spread is judged pessimistically: a matching pod on a NodeClaim whose
// zone is not chosen yet counts in the spread pod's zone and in no other.
func checkPlacements(in Input, res *Results) error {
	for pod, err := range res.PodErrors {
		return fmt.Errorf("%d pods not scheduled, e.g. %s: %w", len(res.PodErrors), pod.Name, err)
	}
	if len(res.Placed) != len(in.Pods) {
		return fmt.Errorf("%d placements for %d pods", len(res.Placed), len(in.Pods))
	}
	if err := checkFits(in, res); err != nil {
		return err
	}
	zoneOf := func(n *NewNodeClaim) (string, bool) {
		zones := n.Requirements.Get(karpv1.LabelTopologyZone)
		if zones.Len() != 1 {
			return "", false
		}
		return zones.Values()[0], true
	}
	selectorOf := func(s *metav1.LabelSelector) labels.Selector {
		sel, err := metav1.LabelSelectorAsSelector(s)
		if err != nil {
			panic(err)
		}
		return sel
	}
	var before []Placement
	affinityZones := map[string]string{}
	for _, placed := range res.Placed {
		pod, node := placed.Pod, placed.NodeClaim
		if node == nil {
			return fmt.Errorf("pod %s went to existing node %q in a cluster without nodes", pod.Name, placed.ExistingNode.String())
		}
		zone, pinned := zoneOf(node)
		if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			sel := selectorOf(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector)
			for _, other := range node.Pods {
				if other != pod && sel.Matches(labels.Set(other.Labels)) {
					return fmt.Errorf("anti-affinity pod %s shares its node with %s", pod.Name, other.Name)
				}
			}
		}
		if a := pod.Spec.Affinity; a != nil && a.PodAffinity != nil {
			group := metav1.FormatLabelSelector(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector)
			if !pinned {
				return fmt.Errorf("zonal affinity pod %s is on a NodeClaim whose zone is not chosen (%s)", pod.Name, node.Requirements.Get(karpv1.LabelTopologyZone))
			}
			if first, ok := affinityZones[group]; ok && first != zone {
				return fmt.Errorf("zonal affinity group %s is in %s and %s", group, first, zone)
			}
			affinityZones[group] = zone
		}
		for _, tsc := range pod.Spec.TopologySpreadConstraints {
			sel := selectorOf(tsc.LabelSelector)
			var counts map[string]int
			var here string
			switch tsc.TopologyKey {
			case corev1.LabelTopologyZone:
				if !pinned {
					return fmt.Errorf("zone spread pod %s is on a NodeClaim whose zone is not chosen", pod.Name)
				}
				counts, here = map[string]int{}, zone
				for _, z := range workload.Zones {
					counts[z] = 0
				}
				for _, p := range before {
					if !sel.Matches(labels.Set(p.Pod.Labels)) {
						continue
					}
					if z, ok := zoneOf(p.NodeClaim); ok {
						counts[z]++
					} else if p.NodeClaim.Requirements.Get(karpv1.LabelTopologyZone).Has(zone) {
						counts[zone]++
					}
				}
			case corev1.LabelHostname:
				counts, here = map[string]int{}, node.hostname
				for _, n := range res.NewNodeClaims {
					counts[n.hostname] = 0
				}
				for _, p := range before {
					if sel.Matches(labels.Set(p.Pod.Labels)) {
						counts[p.NodeClaim.hostname]++
					}
				}
			default:
				return fmt.Errorf("pod %s spreads over %s, which the benchmark does not use", pod.Name, tsc.TopologyKey)
			}
			// As the kube-scheduler's PodTopologySpread does, the pod counts itself only when
			// its own selector matches it.
			self := 0
			if sel.Matches(labels.Set(pod.Labels)) {
				self = 1
			}
			if skew := counts[here] + self - slices.Min(slices.Collect(maps.Values(counts))); skew > int(tsc.MaxSkew) {
				return fmt.Errorf("pod %s makes the %s spread of %s %d (maxSkew %d)", pod.Name, tsc.TopologyKey, sel, skew, tsc.MaxSkew)
			}
		}
		before = append(before, placed)
	}
	return nil
}

// checkFits says which node or NodeClaim of the run, if any, the pods placed there ask more of
// than it has: an existing node whose allocatable is short of what its bound pods request plus
// what the pods the run placed there request, or a new NodeClaim with an instance type whose
// allocatable is short of its pods' requests plus its daemonset overhead. Every instance type
// is judged, not only the cheapest: the launch may pick any of them. A pod counts what the
// kubelet admits it by (PodRequests) and one of the node's pods.
func checkFits(in Input, res *Results) error {
	existing := make(map[destination.Destination]*ExistingNode, len(in.ExistingNodes))
	for i := range in.ExistingNodes {
		existing[in.ExistingNodes[i].ID] = &in.ExistingNodes[i]
	}
	for _, name := range slices.SortedFunc(maps.Keys(res.ExistingPlacements), destination.Compare) {
		node, ok := existing[name]
		if !ok {
			return fmt.Errorf("pods placed on node %q, which is not in the input", name)
		}
		requested := podsRequests(res.ExistingPlacements[name]).add(toVec(node.Requested))
		// The kubelet counts every pod on the node against its pods capacity, those bound
		// before the run too, which Requested (a sum of requests) does not.
		if _, counted := node.Requested[corev1.ResourcePods]; !counted {
			placed, _ := requested.get(corev1.ResourcePods)
			requested.set(corev1.ResourcePods, placed+int64(len(node.Pods))*1000)
		}
		if err := withinAllocatable(requested, node.Allocatable); err != nil {
			return fmt.Errorf("existing node %s, with %d pods placed: %w", name, len(res.ExistingPlacements[name]), err)
		}
	}
	for i, n := range res.NewNodeClaims {
		// dsRequests is the overhead the scheduler settled on for the NodeClaim's final
		// requirements; the pods are summed here afresh, not read from its running total.
		requested := podsRequests(n.Pods).add(n.dsRequests)
		for _, it := range n.InstanceTypes {
			if err := withinAllocatable(requested, it.Allocatable()); err != nil {
				return fmt.Errorf("new NodeClaim %d (%s, %d pods) as instance type %s: %w", i, n.hostname, len(n.Pods), it.Name, err)
			}
		}
	}
	return nil
}

// podsRequests is what the pods ask of the node they share: their requests, and one pod each
// of the node's pods capacity.
func podsRequests(pods []*corev1.Pod) resVec {
	var total resVec
	for _, pod := range pods {
		total = total.add(toVec(resources.PodRequests(pod)))
	}
	count, _ := total.get(corev1.ResourcePods)
	total.set(corev1.ResourcePods, count+int64(len(pods))*1000)
	return total
}

// withinAllocatable names the first resource, in name order, of which more is requested than
// allocatable. A node that reports no pods capacity takes any number of pods, as the scheduler
// treats it (withPodsDefault).
func withinAllocatable(requested resVec, allocatable corev1.ResourceList) error {
	available := withPodsDefault(toVec(allocatable))
	amounts := map[corev1.ResourceName]int64{}
	requested.each(func(name corev1.ResourceName, amount int64) { amounts[name] = amount })
	for _, name := range slices.Sorted(maps.Keys(amounts)) {
		if have, _ := available.get(name); amounts[name] > have {
			requestedQuantity, allocatableQuantity := quantityOf(name, amounts[name]), quantityOf(name, have)
			return fmt.Errorf("%s requested %s, allocatable %s", name, requestedQuantity.String(), allocatableQuantity.String())
		}
	}
	return nil
}

// TestLimitsBeyondInt64MilliUnits: upstream's performance tests limit memory to 10000000Gi,
// which in milli-bytes does not fit an int64; it must read as a huge limit, not a negative one.
func TestLimitsBeyondInt64MilliUnits(t *testing.T) {
	res := Schedule(Input{Pods: pods(3, "1", "1Gi"), NodePools: []NodePoolInput{benchNodePool()}})
	for pod, err := range res.PodErrors {
		t.Errorf("pod %s not scheduled: %v", pod.Name, err)
	}
}
