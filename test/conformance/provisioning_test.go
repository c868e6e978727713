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

package conformance

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/provisioning"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

var (
	seeds     = flag.Int("seeds", 30, "how many seeds to judge")
	firstSeed = flag.Uint64("seed", 1, "the first seed")
	pods      = flag.Int("pods", 40, "pending pods per seed (about)")
)

// tally is what a run judged.
type tally struct {
	seeds, placements, pending, nodeClaims int
	// volumePods are the placements judged of pods with CSI volumes; limitRefusals the
	// existing nodes the kube-scheduler's NodeVolumeLimits refused such a pod on when it was
	// placed.
	volumePods, limitRefusals int
	disagreements             []string
	kinds                     map[string]int
}

// disagree records a disagreement of a kind (the kube-scheduler plugin that refused, or what
// else went wrong).
func (t *tally) disagree(seed uint64, kind, format string, args ...any) {
	if t.kinds == nil {
		t.kinds = map[string]int{}
	}
	t.kinds[kind]++
	t.disagreements = append(t.disagreements, fmt.Sprintf("seed %d: ", seed)+fmt.Sprintf(format, args...))
}

// plugin is the kind of a refusal: the plugin's name before the colon.
func plugin(err error) string {
	kind, _, _ := strings.Cut(err.Error(), ":")
	return kind
}

func (t *tally) report(tb testing.TB, what string) {
	tb.Logf("%s: %d seeds, %d placements and %d pending pods judged, %d new NodeClaims, %d pods with CSI volumes, %d attach limit refusals, %d disagreements",
		what, t.seeds, t.placements, t.pending, t.nodeClaims, t.volumePods, t.limitRefusals, len(t.disagreements))
	for _, kind := range slices.Sorted(maps.Keys(t.kinds)) {
		tb.Logf("  %s: %d", kind, t.kinds[kind])
	}
	for i, d := range t.disagreements {
		if i == 20 {
			tb.Errorf("... and %d more", len(t.disagreements)-20)
			break
		}
		tb.Error(d)
	}
	if len(t.disagreements) > 0 {
		tb.Logf("reproduce one seed with: go test ./... -run '%s' -seed=N -seeds=1 -v", tb.Name())
	}
}

// TestProvisioningAgreesWithKubeScheduler runs provisioning twice per seed (the first batch's
// NodeClaims stay in flight, some launched and some not, while their pods wait), and judges
// the second run: every pod it places must pass the kube-scheduler's filters on that node, in
// the order it placed them; every pod it leaves pending must fit no existing node; every label
// of a new NodeClaim must be defined by its NodePool or be well-known.
func TestProvisioningAgreesWithKubeScheduler(t *testing.T) {
	ctx := t.Context()
	var total tally
	for seed := *firstSeed; seed < *firstSeed+uint64(*seeds); seed++ {
		w := newWorld(seed)
		w.drawWorkload(*pods / 3)
		_, first := w.provision(ctx, t)
		w.inFlight(first)
		w.judgeRerun(ctx, t, first, &total)
		w.drawWorkload(*pods - *pods/3)
		w.provisionJudged(ctx, t, &total)
	}
	total.report(t, "provisioning")
}

// provisionJudged provisions for the world's pending pods and judges the decision.
func (w *world) provisionJudged(ctx context.Context, t *testing.T, total *tally) {
	in, res := w.provision(ctx, t)
	j, err := NewJudge(ctx, w.objects()...)
	if err != nil {
		t.Fatal(err)
	}
	w.judgeProvisioning(ctx, j, in, res, total)
	total.seeds++
}

// judgeRerun provisions again right after the first run's NodeClaims were created, as the
// next pass does while they come up, some of those launched registered as nodes by then: a
// pod the first run put on a new NodeClaim is held by it, in flight or as its node, and must
// get no other.
func (w *world) judgeRerun(ctx context.Context, t *testing.T, first *simulation.Results, total *tally) {
	heldBy := map[string]string{}
	for i, n := range first.NewNodeClaims {
		for _, pod := range n.Pods {
			heldBy[pod.Namespace+"/"+pod.Name] = w.nodeClaims[len(w.nodeClaims)-len(first.NewNodeClaims)+i].Name
		}
	}
	w.registerLaunched(0.5)
	_, again := w.provision(ctx, t)
	for _, n := range again.NewNodeClaims {
		for _, pod := range n.Pods {
			if held, ok := heldBy[pod.Namespace+"/"+pod.Name]; ok {
				total.disagree(w.seed, "launched twice", "pod %s, held by NodeClaim %s in flight, gets another NodeClaim of NodePool %s", pod.Name, held, n.NodePoolName)
			}
		}
	}
}

