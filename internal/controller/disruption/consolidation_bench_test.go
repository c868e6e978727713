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
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
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
	if d.Command == nil {
		b.Fatalf("no consolidation found; blocked: %v", blockedMessages(d)[:min(5, len(d.Blocked))])
	}
	b.ReportMetric(d.Command.Savings, "savings")
	b.ReportMetric(float64(len(d.Command.Candidates)), "nodes")
	b.ReportMetric(float64(len(d.Command.Replacements)), "replacements")
	b.Logf("%s: %s, savings %.3f", d.Command.Method, d.Command, d.Command.Savings)
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
	if d.Command != nil {
		b.ReportMetric(d.Command.Savings, "savings")
		b.ReportMetric(float64(len(d.Command.Candidates)), "nodes")
		b.Logf("%s: %s, savings %.3f", d.Command.Method, d.Command, d.Command.Savings)
	}
	b.ReportMetric(float64(len(d.Blocked)), "explained")
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
// node. BenchmarkConsolidationPass in the envtest suite times the whole pass on the same
// cluster.
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
	b.ReportMetric(float64(decide.Milliseconds())/float64(b.N), "decide-ms")
	b.ReportMetric(float64(validate.Milliseconds())/float64(b.N), "validate-ms")
	b.ReportMetric(float64(len(cmd.Candidates)), "candidates")
	b.Logf("%d nodes, %d pods: %s via %s, %d candidates, %d pods moved, %d replacements, savings %.3f",
		nodes, len(in.Pods), cmd.Method, cmd.Decision(), len(cmd.Candidates), len(cmd.Placed), len(cmd.Replacements), cmd.Savings)
}
