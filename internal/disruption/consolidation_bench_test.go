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
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// benchCluster builds a cluster of nodes nodes and pods pods (seed 42): instance types of
// three families from 2 to 16 vCPU drawn at random, a fifth of the nodes underused (10-30% of
// their CPU and memory requested, by fewer pods) and the rest busy (70-90%), every node
// consolidatable, in one WhenEmptyOrUnderutilized NodePool with the default 10% budget.
func benchCluster(nodes, pods int) *cluster { return benchClusterUnderused(nodes, pods, 5) }

// benchClusterUnderused is benchCluster with one node in underusedEvery underused (none when
// 0), at 10-30% of their CPU and memory, and the others at 70-90% (99.5-100% when none is underused).
func benchClusterUnderused(nodes, pods, underusedEvery int) *cluster {
	rng := rand.New(rand.NewPCG(42, 42))
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized))
	types := testInstanceTypes()
	underused := 0
	if underusedEvery > 0 {
		underused = nodes / underusedEvery
	}
	// Underused nodes run about half as many pods as busy ones; together they run pods pods.
	busyPods := float64(pods) / (float64(nodes-underused) + 0.5*float64(underused))
	placed := 0
	for i := range nodes {
		it := types[rng.IntN(len(types))]
		name := fmt.Sprintf("node-%04d", i)
		nodeClaim, node := testNode(name, "default", it, testZones[i%len(testZones)], isConsolidatable)
		c.in.NodeClaims = append(c.in.NodeClaims, nodeClaim)
		c.in.Nodes = append(c.in.Nodes, node)

		count, util := int(busyPods+0.5), 0.7+0.2*rng.Float64()
		if underusedEvery == 0 {
			util = 0.995 + 0.005*rng.Float64()
		}
		if underusedEvery > 0 && i%underusedEvery == 0 {
			count, util = int(busyPods/2+0.5), 0.1+0.2*rng.Float64()
		}
		if i == nodes-1 {
			count = pods - placed
		}
		// Pod sizes vary by ±20% around the mean, scaled so that the node is at util exactly.
		jitters, sum := make([]float64, count), 0.0
		for j := range jitters {
			jitters[j] = 0.8 + 0.4*rng.Float64()
			sum += jitters[j]
		}
		alloc := it.Allocatable()
		cpu := float64(alloc.Cpu().MilliValue()) * util / sum
		mem := float64(alloc.Memory().Value()) * util / sum
		for j, jitter := range jitters {
			p := testPod(fmt.Sprintf("pod-%04d-%02d", i, j), node.Name, "0", "0")
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(cpu*jitter), resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(int64(mem*jitter), resource.BinarySI),
			}
			c.in.Pods = append(c.in.Pods, p)
		}
		placed += count
	}
	return c
}

// BenchmarkConsolidation1000 times one consolidation decision (snapshot preparation and the
// methods in order) on 1000 nodes running 10 000 pods, and reports the savings it finds in
// relative cost units per hour.
func BenchmarkConsolidation1000(b *testing.B) {
	c := benchCluster(1000, 10000)
	if len(c.in.Pods) != 10000 {
		b.Fatalf("%d pods", len(c.in.Pods))
	}
	d := decideEach(b, c)
	expectJudgedCommand(b, c, d)
	b.ReportMetric(float64(len(d.Command.Replacements)), "replacements")
}

// BenchmarkConsolidationNothingToDo1000 times a decision that finds nothing: 1000 nodes
// 99.5-100% requested, 10 000 pods. Multi-node consolidation gives up at its first step and
// single-node consolidation tries every candidate its budget allows.
func BenchmarkConsolidationNothingToDo1000(b *testing.B) {
	c := benchClusterUnderused(1000, 10000, 0)
	d := decideEach(b, c)
	if d.Command != nil {
		b.Fatalf("unexpected command %s", d.Command)
	}
	b.ReportMetric(float64(len(d.Blocked)), "explained")
}

// BenchmarkConsolidationTopology1000 is BenchmarkConsolidation1000 with topology constraints on
// the pods: a quarter belong to one of 50 services spread over zones (maxSkew 1), one in twenty
// to one of 50 services with hostname anti-affinity. Every node's pods then count in every
// simulation, including the nodes it does not try as destinations.
func BenchmarkConsolidationTopology1000(b *testing.B) {
	c := benchCluster(1000, 10000)
	for i, p := range c.in.Pods {
		switch {
		case i%4 == 0:
			svc := map[string]string{"app": fmt.Sprintf("spread-%d", i%200/4)}
			p.Labels = svc
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: svc}}}
		case i%20 == 1:
			svc := map[string]string{"app": fmt.Sprintf("anti-%d", i%1000/20)}
			p.Labels = svc
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: svc}}}}}
		}
	}
	d := decideEach(b, c)
	// As in BenchmarkConsolidation1000, a fifth of the nodes are underused: a decision that
	// finds nothing to do is a regression, not an answer to check.
	expectJudgedCommand(b, c, d)
	b.ReportMetric(float64(len(d.Blocked)), "explained")
}