// registerLaunched registers, with chance p each, the nodes of the NodeClaims in flight that
// have launched: their pods still wait for them, nominated to the NodeClaim.
func (w *world) registerLaunched(p float64) {
	for _, nodeClaim := range w.comingUp() {
		if nodeClaim.Status.ProviderID == "" || !w.chance(p) {
			continue
		}
		node := w.launchedNode(nodeClaim.Name, nodeClaim, w.typeByName(nodeClaim.Labels[karpv1.LabelInstanceType]), nodeClaim.Labels[karpv1.LabelTopologyZone])
		w.nodes = append(w.nodes, node)
		w.bindDaemonSets(node)
	}
}

// cluster is the world as the controllers read it.
func (w *world) cluster() *state.Cluster {
	c := &state.Cluster{NodePools: w.nodePools, NodeClaims: w.nodeClaims, Nodes: w.nodes, Pods: w.pods, DaemonSetPods: w.daemonSets,
		NamespaceLabels: map[string]map[string]string{}}
	for _, ns := range w.namespaces {
		c.NamespaceLabels[ns.Name] = ns.Labels
	}
	c.CSINodes = map[string]*storagev1.CSINode{}
	for _, csiNode := range w.csiNodes {
		c.CSINodes[csiNode.Name] = csiNode
	}
	return c
}

func (w *world) objects() []runtime.Object {
	var out []runtime.Object
	for _, o := range w.volumes {
		out = append(out, o)
	}
	for _, o := range w.claims {
		out = append(out, o)
	}
	for _, o := range w.classes {
		out = append(out, o)
	}
	for _, o := range w.namespaces {
		out = append(out, o)
	}
	for _, o := range w.csiNodes {
		out = append(out, o)
	}
	return out
}

// volumes reads the world's claims, volumes and classes as the controllers read them.
func (w *world) readVolumes(ctx context.Context) *volumetopology.Volumes {
	volumes, err := volumetopology.Load(ctx, fake.NewClientBuilder().WithRuntimeObjects(w.objects()...).Build())
	if err != nil {
		panic(err) // a fake client lists what it holds
	}
	return volumes
}

// provision is what the provisioner does with the cluster: the same input, the volume
// topology from the same package, the same simulation.
func (w *world) provision(ctx context.Context, t *testing.T) (simulation.Input, *simulation.Results) {
	cluster := w.cluster()
	in := simulation.ClusterInput(cluster, simulation.PodsToPlace(cluster, w.now), simulation.NodePools(ctx, cluster,
		func(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
			return w.instanceTypes, nil
		}))
	in.Nominated = provisioning.NominatedNow(w.nominated, cluster)
	simulation.WithVolumes(&in, w.readVolumes(ctx))
	return in, simulation.Schedule(in)
}

// inFlight turns a run's NodeClaims into NodeClaims in flight: created, about half of them
// launched (instance type and zone chosen, not registered yet). Their pods keep waiting.
func (w *world) inFlight(res *simulation.Results) {
	for _, n := range res.NewNodeClaims {
		nodeClaim := n.ToNodeClaim()
		nodeClaim.Name = w.name("inflight")
		if w.chance(0.5) {
			it, zone := w.launchChoice(n.InstanceTypes, n.Requirements)
			nodeClaim.Labels[karpv1.LabelInstanceType] = it.Name
			nodeClaim.Labels[karpv1.LabelTopologyZone] = zone
			nodeClaim.Labels[karpv1.LabelCapacityType] = "on-demand"
			nodeClaim.Status.ProviderID = "kakaocloud:///" + nodeClaim.Name
			nodeClaim.Status.Capacity, nodeClaim.Status.Allocatable = it.Capacity, it.Allocatable()
		}
		w.nodeClaims = append(w.nodeClaims, nodeClaim)
		for _, pod := range n.Pods {
			w.nominate(pod, destination.OfNodeClaim(nodeClaim))
		}
	}
	for _, placed := range res.Placed {
		if !placed.ExistingNode.IsZero() {
			w.nominate(placed.Pod, placed.ExistingNode)
		}
	}
}

