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
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// commandsPerSeed bounds how many disruption commands a seed carries out in turn.
const commandsPerSeed = 4

// TestDisruptionAgreesWithKubeScheduler draws clusters of underused and drifted nodes whose
// pods have zone spreads, hostname anti-affinity and zonal affinity, and carries out the
// commands the disruption decision returns one after another (DecideBatch: a batch of
// consolidation moves, each decided on the cluster with the ones before it carried out). For
// each, the pods of its candidates are replayed through the kube-scheduler's filters, in the
// order the simulation placed them, on the nodes that remain plus the replacements: every one
// must be accepted.
func TestDisruptionAgreesWithKubeScheduler(t *testing.T) {
	ctx := t.Context()
	var total tally
	methods, batched := map[string]int{}, 0
	for seed := *firstSeed; seed < *firstSeed+uint64(*seeds); seed++ {
		w := newWorld(seed)
		w.drawManagedNodesN(4+w.pick(10), 0.05, 0.5)
		w.markForDisruption()
		j, err := NewJudge(ctx, w.objects()...)
		if err != nil {
			t.Fatal(err)
		}
		for range commandsPerSeed {
			batch := disruption.DecideBatch(w.snapshotInput(ctx), nil, disruption.Options{}, func(int) bool { return true }).Batch
			if len(batch) == 0 {
				break
			}
			// The commands of a batch are carried out one after another, each judged on the
			// cluster the ones before it left.
			batched += len(batch) - 1
			for _, cmd := range batch {
				methods[cmd.Method]++
				w.judgeCommand(ctx, j, cmd, &total)
			}
		}
		total.seeds++
	}
	t.Logf("disruption commands by method: %v; %d of them decided in a batch after another", methods, batched)
	total.report(t, "disruption")
}

// markForDisruption makes about one managed node in four one that a pod was bound to or
// removed from within consolidateAfter (no candidate, and no place consolidation may move pods
// to, though it counts for topology), the others consolidation candidates, about one in five
// drifted, and adds a PodDisruptionBudget that allows no disruption of one app.
func (w *world) markForDisruption() {
	for _, np := range w.nodePools {
		np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("30s")
	}
	for _, nodeClaim := range w.nodeClaims {
		meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized).LastTransitionTime = metav1.NewTime(w.now.Add(-time.Hour))
		if w.chance(0.25) {
			nodeClaim.Status.LastPodEventTime = metav1.NewTime(w.now.Add(-10 * time.Second))
		} else {
			meta.SetStatusCondition(&nodeClaim.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeConsolidatable, Status: metav1.ConditionTrue, Reason: "Consolidatable"})
		}
		if w.chance(0.2) {
			meta.SetStatusCondition(&nodeClaim.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "NodePoolDrifted"})
		}
	}
	if w.chance(0.5) {
		w.pdbs = append(w.pdbs, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "app-0", Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: new(intstr.FromInt32(0)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: "app-0"}}},
			Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0},
		})
	}
}

func (w *world) snapshotInput(ctx context.Context) disruption.SnapshotInput {
	cluster := w.cluster()
	in := disruption.SnapshotInput{
		Now: w.now, NodePools: w.nodePools, InstanceTypes: map[string][]*cloudprovider.InstanceType{},
		NodeClaims: w.nodeClaims, Nodes: w.nodes, Pods: w.pods, PDBs: w.pdbs, DaemonSetPods: w.daemonSets,
		NamespaceLabels: cluster.NamespaceLabels, CSINodes: cluster.CSINodes,
	}
	// What the disruption controller reads of the pods' volumes; a pod waiting for a claim is
	// not kept anywhere by it.
	in.VolumeRequirements, in.PodVolumes, _ = w.readVolumes(ctx).Of(w.pods)
	for _, np := range w.nodePools {
		in.InstanceTypes[np.Name] = w.instanceTypes
	}
	return in
}