// expectJudgedCommand fails the benchmark unless the decision is a command that checkCommand
// accepts, and reports its savings and size.
func expectJudgedCommand(b *testing.B, c *cluster, d *Decision) {
	b.Helper()
	if d.Command == nil {
		b.Fatalf("no consolidation found; blocked: %v", blockedMessages(d)[:min(5, len(d.Blocked))])
	}
	if err := checkCommand(c.in, d.Command); err != nil {
		b.Fatalf("%s: %v", d.Command.Method, err)
	}
	b.ReportMetric(d.Command.Savings, "savings")
	b.ReportMetric(float64(len(d.Command.Candidates)), "nodes")
	b.Logf("%s: %s, savings %.3f", d.Command.Method, d.Command, d.Command.Savings)
}

// commandTarget is a node the command's pods may land on, as the cluster has it once the
// command is carried out: a node that stays, with its pods, or a replacement as its cheapest
// launch makes it.
type commandTarget struct {
	node *corev1.Node
	pods []*corev1.Pod
	// requests is, for a replacement, what it is sized for (its pods' and its daemonsets'
	// requests); nil for a node that stays, whose pods are summed.
	requests corev1.ResourceList
	// received counts the pods the command places there: only such nodes are judged on room,
	// so that a node already over-committed before the command is not blamed on it.
	received int
}

// checkCommand says how carrying the command out on the cluster breaks what the kube-scheduler
// and the kubelet hold the moved pods to, if it does: a reschedulable pod of a candidate left
// without a place, a node given more than its allocatable, or a placement onto a node the
// pod's node selector or required node affinity does not match, or that a required pod
// anti-affinity (the pod's own or a pod's already there) or a DoNotSchedule topology spread
// forbids. The placements are replayed in the command's order on the cluster without the
// candidates, each seeing the pods placed before it, as the kube-scheduler sees the evicted
// pods come back one by one. What the benchmarks' pods do not use (pod affinity, namespace
// selectors, spread options other than the defaults) is reported as not judged, not passed.
func checkCommand(in SnapshotInput, cmd *Command) error {
	gone := sets.New[string]()
	for _, c := range cmd.Candidates {
		gone.Insert(c.Node.Name)
	}
	targets := map[string]*commandTarget{}
	for _, node := range in.Nodes {
		if !gone.Has(node.Name) {
			targets[node.Name] = &commandTarget{node: node}
		}
	}
	for _, pod := range in.Pods {
		if target := targets[pod.Spec.NodeName]; target != nil && !podutil.IsTerminal(pod) {
			target.pods = append(target.pods, pod)
		}
	}
	replacements := map[*simulation.NewNodeClaim]*commandTarget{}
	for i, n := range cmd.Replacements {
		it, offering, ok := n.Cheapest()
		if !ok {
			return fmt.Errorf("replacement %d has no available offering", i)
		}
		name := fmt.Sprint("replacement-", i)
		nodeLabels := n.Requirements.Labels()
		maps.Copy(nodeLabels, it.Labels)
		nodeLabels[corev1.LabelHostname], nodeLabels[karpv1.LabelNodePool] = name, n.NodePoolName
		nodeLabels[karpv1.LabelTopologyZone], nodeLabels[karpv1.LabelCapacityType] = offering.Zone, offering.CapacityType
		target := &commandTarget{
			node:     &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels}, Status: corev1.NodeStatus{Allocatable: it.Allocatable()}},
			requests: n.Requests,
		}
		targets[name], replacements[n] = target, target
	}

	placed := sets.New[*corev1.Pod]()
	for _, p := range cmd.Placed {
		var target *commandTarget
		if p.ExistingNode.Kind == destination.Node {
			target = targets[p.ExistingNode.Name]
		}
		if p.NodeClaim != nil {
			target = replacements[p.NodeClaim]
		}
		switch {
		case target == nil:
			return fmt.Errorf("pod %s/%s is placed on %q, which is no node the command leaves", p.Pod.Namespace, p.Pod.Name, p.ExistingNode.String())
		case placed.Has(p.Pod):
			return fmt.Errorf("pod %s/%s is placed twice", p.Pod.Namespace, p.Pod.Name)
		}
		if err := admits(target, p.Pod, targets); err != nil {
			return fmt.Errorf("pod %s/%s on %s: %w", p.Pod.Namespace, p.Pod.Name, target.node.Name, err)
		}
		placed.Insert(p.Pod)
		target.pods = append(target.pods, p.Pod)
		target.received++
	}
	for _, c := range cmd.Candidates {
		for _, pod := range c.Reschedulable {
			if !placed.Has(pod) {
				return fmt.Errorf("candidate %s goes and its pod %s/%s is placed nowhere", c.Name(), pod.Namespace, pod.Name)
			}
		}
	}

	for _, name := range slices.Sorted(maps.Keys(targets)) {
		target := targets[name]
		if target.received == 0 {
			continue
		}
		requested := target.requests
		if requested == nil {
			// What the kubelet admits pods by: their requests, and one of its pods each.
			requested = state.Requests(target.pods)
			requested[corev1.ResourcePods] = *resource.NewQuantity(int64(len(target.pods)), resource.DecimalSI)
		}
		for _, resourceName := range slices.Sorted(maps.Keys(requested)) {
			if amount, allocatable := requested[resourceName], target.node.Status.Allocatable[resourceName]; amount.Cmp(allocatable) > 0 {
				return fmt.Errorf("node %s, holding %d pods, gets %d more: %s requested %s, allocatable %s",
					name, len(target.pods)-target.received, target.received, resourceName, amount.String(), allocatable.String())
			}
		}
	}
	return nil
}