// launchChoice is what a launch may pick for a NodeClaim: any of its instance types, in any
// zone its requirements and that type's offerings allow. Drawing at random checks that every
// choice works, not just the cheapest.
func (w *world) launchChoice(types []*cloudprovider.InstanceType, reqs scheduling.Requirements) (*cloudprovider.InstanceType, string) {
	it := types[w.pick(len(types))]
	var allowed []string
	for _, of := range it.Offerings {
		if of.Available && reqs.Get(karpv1.LabelTopologyZone).Has(of.Zone) {
			allowed = append(allowed, of.Zone)
		}
	}
	if len(allowed) == 0 {
		return it, ""
	}
	return it, allowed[w.pick(len(allowed))]
}

// phantoms are, for a NodeClaim whose zone its launch chooses, stand-ins for the node in each
// other zone it may get: cordoned and empty, so that nothing lands on them, but counted by
// topology spreads like any node. Whether a pod left pending could go to an existing node is
// asked with them in the cluster: the answer must hold whichever zone the launch picks.
func (w *world) phantoms(node *corev1.Node, types []*cloudprovider.InstanceType, reqs scheduling.Requirements) []*corev1.Node {
	zone := node.Labels[karpv1.LabelTopologyZone]
	seen := map[string]bool{zone: true}
	var out []*corev1.Node
	for _, it := range types {
		for _, of := range it.Offerings {
			if !of.Available || seen[of.Zone] || !reqs.Get(karpv1.LabelTopologyZone).Has(of.Zone) {
				continue
			}
			seen[of.Zone] = true
			p := node.DeepCopy()
			p.Name = node.Name + "-if-" + of.Zone
			p.Labels[corev1.LabelHostname] = p.Name
			p.Labels[karpv1.LabelTopologyZone] = of.Zone
			p.Spec.Unschedulable = true
			p.Status.Allocatable = corev1.ResourceList{}
			out = append(out, p)
		}
	}
	return out
}

// launchedNode is the node a kubelet registers for a NodeClaim of the instance type in zone,
// once initialized: the NodeClaim's labels and taints (not its startup taints).
func (w *world) launchedNode(name string, nodeClaim *karpv1.NodeClaim, it *cloudprovider.InstanceType, zone string) *corev1.Node {
	labels := map[string]string{karpv1.LabelCapacityType: "on-demand", karpv1.LabelRegistered: "true", karpv1.LabelInitialized: "true"}
	maps.Copy(labels, nodeClaim.Labels)
	n := w.node(name, it.Name, zone, labels)
	n.Spec.Taints = append(n.Spec.Taints, nodeClaim.Spec.Taints...)
	return n
}

// typeByName finds an instance type.
func (w *world) typeByName(name string) *cloudprovider.InstanceType {
	for _, it := range w.instanceTypes {
		if it.Name == name {
			return it
		}
	}
	return nil
}

// comingUp are the world's NodeClaims in flight: not being deleted, their node not
// registered yet.
func (w *world) comingUp() []*karpv1.NodeClaim {
	registered := map[string]bool{}
	for _, n := range w.nodes {
		registered[n.Spec.ProviderID] = true
	}
	var out []*karpv1.NodeClaim
	for _, nodeClaim := range w.nodeClaims {
		if nodeClaim.DeletionTimestamp.IsZero() && (nodeClaim.Status.ProviderID == "" || !registered[nodeClaim.Status.ProviderID]) {
			out = append(out, nodeClaim)
		}
	}
	return out
}

// launchInFlight adds to c the nodes the NodeClaims in flight become, with their daemonset
// pods, and returns each one's destination (by its key) mapped to its node name.
func (w *world) launchInFlight(c *Cluster) (map[destination.Destination]string, []*corev1.Node) {
	nodeNames := map[destination.Destination]string{}
	var phantoms []*corev1.Node
	for _, nodeClaim := range w.comingUp() {
		var it *cloudprovider.InstanceType
		var types []*cloudprovider.InstanceType
		zone := nodeClaim.Labels[karpv1.LabelTopologyZone]
		reqs := scheduling.FromNodeClaimRequirements(nodeClaim.Spec.Requirements...)
		if nodeClaim.Status.ProviderID != "" {
			it = w.typeByName(nodeClaim.Labels[karpv1.LabelInstanceType])
		} else {
			for _, name := range reqs.Get(karpv1.LabelInstanceType).Values() {
				types = append(types, w.typeByName(name))
			}
			it, zone = w.launchChoice(types, reqs)
		}
		node := w.launchedNode(nodeClaim.Name, nodeClaim, it, zone)
		phantoms = append(phantoms, w.phantoms(node, types, reqs)...)
		c.Nodes = append(c.Nodes, node)
		w.bindDaemonSetsTo(c, node)
		nodeNames[destination.OfNodeClaim(nodeClaim).Key()] = node.Name
	}
	return nodeNames, phantoms
}