// judgeCommand replays the command's placements and then carries it out on the world: the
// candidates go with their daemonset pods, the replacements join as initialized nodes, and
// the moved pods run where the simulation put them.
func (w *world) judgeCommand(ctx context.Context, j *Judge, cmd *disruption.Command, t *tally) {
	gone := sets.New[string]()
	for _, c := range cmd.Candidates {
		if c.Node != nil {
			gone.Insert(c.Node.Name)
		}
	}
	c := &Cluster{}
	for _, n := range w.nodes {
		if !gone.Has(n.Name) {
			c.Nodes = append(c.Nodes, n)
		}
	}
	for _, pod := range w.judgeCluster().Pods {
		if !gone.Has(pod.Spec.NodeName) {
			c.Pods = append(c.Pods, pod)
		}
	}
	replacement := map[*simulation.NewNodeClaim]*corev1.Node{}
	for _, n := range cmd.Replacements {
		t.nodeClaims++
		nodeClaim := n.ToNodeClaim()
		nodeClaim.Name = w.name("replacement")
		it, zone := w.launchChoice(n.InstanceTypes, n.Requirements)
		if zone == "" {
			t.disagree(w.seed, "no zone", "a replacement of %s has instance type %s and no zone its requirements allow (%s)", cmd.Method, it.Name, n.Requirements)
			return
		}
		node := w.launchedNode(nodeClaim.Name, nodeClaim, it, zone)
		c.Nodes = append(c.Nodes, node)
		w.bindDaemonSetsTo(c, node)
		replacement[n] = node
		nodeClaim.Status.ProviderID, nodeClaim.Status.NodeName = node.Spec.ProviderID, node.Name
		nodeClaim.Status.Capacity, nodeClaim.Status.Allocatable = it.Capacity, it.Allocatable()
		nodeClaim.Labels = node.Labels
		nodeClaim.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized"}}
		w.nodeClaims = append(w.nodeClaims, nodeClaim)
	}
	// Every pod that must leave a candidate is placed by the command: one left out would be
	// evicted with nowhere planned for it.
	placed := sets.New[*corev1.Pod]()
	for _, p := range cmd.Placed {
		placed.Insert(p.Pod)
	}
	for _, pod := range w.pods {
		if gone.Has(pod.Spec.NodeName) && podutil.IsReschedulable(pod) && !placed.Has(pod) {
			t.disagree(w.seed, "pod left out", "%s removes node %s but places none of its pod %s", cmd.Method, pod.Spec.NodeName, pod.Name)
		}
	}
	moved := map[*corev1.Pod]*corev1.Pod{}
	volumes := w.readVolumes(ctx)
	for _, p := range cmd.Placed {
		t.placements++
		// A node by its name; a NodeClaim in flight is no node of the judge's, which refuses it.
		target := p.ExistingNode.Name
		if p.ExistingNode.Kind != destination.Node {
			target = p.ExistingNode.String()
		}
		if p.NodeClaim != nil {
			target = replacement[p.NodeClaim].Name
		}
		// The evicted pod comes back as a new, unbound pod of its workload.
		fresh := p.Pod.DeepCopy()
		fresh.Spec.NodeName = ""
		if len(volumes.CSIVolumes(fresh)) > 0 {
			t.volumePods++
			t.limitRefusals += w.limitRefusals(ctx, j, c, fresh, c.nodeNames())
		}
		if err := j.Fits(ctx, c, fresh, target); err != nil {
			t.disagree(w.seed, plugin(err), "%s moves pod %s to %s, which the kube-scheduler refuses: %v\n%s", cmd.Method, p.Pod.Name, target, err, describe(c, fresh, target))
		}
		moved[p.Pod] = c.Bind(fresh, target)
	}
	// Carry the command out.
	w.nodes = slices.DeleteFunc(w.nodes, func(n *corev1.Node) bool { return gone.Has(n.Name) })
	w.nodeClaims = slices.DeleteFunc(w.nodeClaims, func(nodeClaim *karpv1.NodeClaim) bool { return gone.Has(nodeClaim.Status.NodeName) })
	var pods []*corev1.Pod
	for _, pod := range w.pods {
		if m, ok := moved[pod]; ok {
			pods = append(pods, m)
		} else if !gone.Has(pod.Spec.NodeName) {
			pods = append(pods, pod)
		}
	}
	for _, n := range replacement {
		w.nodes = append(w.nodes, n)
		for _, pod := range c.Pods {
			if pod.Spec.NodeName == n.Name && daemonSetName(pod) != "" {
				pods = append(pods, pod)
			}
		}
	}
	w.pods = pods
}

func daemonSetName(pod *corev1.Pod) string {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return o.Name
		}
	}
	return ""
}