// admits says why the kube-scheduler would not bind the pod to the target now, if it would
// not: node selector and required node affinity, required pod anti-affinity both ways, and
// DoNotSchedule topology spreads.
func admits(target *commandTarget, pod *corev1.Pod, targets map[string]*commandTarget) error {
	if a := pod.Spec.Affinity; a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
		return fmt.Errorf("required pod affinity is not judged")
	}
	nodeAffinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	if ok, err := nodeAffinity.Match(target.node); err != nil || !ok {
		return fmt.Errorf("the node does not match the pod's node selector or required node affinity (%w)", err)
	}
	// A required anti-affinity term forbids the topology domain of the node that holds its
	// pod, whichever of the two pods it belongs to.
	for _, t := range targets {
		for _, other := range t.pods {
			if err := antiAffinityConflict(pod, target.node, other, t.node); err != nil {
				return err
			}
			if err := antiAffinityConflict(other, t.node, pod, target.node); err != nil {
				return err
			}
		}
	}
	for _, spread := range pod.Spec.TopologySpreadConstraints {
		if spread.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		if spread.MinDomains != nil || len(spread.MatchLabelKeys) > 0 || spread.NodeTaintsPolicy != nil ||
			spread.NodeAffinityPolicy != nil && *spread.NodeAffinityPolicy != corev1.NodeInclusionPolicyHonor {
			return fmt.Errorf("the %s spread's options are not judged", spread.TopologyKey)
		}
		selector, err := metav1.LabelSelectorAsSelector(spread.LabelSelector)
		if err != nil {
			return err
		}
		here, ok := target.node.Labels[spread.TopologyKey]
		if !ok {
			return fmt.Errorf("the node has no %s label to spread over", spread.TopologyKey)
		}
		// The domains are those of the nodes the pod's node affinity matches (the default
		// nodeAffinityPolicy Honor); the pods counted are its namespace's that the selector
		// matches, terminating ones aside, as PodTopologySpread counts them.
		counts := map[string]int{}
		for _, t := range targets {
			domain, ok := t.node.Labels[spread.TopologyKey]
			if matches, _ := nodeAffinity.Match(t.node); !ok || !matches {
				continue
			}
			counts[domain] += 0
			for _, other := range t.pods {
				if other.Namespace == pod.Namespace && other.DeletionTimestamp.IsZero() && selector.Matches(labels.Set(other.Labels)) {
					counts[domain]++
				}
			}
		}
		self := 0
		if selector.Matches(labels.Set(pod.Labels)) {
			self = 1
		}
		if skew := counts[here] + self - slices.Min(slices.Collect(maps.Values(counts))); skew > int(spread.MaxSkew) {
			return fmt.Errorf("the %s spread of %s would reach a skew of %d, maxSkew %d: %v", spread.TopologyKey, selector, skew, spread.MaxSkew, counts)
		}
	}
	return nil
}