func (w *world) bindDaemonSetsTo(c *Cluster, n *corev1.Node) {
	for _, ds := range w.daemonSets {
		if daemonSetRunsOn(ds, n) {
			c.Pods = append(c.Pods, daemonSetPod(ds, n.Name))
		}
	}
}

// judgeCluster is the kube-scheduler's view of the world before the decision: its nodes and
// the pods bound to them that still hold their node.
func (w *world) judgeCluster(leaving ...map[*corev1.Pod]*corev1.Pod) *Cluster {
	c := &Cluster{Nodes: append([]*corev1.Node(nil), w.nodes...)}
	for _, pod := range w.pods {
		if len(leaving) > 0 && leaving[0][pod] != nil {
			continue
		}
		if pod.Spec.NodeName != "" && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			c.Pods = append(c.Pods, pod)
		}
	}
	return c
}

// leavingPods maps each pod of a node being deleted that the run placed to the pod the
// kube-scheduler will see in its stead once it is evicted: the same pod, not bound yet.
func leavingPods(in simulation.Input) map[*corev1.Pod]*corev1.Pod {
	out := map[*corev1.Pod]*corev1.Pod{}
	for _, pod := range in.Pods {
		if pod.Spec.NodeName != "" {
			pending := pod.DeepCopy()
			pending.Spec.NodeName = ""
			out[pod] = pending
		}
	}
	return out
}

func (w *world) judgeProvisioning(ctx context.Context, j *Judge, in simulation.Input, res *simulation.Results, t *tally) {
	// The pods of nodes being deleted are judged as the kube-scheduler will see them once
	// evicted: gone from their node, pending.
	leaving := leavingPods(in)
	judged := func(pod *corev1.Pod) *corev1.Pod {
		if pending := leaving[pod]; pending != nil {
			return pending
		}
		return pod
	}
	c := w.judgeCluster(leaving)
	// A pod left pending is judged against the nodes whose size is known: the cluster's and
	// the launched NodeClaims'. One not launched yet may become any of its instance types;
	// the simulation counts only the room it was created for.
	existing := c.nodeNames()
	for _, nodeClaim := range w.nodeClaims {
		if nodeClaim.Status.ProviderID != "" {
			existing = append(existing, nodeClaim.Name)
		}
	}
	nodeOf, phantoms := w.launchInFlight(c)
	for _, n := range w.nodes {
		nodeOf[destination.NodeNamed(n.Name)] = n.Name
	}
	newNodes := map[*simulation.NewNodeClaim]string{}
	for _, n := range res.NewNodeClaims {
		t.nodeClaims++
		nodeClaim := n.ToNodeClaim()
		if invented := inventedLabels(n.NodePool, nodeClaim.Labels); len(invented) > 0 {
			t.disagree(w.seed, "invented label", "a NodeClaim of NodePool %s carries labels no NodePool or instance type defines: %s", n.NodePoolName, strings.Join(invented, ", "))
		}
		it, zone := w.launchChoice(n.InstanceTypes, n.Requirements)
		if zone == "" {
			t.disagree(w.seed, "no zone", "a NodeClaim of NodePool %s has instance type %s and no zone its requirements allow (%s)", n.NodePoolName, it.Name, n.Requirements)
			continue
		}
		node := w.launchedNode(w.name("new"), nodeClaim, it, zone)
		c.Nodes = append(c.Nodes, node)
		w.bindDaemonSetsTo(c, node)
		newNodes[n] = node.Name
		phantoms = append(phantoms, w.phantoms(node, n.InstanceTypes, n.Requirements)...)
	}
	for _, p := range res.Placed {
		t.placements++
		target := nodeOf[p.ExistingNode.Key()]
		if p.NodeClaim != nil {
			target = newNodes[p.NodeClaim]
		}
		if target == "" {
			continue // its NodeClaim had no zone, reported above
		}
		pod := judged(p.Pod)
		if len(in.PodVolumes[p.Pod]) > 0 {
			t.volumePods++
			t.limitRefusals += w.limitRefusals(ctx, j, c, pod, existing)
		}
		if err := j.Fits(ctx, c, pod, target); err != nil {
			t.disagree(w.seed, plugin(err), "pod %s placed on %s, which the kube-scheduler refuses: %v\n%s", pod.Name, target, err, describe(c, pod, target))
		}
		c.Bind(pod, target)
	}
	withPhantoms := &Cluster{Nodes: append(slices.Clip(c.Nodes), phantoms...), Pods: c.Pods}
	for _, pod := range in.Pods {
		why, ok := res.PodErrors[pod]
		if !ok {
			continue
		}
		t.pending++
		pod := judged(pod)
		feasible, err := j.Feasible(ctx, withPhantoms, pod)
		if err != nil {
			t.disagree(w.seed, "prefilter error", "pod %s: %v", pod.Name, err)
			continue
		}
		for _, name := range feasible {
			if slices.Contains(existing, name) {
				t.disagree(w.seed, "left pending", "pod %s left pending (%v), but the kube-scheduler would bind it to existing node %s\n%s", pod.Name, why, name, describe(c, pod, name))
				break
			}
		}
	}
}

