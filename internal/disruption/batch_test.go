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
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// zonalCluster has, in each of the first n zones, an m2a.2xlarge node running one pod of
// 1 CPU that must stay in that zone and keeps the others off its node: each node can only be
// replaced by a cheaper one of its own zone, and no one replacement holds two of the pods, so
// multi-node consolidation finds nothing and single-node consolidation finds one move per node.
func zonalCluster(n int, budget string, podOpts ...podOpt) *cluster {
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: budget}))
	for i, zone := range testZones[:n] {
		name := string(rune('a' + i))
		nodeClaim, node := testNode(name, "default", typeByName(testInstanceTypes(), "m2a.2xlarge"), zone, isConsolidatable)
		c.in.NodeClaims, c.in.Nodes = append(c.in.NodeClaims, nodeClaim), append(c.in.Nodes, node)
		pinned := func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{karpv1.LabelTopologyZone: zone} }
		c.pods(testPod("p"+name, node.Name, "1", "2Gi", append(append([]podOpt{ownedByRS, pinned}, podOpts...), apartOnHostname)...))
	}
	return c
}

// apartOnHostname labels the pod zonal and keeps it off nodes that run another zonal pod.
func apartOnHostname(p *corev1.Pod) {
	p.Labels = maps.Clone(p.Labels)
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels["zonal"] = "true"
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
		{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"zonal": "true"}}, TopologyKey: corev1.LabelHostname}}}}
}

func batchNames(batch []*Command) [][]string {
	out := make([][]string, len(batch))
	for i, cmd := range batch {
		out[i] = cmd.Names()
	}
	return out
}

func always(int) bool { return true }