// antiAffinityConflict says which required anti-affinity term of owner, on ownerNode, keeps
// other off otherNode, if one does: other is in a namespace the term covers, the term's
// selector matches it, and both nodes have the same value of the term's topology key.
func antiAffinityConflict(owner *corev1.Pod, ownerNode *corev1.Node, other *corev1.Pod, otherNode *corev1.Node) error {
	a := owner.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil || owner == other {
		return nil
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.NamespaceSelector != nil {
			return fmt.Errorf("the anti-affinity of %s/%s has a namespace selector, which is not judged", owner.Namespace, owner.Name)
		}
		value, ok := ownerNode.Labels[term.TopologyKey]
		if !ok || otherNode.Labels[term.TopologyKey] != value {
			continue
		}
		namespaces := term.Namespaces
		if len(namespaces) == 0 {
			namespaces = []string{owner.Namespace}
		}
		selector, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			return err
		}
		if slices.Contains(namespaces, other.Namespace) && selector.Matches(labels.Set(other.Labels)) {
			return fmt.Errorf("%s/%s on %s and %s/%s on %s share %s=%s, which the %s anti-affinity of the first forbids",
				owner.Namespace, owner.Name, ownerNode.Name, other.Namespace, other.Name, otherNode.Name, term.TopologyKey, value, selector)
		}
	}
	return nil
}

// decideEach times one decision on the cluster per op and returns the last.
func decideEach(b *testing.B, c *cluster) *Decision {
	var d *Decision
	b.ResetTimer()
	for b.Loop() {
		d = NewSnapshot(c.in).Decide(Options{})
	}
	b.StopTimer()
	return d
}

// realisticInput is what the loop reads of workload.ConsolidationCluster(nodes, 1): its
// objects as state.Read lists them, and every NodePool with the cloud provider's instance
// types.
func realisticInput(nodes int) SnapshotInput {
	c := workload.ConsolidationCluster(nodes, 1)
	in := SnapshotInput{Now: c.Now, NodePools: c.NodePools, InstanceTypes: map[string][]*cloudprovider.InstanceType{},
		NodeClaims: c.NodeClaims, Nodes: c.Nodes, Pods: c.Pods, PDBs: c.PDBs, NamespaceLabels: map[string]map[string]string{}}
	for _, np := range c.NodePools {
		in.InstanceTypes[np.Name] = c.InstanceTypes
	}
	for _, ds := range c.DaemonSets {
		in.DaemonSetPods = append(in.DaemonSetPods, state.DaemonSetPod(ds))
	}
	for _, ns := range c.Namespaces {
		in.NamespaceLabels[ns.Name] = ns.Labels
	}
	return in
}

// BenchmarkConsolidationRealistic1000 and BenchmarkConsolidationRealistic5000 time the
// decision and its validation, in memory, on workload.ConsolidationCluster: three NodePools,
// DaemonSets, PodDisruptionBudgets, zone spreads and zonal anti-affinity, about 10 pods per
// node. BenchmarkConsolidationPass in the disruption loop's envtest suite
// (internal/controller/disruption) times the whole pass on the same cluster.
func BenchmarkConsolidationRealistic1000(b *testing.B) { benchmarkRealistic(b, 1000) }

func BenchmarkConsolidationRealistic5000(b *testing.B) { benchmarkRealistic(b, 5000) }

func benchmarkRealistic(b *testing.B, nodes int) {
	in := realisticInput(nodes)
	later := in
	later.Now = in.Now.Add(DefaultValidationDelay)
	var decide, validate time.Duration
	var d *Decision
	var cmd *Command
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		d = NewSnapshot(in).Decide(Options{})
		decided := time.Now()
		if d.Command == nil {
			b.Fatalf("no command; %d nodes held", len(d.Blocked))
		}
		var why string
		if cmd, why = NewSnapshot(later).Validate(d.Command); cmd == nil {
			b.Fatalf("%s no longer holds: %s", d.Command, why)
		}
		decide, validate = decide+decided.Sub(start), validate+time.Since(decided)
	}
	b.StopTimer()
	if err := checkCommand(in, d.Command); err != nil {
		b.Fatalf("%s: %v", d.Command.Method, err)
	}
	b.ReportMetric(float64(decide.Milliseconds())/float64(b.N), "decide-ms")
	b.ReportMetric(float64(validate.Milliseconds())/float64(b.N), "validate-ms")
	b.ReportMetric(float64(len(cmd.Candidates)), "candidates")
	b.Logf("%d nodes, %d pods: %s via %s, %d candidates, %d pods moved, %d replacements, savings %.3f",
		nodes, len(in.Pods), cmd.Method, cmd.Decision(), len(cmd.Candidates), len(cmd.Placed), len(cmd.Replacements), cmd.Savings)
}