// limitRefusals counts the existing nodes with an attach limit that the kube-scheduler
// refuses the pod on because of it.
func (w *world) limitRefusals(ctx context.Context, j *Judge, c *Cluster, pod *corev1.Pod, existing []string) int {
	refusals := 0
	for _, csiNode := range w.csiNodes {
		if !slices.Contains(existing, csiNode.Name) {
			continue
		}
		if err := j.Fits(ctx, c, pod, csiNode.Name); err != nil && plugin(err) == names.NodeVolumeLimits {
			refusals++
		}
	}
	return refusals
}

// inventedLabels are the labels of a NodeClaim that neither the well-known keys, nor its
// NodePool's template labels or requirements, define.
func inventedLabels(np *karpv1.NodePool, labels map[string]string) []string {
	var out []string
	for k := range labels {
		if karpv1.WellKnownLabels.Has(k) || karpv1.IsRestrictedLabel(k) {
			continue
		}
		if _, ok := np.Spec.Template.Labels[k]; ok {
			continue
		}
		defined := false
		for _, r := range np.Spec.Template.Spec.Requirements {
			defined = defined || r.Key == k
		}
		if !defined {
			out = append(out, k+"="+labels[k])
		}
	}
	return out
}

// describe is a small reproduction: the pod's constraints, the node, and what runs there.
func describe(c *Cluster, pod *corev1.Pod, node string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  pod %s/%s labels=%v nodeSelector=%v requests=%s", pod.Namespace, pod.Name, pod.Labels, pod.Spec.NodeSelector, quantities(resources.PodRequests(pod)))
	if pod.Spec.Affinity != nil {
		affinity, _ := json.Marshal(pod.Spec.Affinity)
		fmt.Fprintf(&b, " affinity=%s", affinity)
	}
	for _, tsc := range pod.Spec.TopologySpreadConstraints {
		fmt.Fprintf(&b, " spread=%s/%d/%s", tsc.TopologyKey, tsc.MaxSkew, tsc.WhenUnsatisfiable)
		if tsc.TopologyKey != corev1.LabelHostname {
			fmt.Fprintf(&b, " counts=%v", spreadCounts(c, pod, tsc.TopologyKey))
		}
	}
	if len(pod.Spec.Tolerations) > 0 {
		fmt.Fprintf(&b, " tolerations=%v", pod.Spec.Tolerations)
	}
	for _, n := range c.Nodes {
		if n.Name != node {
			continue
		}
		fmt.Fprintf(&b, "\n  node %s labels=%v taints=%v allocatable=%s", n.Name, n.Labels, n.Spec.Taints, quantities(n.Status.Allocatable))
	}
	var on []string
	for _, p := range c.Pods {
		if p.Spec.NodeName == node {
			on = append(on, fmt.Sprintf("%s(%s)", p.Name, quantities(resources.PodRequests(p))))
		}
	}
	fmt.Fprintf(&b, "\n  pods there: %s", strings.Join(on, " "))
	return b.String()
}

func quantities(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for name, q := range l {
		parts = append(parts, string(name)+"="+q.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// spreadCounts counts, per domain of key, the running pods of the pod's namespace with its
// app label (every domain of a node present, even with none).
func spreadCounts(c *Cluster, pod *corev1.Pod, key string) map[string]int {
	zoneOf := map[string]string{}
	counts := map[string]int{}
	for _, n := range c.Nodes {
		if d, ok := n.Labels[key]; ok {
			zoneOf[n.Name] = d
			counts[d] += 0
		}
	}
	for _, p := range c.Pods {
		if d, ok := zoneOf[p.Spec.NodeName]; ok && p.Namespace == pod.Namespace && p.Labels[appLabel] == pod.Labels[appLabel] && p.DeletionTimestamp == nil {
			counts[d]++
		}
	}
	return counts
}