func TestDecideBatch(t *testing.T) {
	t.Run("independent moves are decided together, each replacement in its own zone", func(t *testing.T) {
		c := zonalCluster(3, "100%")
		d := DecideBatch(c.in, nil, Options{}, always)
		batch := d.Batch
		expectCommand(t, d, MethodSingleNode, DecisionReplace, "a")
		if got := batchNames(batch); !slices.EqualFunc(got, [][]string{{"a"}, {"b"}, {"c"}}, slices.Equal) {
			t.Fatalf("batch %v, want a, b and c, one command each", got)
		}
		for i, cmd := range batch {
			zones := cmd.Replacements[0].Requirements.Get(karpv1.LabelTopologyZone)
			if zones.Len() != 1 || !zones.Has(testZones[i]) {
				t.Errorf("%s's replacement may go to zones %v, want only %s", cmd.Names()[0], zones.Values(), testZones[i])
			}
		}
		valid, rejected := ValidateBatch(c.in, nil, batch)
		if len(valid) != 3 || len(rejected) != 0 {
			t.Errorf("on the same cluster %d commands hold and %v do not, want all 3", len(valid), rejected)
		}
	})

	t.Run("one replacement a batch for pods the kube-scheduler may put anywhere", func(t *testing.T) {
		c := zonalCluster(3, "100%")
		for _, pod := range c.in.Pods {
			pod.Spec.Affinity = nil
		}
		d := DecideBatch(c.in, nil, Options{}, always)
		batch := d.Batch
		expectCommand(t, d, MethodSingleNode, DecisionReplace, "a")
		if got := batchNames(batch); !slices.EqualFunc(got, [][]string{{"a"}}, slices.Equal) {
			t.Fatalf("batch %v, want a's replacement alone", got)
		}
	})

	t.Run("the budgets count the moves decided before", func(t *testing.T) {
		c := zonalCluster(3, "2")
		batch := DecideBatch(c.in, nil, Options{}, always).Batch
		if got := batchNames(batch); len(got) != 2 {
			t.Fatalf("batch %v, want 2 commands: the budget allows 2 nodes", got)
		}
	})

	t.Run("more bounds the batch", func(t *testing.T) {
		c := zonalCluster(3, "100%")
		batch := DecideBatch(c.in, nil, Options{}, func(decided int) bool { return decided < 2 }).Batch
		if len(batch) != 2 {
			t.Fatalf("batch %v, want 2 commands", batchNames(batch))
		}
	})

	t.Run("a pod's eviction counts against its PodDisruptionBudget", func(t *testing.T) {
		c := zonalCluster(3, "100%", withLabels(map[string]string{"app": "web"}))
		c.in.PDBs = append(c.in.PDBs, testPDB("web", map[string]string{"app": "web"}, 1))
		d := DecideBatch(c.in, nil, Options{}, always)
		batch := d.Batch
		if len(batch) != 1 {
			t.Fatalf("batch %v, want 1 command: the budget allows one eviction", batchNames(batch))
		}
		// The first decision explains nothing about the budget: it allowed the eviction then.
		for _, b := range d.Blocked {
			if b.Reason == ReasonDisruptionBlocked {
				t.Errorf("first decision blocked %s: %s", b.Node.Name(), b.Message)
			}
		}
	})

	t.Run("room a move takes is not offered to the next", func(t *testing.T) {
		// As in TestHeldForCommandsUnderWay: a's pod and b's fit only on x, which has room for one.
		m2a := func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{kcv1.LabelInstanceFamily: "m2a"} }
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a, b := c.node("a", "default", "m2a.xlarge", isConsolidatable), c.node("b", "default", "m2a.xlarge", isConsolidatable)
		x := c.node("x", "default", "m2a.2xlarge")
		c.pods(testPod("pa", a, "2", "4Gi", ownedByRS, m2a), testPod("pb", b, "2", "4Gi", ownedByRS, m2a),
			testPod("px", x, "5", "20Gi", ownedByRS, m2a))
		batch := DecideBatch(c.in, nil, Options{}, always).Batch
		if got := batchNames(batch); !slices.EqualFunc(got, [][]string{{"a"}}, slices.Equal) {
			t.Fatalf("batch %v, want only a's deletion: after it x has no room for b's pod", got)
		}
	})

	t.Run("a replacement whose zone is known only at launch ends the batch when pods spread over zones", func(t *testing.T) {
		for _, spread := range []bool{false, true} {
			c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
			web := map[string]string{"app": "web"}
			// No two of the pods on one node: each candidate needs a replacement of its own.
			apart := func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
					{LabelSelector: &metav1.LabelSelector{MatchLabels: web}, TopologyKey: corev1.LabelHostname}}}}
			}
			for i, name := range []string{"a", "b"} {
				nodeClaim, node := testNode(name, "default", typeByName(testInstanceTypes(), "m2a.2xlarge"), testZones[i], isConsolidatable)
				c.in.NodeClaims, c.in.Nodes = append(c.in.NodeClaims, nodeClaim), append(c.in.Nodes, node)
				c.pods(testPod("p"+name, node.Name, "1", "2Gi", ownedByRS, withLabels(web), apart))
			}
			if spread {
				// Pods elsewhere spread over zones: a replacement's pods count in whichever zone
				// it launches in.
				x := c.node("x", "default", "m2a.2xlarge")
				db := map[string]string{"app": "db"}
				c.pods(testPod("db", x, "7", "28Gi", ownedByRS, withLabels(db), func(p *corev1.Pod) {
					p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
						WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: db}}}
				}))
			}
			batch := DecideBatch(c.in, nil, Options{}, always).Batch
			want := 2
			if spread {
				want = 1
			}
			if len(batch) != want {
				t.Errorf("zone spread %t: batch %v, want %d commands", spread, batchNames(batch), want)
			}
			if why := unplaced(batch[0], requiredTopologyKeys(c.in.Pods)); spread != (why != "") {
				t.Errorf("zone spread %t: the first replacement is unplaced for %q", spread, why)
			}
		}
	})

	t.Run("one move at a time while the kube-scheduler has pods it has not tried", func(t *testing.T) {
		c := zonalCluster(3, "100%")
		fresh := testPod("fresh", "", "100m", "128Mi", ownedByRS)
		fresh.Status = corev1.PodStatus{Phase: corev1.PodPending}
		c.pods(fresh)
		if batch := DecideBatch(c.in, nil, Options{}, always).Batch; len(batch) != 1 {
			t.Errorf("batch %v, want 1 command while a pod waits for the kube-scheduler", batchNames(batch))
		}
		// Once it has marked the pod unschedulable, the decisions place it (and leave the node
		// it would land on alone).
		c.in.Pods[len(c.in.Pods)-1] = testPod("fresh", "", "100m", "128Mi", ownedByRS)
		if batch := DecideBatch(c.in, nil, Options{}, always).Batch; len(batch) < 2 {
			t.Errorf("batch %v, want more than 1 command once the pod is marked unschedulable", batchNames(batch))
		}
	})

	t.Run("commands that wait for no validation are not batched", func(t *testing.T) {
		c := zonalCluster(3, "100%")
		for _, nodeClaim := range c.in.NodeClaims {
			isDrifted(nodeClaim, nil)
		}
		d := DecideBatch(c.in, nil, Options{}, always)
		batch := d.Batch
		if d.Command == nil || d.Command.Method != MethodDrift || len(batch) != 1 {
			t.Fatalf("decision %v, batch %v; want one drift command", d.Command, batchNames(batch))
		}
	})
}

func TestValidateBatch(t *testing.T) {
	c := zonalCluster(3, "100%")
	batch := DecideBatch(c.in, nil, Options{}, always).Batch
	if len(batch) != 3 {
		t.Fatalf("batch %v, want 3 commands", batchNames(batch))
	}
	// Meanwhile b is told not to be disrupted: its command is given up, the others go.
	c.in.Nodes[1].Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	valid, rejected := ValidateBatch(c.in, nil, batch)
	if got := batchNames(valid); !slices.EqualFunc(got, [][]string{{"a"}, {"c"}}, slices.Equal) {
		t.Errorf("valid %v, want a and c", got)
	}
	if len(rejected) != 1 || rejected[0].Command != batch[1] || rejected[0].Why == "" {
		t.Errorf("rejected %+v, want b's command with its reason", rejected)
	}
}

func TestAfter(t *testing.T) {
	c := zonalCluster(2, "100%", withLabels(map[string]string{"app": "web"}))
	x := c.node("x", "default", "m2a.2xlarge")
	c.pods(testPod("agent-a", "node-a", "100m", "64Mi", ownedByDS))
	c.in.PDBs = append(c.in.PDBs, testPDB("web", map[string]string{"app": "web"}, 5), testPDB("other", map[string]string{"app": "other"}, 5))
	pa, pb := c.in.Pods[0], c.in.Pods[1]
	replacement := zonalCluster(1, "100%")
	batch := DecideBatch(replacement.in, nil, Options{}, always).Batch
	if len(batch) != 1 || len(batch[0].Replacements) != 1 {
		t.Fatalf("batch %v, want one replacement", batchNames(batch))
	}
	// a's pod moves to x, b's to a new node.
	cmd := &Command{
		Reason: karpv1.DisruptionReasonUnderutilized, Method: MethodSingleNode, Replacements: batch[0].Replacements,
		Candidates: []*Candidate{{StateNode: &StateNode{NodeClaim: c.in.NodeClaims[0], Node: c.in.Nodes[0]}}, {StateNode: &StateNode{NodeClaim: c.in.NodeClaims[1], Node: c.in.Nodes[1]}}},
		Placed:     []simulation.Placement{{Pod: pa, ExistingNode: destination.NodeNamed(x)}, {Pod: pb, NodeClaim: batch[0].Replacements[0]}},
	}
	after := c.in.After(cmd)

	if !after.InFlight.Has("a") || !after.InFlight.Has("b") || c.in.InFlight.Has("a") {
		t.Errorf("in flight %v (was %v), want a and b after, and the input left as it was", after.InFlight.UnsortedList(), c.in.InFlight.UnsortedList())
	}
	if !after.Nominated.Has("x") {
		t.Errorf("nominated %v, want x, where a pod is headed", after.Nominated.UnsortedList())
	}
	if len(after.NodeClaims) != len(c.in.NodeClaims)+1 || len(after.Nodes) != len(c.in.Nodes)+1 {
		t.Fatalf("%d NodeClaims and %d nodes after, want one more of each than %d and %d", len(after.NodeClaims), len(after.Nodes), len(c.in.NodeClaims), len(c.in.Nodes))
	}
	planned := after.Nodes[len(after.Nodes)-1]
	if planned.Labels[corev1.LabelHostname] != planned.Name || planned.Labels[karpv1.LabelTopologyZone] != testZones[0] {
		t.Errorf("the planned replacement's labels %v, want its hostname and zone %s", planned.Labels, testZones[0])
	}
	if !after.InFlight.Has(after.NodeClaims[len(after.NodeClaims)-1].Name) {
		t.Error("the planned replacement is not in flight: pods could be moved onto a node that does not exist yet")
	}
	where := map[string]string{}
	for _, pod := range after.Pods {
		where[pod.Name] = pod.Spec.NodeName
	}
	if where["pa"] != x || where["pb"] != planned.Name {
		t.Errorf("pods bound to %v, want pa on %s and pb on %s", where, x, planned.Name)
	}
	if _, ok := where["agent-a"]; ok {
		t.Errorf("a's DaemonSet pod is still on %q: it goes with its node", where["agent-a"])
	}
	if pa.Spec.NodeName != "node-a" || pb.Spec.NodeName != "node-b" {
		t.Error("the input's pods were changed")
	}
	if got := []int32{after.PDBs[0].Status.DisruptionsAllowed, after.PDBs[1].Status.DisruptionsAllowed, c.in.PDBs[0].Status.DisruptionsAllowed}; !slices.Equal(got, []int32{3, 5, 5}) {
		t.Errorf("disruptions allowed (web after, other after, web before) %v, want [3 5 5]", got)
	}
}
