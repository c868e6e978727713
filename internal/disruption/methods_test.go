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
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// expectCommand checks a decision's command: its method, decision and candidates.
func expectCommand(t *testing.T, d *Decision, method, decision string, names ...string) *Command {
	t.Helper()
	if d.Command == nil {
		t.Fatalf("no command; blocked: %+v, budget-blocked: %+v", blockedMessages(d), d.BudgetBlocked)
	}
	got := d.Command.Names()
	slices.Sort(got)
	slices.Sort(names)
	if d.Command.Method != method || d.Command.Decision() != decision || !slices.Equal(got, names) {
		t.Fatalf("command %s via %s of %v; want %s via %s of %v (%s)", d.Command.Method, d.Command.Decision(), got, method, decision, names, d.Command)
	}
	return d.Command
}

func expectNoCommand(t *testing.T, d *Decision) {
	t.Helper()
	if d.Command != nil {
		t.Fatalf("unexpected command: %s (method %s)", d.Command, d.Command.Method)
	}
}

func blockedMessages(d *Decision) []string {
	var out []string
	for _, b := range d.Blocked {
		out = append(out, b.Node.Name()+": "+b.Reason+": "+b.Message)
	}
	return out
}

func expectBlocked(t *testing.T, d *Decision, node, reason, substring string) {
	t.Helper()
	for _, b := range d.Blocked {
		if b.Node.Name() == node && b.Reason == reason && strings.Contains(b.Message, substring) {
			return
		}
	}
	t.Fatalf("no %s explanation for %s containing %q; have %v", reason, node, substring, blockedMessages(d))
}

func TestEmptiness(t *testing.T) {
	t.Run("deletes consolidatable nodes without pods to move, DaemonSet pods aside", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		c.node("empty", "default", "m2a.large", isConsolidatable)
		ds := c.node("daemons-only", "default", "m2a.large", isConsolidatable)
		busy := c.node("busy", "default", "m2a.large", isConsolidatable)
		c.pods(testPod("ds-1", ds, "100m", "64Mi", ownedByDS), testPod("app", busy, "100m", "64Mi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "empty", "daemons-only")
		if !cmd.NeedsValidation() || cmd.Reason != karpv1.DisruptionReasonEmpty {
			t.Errorf("emptiness commands are validated and carry reason Empty: %+v", cmd)
		}
	})
	t.Run("WhenEmpty never removes a node with pods", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty))
		a := c.node("a", "default", "m2a.2xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.2xlarge", isConsolidatable)
		c.pods(testPod("p1", a, "100m", "64Mi"), testPod("p2", b, "100m", "64Mi"))
		expectNoCommand(t, c.snapshot().Decide(Options{}))
	})
	t.Run("waits for the Consolidatable condition and honours consolidateAfter Never", func(t *testing.T) {
		never := testPool("never", karpv1.ConsolidationPolicyWhenEmpty)
		never.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("Never")
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty), never)
		c.node("not-yet", "default", "m2a.large")
		c.node("never-consolidated", "never", "m2a.large", isConsolidatable)
		expectNoCommand(t, c.snapshot().Decide(Options{}))
	})
	t.Run("takes no more than the Empty budget, counting nodes already being disrupted", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "2"}))
		for _, n := range []string{"e1", "e2", "e3"} {
			c.node(n, "default", "m2a.large", isConsolidatable)
		}
		c.node("leaving", "default", "m2a.large", withDisruptedTaint)
		d := c.snapshot().Decide(Options{})
		if d.Command == nil || len(d.Command.Candidates) != 1 {
			t.Fatalf("want one candidate (budget 2, one node already disrupted), got %+v", d.Command)
		}
	})
	t.Run("the most expensive empty nodes first when the budget allows fewer", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "2"}))
		c.node("a-small", "default", "m2a.large", isConsolidatable)
		c.node("b-large", "default", "m2a.4xlarge", isConsolidatable)
		c.node("c-medium", "default", "m2a.xlarge", isConsolidatable)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "b-large", "c-medium")
	})
	// As upstream's since v1.15: moving pods whose eviction cost is not positive costs nothing,
	// so their node is empty, emptiness's under the Empty budgets and never consolidation's.
	t.Run("a node whose pods cost nothing to evict is empty", func(t *testing.T) {
		lowest := func(p *corev1.Pod) { p.Spec.Priority = new(int32(math.MinInt32)) }
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		e := c.node("e", "default", "m2a.large", isConsolidatable)
		c.node("room", "default", "m2a.xlarge")
		c.pods(testPod("placeholder", e, "200m", "1Gi", lowest), testPod("free", e, "200m", "1Gi", withPodAnnotation(karpv1.DisruptionCostAnnotationKey, "-134217728")))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "e")

		// With no Empty disruption allowed, consolidation does not delete it in emptiness's place.
		c.in.NodePools[0].Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty}}, {Nodes: "100%"}}
		expectNoCommand(t, c.snapshot().Decide(Options{}))

		// One pod that costs something to move makes it consolidation's.
		c.pods(testPod("app", e, "200m", "1Gi"))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "e")
	})
	t.Run("a budget of zero blocks, and says so", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty}}))
		c.node("e1", "default", "m2a.large", isConsolidatable)
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		if len(d.BudgetBlocked) != 1 || !strings.Contains(d.BudgetBlocked[0].Message, `budget 0 (nodes: "0"`) {
			t.Fatalf("budget-blocked: %+v", d.BudgetBlocked)
		}
	})
	t.Run("keeps a node that pending pods are about to land on", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty))
		c.node("fresh", "default", "m2a.large", isConsolidatable)
		c.pods(testPod("waiting", "", "500m", "64Mi"))
		expectNoCommand(t, c.snapshot().Decide(Options{}))
	})
	t.Run("but not for pods the kube-scheduler has not found unschedulable, gated or nominated for preemption, as upstream", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		c.node("fresh", "default", "m2a.large", isConsolidatable)
		gated := testPod("gated", "", "500m", "64Mi")
		gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/queue"}}
		gated.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}
		preempting := testPod("preempting", "", "500m", "64Mi")
		preempting.Status.NominatedNodeName = "elsewhere"
		c.pods(gated, preempting)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "fresh")
	})
	t.Run("nor for the pods of a deleting node that will not leave it", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		c.node("fresh", "default", "m2a.large", isConsolidatable)
		leaving := c.node("leaving", "default", "m2a.large", func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
			nodeClaim.DeletionTimestamp = new(metav1.NewTime(testNow))
		})
		c.pods(testPod("held", leaving, "500m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true"), ownedByRS),
			testPod("naked", leaving, "500m", "64Mi"))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "fresh")

		c.pods(testPod("moving", leaving, "500m", "64Mi", ownedByRS))
		expectNoCommand(t, c.snapshot().Decide(Options{}))
	})
}

func TestDrift(t *testing.T) {
	t.Run("replaces a drifted node whose pods fit nowhere else", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "1"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		c.pods(testPod("p1", a, "1", "1Gi"), testPod("p2", a, "500m", "1Gi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a")
		if len(cmd.Replacements) != 1 || cmd.NeedsValidation() {
			t.Fatalf("want one replacement and no validation: %s", cmd)
		}
		if !strings.HasPrefix(cmd.String(), "disrupting nodeclaim(s) via replace, terminating 1 nodes (2 pods) a/m2a.large/kr-central-2-a and replacing with a node from types ") {
			t.Errorf("log message: %s", cmd)
		}
	})
	t.Run("a replacement may have more of what the NodePool does not limit than the node it replaces", func(t *testing.T) {
		pool := testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "1"})
		pool.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("8"), karpv1.ResourceNodes: resource.MustParse("2")}
		c := newCluster(pool)
		// The NodePool is at its limits of cpu and nodes: only what the drifted node gives
		// back lets its replacement launch. Memory is not limited.
		a := c.node("a", "default", "c2a.xlarge", isDrifted)
		b := c.node("b", "default", "c2a.xlarge")
		c.pods(testPod("p1", a, "3", "1Gi"), testPod("p2", b, "3", "1Gi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a")
		var names []string
		for _, it := range cmd.Replacements[0].InstanceTypes {
			names = append(names, it.Name)
		}
		if want := []string{"c2a.xlarge", "m2a.xlarge", "r2a.xlarge"}; !slices.Equal(names, want) {
			t.Errorf("replacement types %v, want %v: the four CPUs and the node the drifted node holds, whatever their memory", names, want)
		}
	})
	t.Run("with nodes: 1, two drifted nodes go one at a time", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "1"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		b := c.node("b", "default", "m2a.large", isDrifted)
		c.pods(testPod("p1", a, "1500m", "1Gi"), testPod("p2", b, "1500m", "1Gi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a")

		// While a is being replaced (tainted, a candidate of the command under way), b waits.
		c.in.InFlight = sets.New(cmd.Names()...)
		c.in.Nodes[0].Spec.Taints = append(c.in.Nodes[0].Spec.Taints, karpv1.DisruptedNoScheduleTaint)
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		if len(d.BudgetBlocked) != 1 || d.BudgetBlocked[0].Reason != karpv1.DisruptionReasonDrifted {
			t.Fatalf("the Drifted budget should be reported as exhausted: %+v", d.BudgetBlocked)
		}
	})
	t.Run("deletes empty drifted nodes together", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		c.node("a", "default", "m2a.large", isDrifted)
		c.node("b", "default", "m2a.large", isDrifted)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionDelete, "a", "b")
	})
	t.Run("a PodDisruptionBudget with 0 allowed holds it and is named", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		c.pods(testPod("db-0", a, "100m", "64Mi", withLabels(map[string]string{"app": "db"})))
		c.in.PDBs = append(c.in.PDBs, testPDB("db", map[string]string{"app": "db"}, 0))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonDisruptionBlocked, "PodDisruptionBudget default/db allows no disruption of pod default/db-0")
	})
	t.Run("a DaemonSet pod's PodDisruptionBudget with 0 allowed holds it; a mirror pod's does not", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		b := c.node("b", "default", "m2a.large", isDrifted)
		mirror := func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "static"} }
		c.pods(testPod("agent", a, "100m", "64Mi", ownedByDS, withLabels(map[string]string{"app": "agent"})),
			testPod("static", b, "100m", "64Mi", mirror, withLabels(map[string]string{"app": "static"})))
		c.in.PDBs = append(c.in.PDBs, testPDB("agent", map[string]string{"app": "agent"}, 0), testPDB("static", map[string]string{"app": "static"}, 0))
		d := c.snapshot().Decide(Options{})
		expectBlocked(t, d, "a", ReasonDisruptionBlocked, "PodDisruptionBudget default/agent allows no disruption of pod default/agent")
		expectCommand(t, d, MethodDrift, DecisionDelete, "b")
	})
	t.Run("do-not-disrupt on a DaemonSet pod or a mirror pod holds it", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		b := c.node("b", "default", "m2a.large", isDrifted)
		c.pods(testPod("agent", a, "100m", "64Mi", ownedByDS, withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")),
			testPod("static", b, "100m", "64Mi", withPodAnnotation(corev1.MirrorPodAnnotationKey, "static"), withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonDisruptionBlocked, "pod default/agent is annotated karpenter.sh/do-not-disrupt")
		expectBlocked(t, d, "b", ReasonDisruptionBlocked, "pod default/static is annotated karpenter.sh/do-not-disrupt")
	})
	t.Run("a finished pod's do-not-disrupt holds nothing", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		c.pods(testPod("done", a, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionDelete, "a")
	})
	t.Run("a pod covered by two PodDisruptionBudgets holds it", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		c.pods(testPod("db-0", a, "100m", "64Mi", withLabels(map[string]string{"app": "db"})))
		c.in.PDBs = append(c.in.PDBs, testPDB("db", map[string]string{"app": "db"}, 1), testPDB("all", nil, 1))
		expectBlocked(t, c.snapshot().Decide(Options{}), "a", ReasonDisruptionBlocked, "more than one PodDisruptionBudget (db, all)")
	})
	t.Run("do-not-disrupt on a pod or the node holds it", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		c.node("b", "default", "m2a.large", isDrifted, withNodeAnnotation(karpv1.DoNotDisruptAnnotationKey, "true"))
		c.pods(testPod("job", a, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonDisruptionBlocked, "pod default/job is annotated karpenter.sh/do-not-disrupt")
		expectBlocked(t, d, "b", ReasonDisruptionBlocked, "node node-b is annotated karpenter.sh/do-not-disrupt")
	})
	t.Run("a do-not-disrupt duration protects only that long after the pod started", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		b := c.node("b", "default", "m2a.large", isDrifted)
		c.pods(testPod("young", a, "1500m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "2h")),
			testPod("old", b, "1500m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "30m")))
		snap := c.snapshot()
		d := snap.Decide(Options{})
		expectBlocked(t, d, "a", ReasonDisruptionBlocked, "which holds its node until "+snap.now.Add(time.Hour).UTC().Format(time.RFC3339))
		expectCommand(t, d, MethodDrift, DecisionReplace, "b")
		notices := map[string]string{}
		for _, n := range d.Notices {
			notices[n.Pod.Name] = n.Reason + ": " + n.Message
		}
		if want := ReasonDoNotDisruptUntil + ": karpenter.sh/do-not-disrupt=2h holds this pod's node from voluntary disruption until " + testNow.Add(time.Hour).UTC().Format(time.RFC3339); notices["young"] != want {
			t.Errorf("young is told %q, want %q", notices["young"], want)
		}
		if !strings.HasPrefix(notices["old"], ReasonDoNotDisruptGracePeriodElapsed+": karpenter.sh/do-not-disrupt=30m elapsed at") {
			t.Errorf("old is told %q", notices["old"])
		}
	})
	t.Run("a do-not-disrupt value that is neither true nor a duration holds, and the pod is told", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.large", isDrifted)
		c.pods(testPod("typo", a, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "ture")))
		snap := c.snapshot()
		d := snap.Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonDisruptionBlocked, `pod default/typo is annotated karpenter.sh/do-not-disrupt="ture", which is not valid and holds as "true"`)
		if len(d.Notices) != 1 || d.Notices[0].Reason != ReasonInvalidDoNotDisruptAnnotation || !d.Notices[0].Warning {
			t.Errorf("notices %+v, want one InvalidDoNotDisruptAnnotation warning", d.Notices)
		}
	})
	t.Run("replaces a drifted node of a static NodePool with a node of its template", func(t *testing.T) {
		static := testPool("static", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "1"})
		static.Spec.Replicas = new(int64(2))
		c := newCluster(static)
		a := c.node("a", "static", "m2a.large", isDrifted)
		c.node("b", "static", "m2a.large")
		c.pods(testPod("p1", a, "100m", "64Mi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a")
		if len(cmd.Replacements) != 1 || len(cmd.Replacements[0].InstanceTypes) != len(testInstanceTypes()) || len(cmd.Replacements[0].Pods) != 0 {
			t.Fatalf("want one replacement of the template, for no pod in particular: %s", cmd)
		}
	})
	t.Run("replaces an empty drifted node of a static NodePool first too, as the pool never drops below its replicas", func(t *testing.T) {
		static := testPool("static", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
		static.Spec.Replicas = new(int64(2))
		c := newCluster(static)
		c.node("a", "static", "m2a.large", isDrifted)
		c.node("b", "static", "m2a.large", isDrifted)
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a")
		if len(cmd.Replacements) != 1 {
			t.Fatalf("want one replacement: %s", cmd)
		}
	})
	t.Run("a static NodePool's budget caps how many of its drifted nodes are replaced at once", func(t *testing.T) {
		static := testPool("static", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "2"})
		static.Spec.Replicas = new(int64(3))
		c := newCluster(static)
		for _, name := range []string{"a", "b", "c"} {
			c.pods(testPod("p-"+name, c.node(name, "static", "m2a.large", isDrifted), "100m", "64Mi"))
		}
		// Each command under way has its candidate tainted, as the loop leaves it.
		underWay := func(cmd *Command) {
			for _, name := range cmd.Names() {
				c.in.InFlight.Insert(name)
				for _, node := range c.in.Nodes {
					if node.Name == "node-"+name {
						node.Spec.Taints = append(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
					}
				}
			}
		}
		c.in.InFlight = sets.New[string]()
		underWay(expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a"))
		underWay(expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "b"))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		if len(d.BudgetBlocked) != 1 || d.BudgetBlocked[0].Reason != karpv1.DisruptionReasonDrifted ||
			!strings.Contains(d.BudgetBlocked[0].Message, `allows 2 of 3 nodes and 2 are already being disrupted`) {
			t.Fatalf("budget-blocked %+v: want the Drifted budget used up by a and b", d.BudgetBlocked)
		}

		static.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0"}}
		c.in.InFlight = sets.New[string]()
		for _, node := range c.in.Nodes {
			node.Spec.Taints = nil
		}
		d = c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		if len(d.BudgetHeld) != 3 {
			t.Errorf("held by the budget: %v, want a, b and c", d.BudgetHeld)
		}
	})
	t.Run("waits for a static NodePool's deleting node to go when limits.nodes leaves no room for a replacement", func(t *testing.T) {
		// Three of limits.nodes 3: b, being deleted, still counts until it is gone, as
		// upstream's static NodePools count it; a replacement for a would be a fourth.
		static := testPool("static", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
		static.Spec.Replicas = new(int64(2))
		static.Spec.Limits = karpv1.Limits{karpv1.ResourceNodes: resource.MustParse("3")}
		c := newCluster(static)
		a := c.node("a", "static", "m2a.large", isDrifted)
		c.node("b", "static", "m2a.large", func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
			nodeClaim.DeletionTimestamp = &metav1.Time{Time: testNow}
			nodeClaim.Finalizers = []string{karpv1.TerminationFinalizer}
		})
		c.node("c", "static", "m2a.large")
		c.pods(testPod("p1", a, "100m", "64Mi"))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonDisruptionReplacementFailed,
			"cannot replace the drifted node: its static NodePool static is at its node limit: limits.nodes (3) allows no more: the NodePool has 3 NodeClaims, 1 of them being deleted")

		// Once b is gone, there is room again.
		c.in.NodeClaims = slices.DeleteFunc(c.in.NodeClaims, func(nodeClaim *karpv1.NodeClaim) bool { return nodeClaim.Name == "b" })
		expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a")
	})
	t.Run("says so when the pods fit nowhere", func(t *testing.T) {
		pool := testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"})
		c := newCluster(pool)
		a := c.node("a", "default", "m2a.4xlarge", isDrifted)
		c.pods(testPod("huge", a, "15", "200Gi"))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonDisruptionReplacementFailed, "pod default/huge")
	})
}

func TestBalancedConsolidation(t *testing.T) {
	// a (m2a.xlarge, 6) runs 8 pods that fit on a c2a.xlarge (5); b (m2a.xlarge) is full. The
	// NodePool costs 12 and its disruption is 14 (a: 1 + 8 pods, b: 1 + 4 pods): replacing a
	// saves 1/12 of the cost for 9/14 of the disruption, a score of 0.13.
	cluster := func(policy karpv1.ConsolidationPolicy, k *int32) *cluster {
		pool := testPool("default", policy, karpv1.Budget{Nodes: "100%"})
		pool.Spec.Disruption.BalancedK = k
		c := newCluster(pool)
		a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge")
		for i := range 8 {
			c.pods(testPod(fmt.Sprintf("a-%d", i), a, "400m", "256Mi"))
		}
		for i := range 4 {
			c.pods(testPod(fmt.Sprintf("b-%d", i), b, "950m", "256Mi"))
		}
		return c
	}
	t.Run("WhenEmptyOrUnderutilized makes the move: it saves something", func(t *testing.T) {
		cmd := expectCommand(t, cluster(karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, nil).snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "a")
		if len(cmd.Scores) != 0 {
			t.Errorf("scored outside a Balanced NodePool: %v", cmd.Scores)
		}
	})
	t.Run("Balanced passes it over, and says by how much", func(t *testing.T) {
		d := cluster(karpv1.ConsolidationPolicyBalanced, nil).snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonUnconsolidatable, "Balanced consolidation passes it over: score 0.13 (NodePool default's Balanced policy needs 0.50, k=2): it saves 8.3% of the NodePool's cost for 64.3% of its disruption")
		// The decision's scores, for the metrics: the move refused.
		if len(d.Scores) != 1 || d.Scores[0].Approved() || fmt.Sprintf("%.2f", d.Scores[0].Value()) != "0.13" {
			t.Errorf("decision's scores %v, want the one move refused at 0.13", d.Scores)
		}
	})
	t.Run("Balanced with a larger k makes it, with its score", func(t *testing.T) {
		d := cluster(karpv1.ConsolidationPolicyBalanced, new(int32(10))).snapshot().Decide(Options{})
		cmd := expectCommand(t, d, MethodSingleNode, DecisionReplace, "a")
		if len(cmd.Scores) != 1 || !cmd.Scores[0].Approved() || fmt.Sprintf("%.2f", cmd.Scores[0].Value()) != "0.13" {
			t.Errorf("scores %v", cmd.Scores)
		}
		if len(d.Scores) != 1 || d.Scores[0] != cmd.Scores[0] {
			t.Errorf("decision's scores %v, want the command's %v", d.Scores, cmd.Scores)
		}
	})
	t.Run("Balanced does not simulate a node that even deleting would not justify", func(t *testing.T) {
		// small (m2a.large, 3) runs 30 pods, b (m2a.xlarge, 6) 4: deleting small outright
		// saves 3/9 of the cost for 31/36 of the disruption, a score of 0.39.
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyBalanced, karpv1.Budget{Nodes: "100%"}))
		small := c.node("small", "default", "m2a.large", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge")
		for i := range 30 {
			c.pods(testPod(fmt.Sprintf("s-%d", i), small, "10m", "16Mi"))
		}
		for i := range 4 {
			c.pods(testPod(fmt.Sprintf("b-%d", i), b, "950m", "256Mi"))
		}
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "small", ReasonUnconsolidatable, "Balanced consolidation passes it over: even deleting it, score 0.39")
	})
}

func TestConsolidation(t *testing.T) {
	t.Run("never removes or replaces a static NodePool's nodes, empty or underused", func(t *testing.T) {
		static := testPool("static", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
		static.Spec.Replicas = new(int64(3))
		dynamic := testPool("dynamic", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
		c := newCluster(static, dynamic)
		c.node("empty", "static", "m2a.xlarge", isConsolidatable)
		a := c.node("a", "static", "m2a.xlarge", isConsolidatable)
		b := c.node("b", "static", "m2a.xlarge", isConsolidatable)
		roomy := c.node("roomy", "dynamic", "m2a.4xlarge")
		c.pods(testPod("p1", a, "100m", "64Mi"), testPod("p2", b, "100m", "64Mi"), testPod("busy", roomy, "1", "1Gi"))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		if d.Eligible[karpv1.DisruptionReasonEmpty] != 0 || d.Eligible[karpv1.DisruptionReasonUnderutilized] != 0 {
			t.Errorf("static nodes counted as candidates: %v", d.Eligible)
		}
	})
	t.Run("replaces two half-empty nodes with one cheaper node", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge", isConsolidatable)
		c.pods(testPod("p1", a, "1800m", "2Gi"), testPod("p2", b, "1800m", "2Gi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodMultiNode, DecisionReplace, "a", "b")
		if len(cmd.Replacements) != 1 || cmd.Savings <= 0 {
			t.Fatalf("want one cheaper replacement: %s, savings %v", cmd, cmd.Savings)
		}
		for _, it := range cmd.Replacements[0].InstanceTypes {
			if of, _ := it.Offerings.Cheapest(); of.Price >= 12 {
				t.Errorf("replacement type %s costs %v, not less than the two nodes' 12", it.Name, of.Price)
			}
		}
	})
	t.Run("deletes a node whose pods fit on the others", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.2xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.large", isConsolidatable)
		c.pods(testPod("p1", a, "4", "8Gi"), testPod("p2", a, "2", "8Gi"), testPod("small", b, "500m", "1Gi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "b")
		if cmd.Savings != 3 {
			t.Errorf("savings %v, want the m2a.large's 3", cmd.Savings)
		}
	})
	// As upstream's, whose consolidation simulations place the pending pods too: while one of
	// them needs a new node, a move would launch it or one more, and none is made.
	t.Run("waits while pending pods need a new node", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.2xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.large", isConsolidatable)
		c.pods(testPod("p1", a, "4", "8Gi"), testPod("p2", a, "2", "8Gi"), testPod("small", b, "500m", "1Gi"),
			testPod("waiting", "", "8", "8Gi"))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		if len(d.Blocked) == 0 || !strings.Contains(d.Blocked[0].Message, "1 pending pod(s) need a new node first") {
			t.Errorf("blocked: %+v; want the pending pod named as what consolidation waits for", d.Blocked)
		}

		// Once provisioning has launched its node (not registered yet), the move is made: the
		// pod goes to a, which has initialized, though the new NodeClaim has more room left.
		c.node("launched", "default", "m2a.4xlarge")
		c.in.Nodes = c.in.Nodes[:len(c.in.Nodes)-1]
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "b")
	})
	t.Run("replaces one node by a strictly cheaper one only", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		big := c.node("big", "default", "m2a.4xlarge", isConsolidatable)
		full := c.node("full", "default", "c2a.large")
		c.pods(testPod("p1", big, "1", "2Gi"), testPod("p2", full, "1800m", "3Gi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "big")
		if cmd.Replacements[0].InstanceTypes[0].Name != "c2a.large" {
			t.Errorf("cheapest replacement %s", InstanceTypeNames(cmd.Replacements[0], 3))
		}
		for _, it := range cmd.Replacements[0].InstanceTypes {
			if it.Name == "m2a.4xlarge" {
				t.Errorf("the replacement may not be the node's own type")
			}
		}

		c = newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		small := c.node("small", "default", "c2a.large", isConsolidatable)
		c.pods(testPod("p2", small, "1500m", "3Gi"))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "small", ReasonUnconsolidatable, "no instance type that fits its pods costs less than 2.5")
	})
	t.Run("does not replace several nodes by one of their own types", func(t *testing.T) {
		// Replacing a and b by an m2a.2xlarge is deleting b with extra steps: b goes alone.
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.2xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.large", isConsolidatable)
		c.pods(testPod("p1", a, "4", "8Gi"), testPod("p2", a, "2", "8Gi"), testPod("small", b, "500m", "1Gi"))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "b")
	})
	t.Run("WhenEmpty pools are not consolidated", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge", isConsolidatable)
		c.pods(testPod("p1", a, "500m", "1Gi"), testPod("p2", b, "500m", "1Gi"))
		expectNoCommand(t, c.snapshot().Decide(Options{}))
	})
	t.Run("do-not-disrupt and PodDisruptionBudgets hold it", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge", isConsolidatable)
		c.pods(testPod("p1", a, "500m", "1Gi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")),
			testPod("p2", b, "500m", "1Gi", withLabels(map[string]string{"app": "web"})))
		c.in.PDBs = append(c.in.PDBs, testPDB("web", map[string]string{"app": "web"}, 0))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "a", ReasonDisruptionBlocked, "pod default/p1 is annotated")
		expectBlocked(t, d, "b", ReasonDisruptionBlocked, "PodDisruptionBudget default/web")
	})
	t.Run("SkipConsolidation leaves consolidation out", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge", isConsolidatable)
		c.pods(testPod("p1", a, "500m", "1Gi"), testPod("p2", b, "500m", "1Gi"))
		expectNoCommand(t, c.snapshot().Decide(Options{SkipConsolidation: true}))
	})
	t.Run("under --preference-policy=Ignore, a preference for the node's own type does not keep it", func(t *testing.T) {
		preferBig := func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a.4xlarge"}}}},
			}}}}
		}
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		big := c.node("big", "default", "m2a.4xlarge", isConsolidatable)
		c.pods(testPod("p1", big, "1", "2Gi", preferBig))
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "big", ReasonUnconsolidatable, "no instance type that fits its pods costs less than 24")

		c.in.Policies.IgnorePreferences = true
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "big")
		if slices.ContainsFunc(cmd.Replacements[0].InstanceTypes, func(it *cloudprovider.InstanceType) bool { return it.Name == "m2a.4xlarge" }) {
			t.Errorf("replacement types %s include the node's own", InstanceTypeNames(cmd.Replacements[0], 20))
		}
	})
	t.Run("under --preference-policy=Ignore, a preferred anti-affinity does not keep a node", func(t *testing.T) {
		apart := func(p *corev1.Pod) {
			p.Labels = map[string]string{"app": "foo"}
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}},
			}}}}
		}
		// Of one family, so that no node cheaper than both takes the three pods.
		pool := testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
		pool.Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a"}}}
		c := newCluster(pool)
		// a is not consolidatable yet, only a place for b's pod.
		a := c.node("a", "default", "m2a.2xlarge")
		b := c.node("b", "default", "m2a.xlarge", isConsolidatable)
		c.pods(testPod("foo-1", a, "1500m", "1Gi", apart), testPod("foo-2", a, "1500m", "1Gi", apart), testPod("foo-3", b, "1500m", "1Gi", apart))
		// Honouring it, foo-3 keeps away from the others: b is replaced by a smaller node.
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "b")

		c.in.Policies.IgnorePreferences = true
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "b")
	})
	// As upstream's consolidation simulations (IsConsolidationSimulation): a node a pod was
	// bound to or removed from within its NodePool's consolidateAfter takes no candidate's pod.
	t.Run("moves no pod onto a node within consolidateAfter", func(t *testing.T) {
		pool := testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
		pool.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("30s")
		c := newCluster(pool)
		a := c.node("a", "default", "m2a.large", isConsolidatable)
		c.node("room", "default", "m2a.xlarge", withLastPodEvent(testNow.Add(-5*time.Second)))
		c.pods(testPod("a1", a, "200m", "1Gi"))
		// Only a cheaper node of its own would do.
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "a")

		c.in.NodeClaims[1].Status.LastPodEventTime = metav1.NewTime(testNow.Add(-31 * time.Second))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "a")

		// A NodePool that never consolidates has no such window: its nodes take pods at once.
		kept := testPool("kept", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized)
		kept.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("Never")
		c = newCluster(pool, kept)
		a = c.node("a", "default", "m2a.large", isConsolidatable)
		c.node("room", "kept", "m2a.xlarge", withLastPodEvent(testNow.Add(-5*time.Second)))
		c.pods(testPod("a1", a, "200m", "1Gi"))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "a")
	})
	t.Run("a node within consolidateAfter still counts for topology spread, empty or not", func(t *testing.T) {
		spread := func(p *corev1.Pod) {
			p.Labels = map[string]string{"app": "web"}
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelHostname,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
		}
		pool := testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
		pool.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("30s")
		c := newCluster(pool)
		a := c.node("a", "default", "m2a.large", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge")
		c.node("emptied", "default", "m2a.large", withLastPodEvent(testNow.Add(-5*time.Second)))
		c.pods(testPod("web-1", a, "200m", "1Gi", spread), testPod("web-2", b, "200m", "1Gi", spread))
		// web-1 on b would make it 2 against emptied's 0, which the kube-scheduler refuses; on
		// emptied it may not go yet: a is replaced, not deleted.
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "a")
	})
	t.Run("never replaces a node by fewer instance types than minValues, whatever --min-values-policy", func(t *testing.T) {
		withMinValues := func(minValues int) *karpv1.NodePool {
			pool := testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"})
			var names []string
			for _, it := range testInstanceTypes() {
				names = append(names, it.Name)
			}
			pool.Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: names, MinValues: new(minValues)}}
			return pool
		}
		// Of the types that fit, only c2a.large costs less than the node's m2a.large.
		for _, bestEffort := range []bool{false, true} {
			c := newCluster(withMinValues(2))
			c.in.Policies.MinValuesBestEffort = bestEffort
			a := c.node("a", "default", "m2a.large", isConsolidatable)
			c.pods(testPod("p1", a, "500m", "1Gi"))
			d := c.snapshot().Decide(Options{})
			expectNoCommand(t, d)
			expectBlocked(t, d, "a", ReasonUnconsolidatable,
				"the instance types that fit its pods and cost less than 3 would not meet minValues: key node.kubernetes.io/instance-type: minValues 2 not met, only 1 values [c2a.large] available")
		}

		c := newCluster(withMinValues(1))
		a := c.node("a", "default", "m2a.large", isConsolidatable)
		c.pods(testPod("p1", a, "500m", "1Gi"))
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "a")
		if got := cmd.Replacements[0].ToNodeClaim().Spec.Requirements; !slices.ContainsFunc(got, func(r karpv1.NodeSelectorRequirementWithMinValues) bool {
			return r.Key == karpv1.LabelInstanceType && r.MinValues != nil && *r.MinValues == 1 && slices.Equal(r.Values, []string{"c2a.large"})
		}) {
			t.Errorf("the replacement's requirements %v: want instance types [c2a.large] with the NodePool's minValues", got)
		}
	})
	// As upstream's since v1.15: a node's price over 1 plus its pods' eviction costs, highest
	// first. full: 24 / 2; b: 3 / 2; a: 3 / 3. Cheapest to disrupt first, as before v1.15,
	// would have taken b.
	t.Run("the most saved per unit of disruption first, within the Underutilized budget", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "1"}))
		full := c.node("full", "default", "m2a.4xlarge", isConsolidatable)
		a := c.node("a", "default", "m2a.large", isConsolidatable)
		b := c.node("b", "default", "m2a.large", isConsolidatable)
		c.pods(testPod("f", full, "8", "16Gi"), testPod("a1", a, "200m", "1Gi"), testPod("a2", a, "200m", "1Gi"), testPod("b1", b, "200m", "1Gi"))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionReplace, "full")

		// With full's pod kept where it is, the budget's one disruption goes to b, then a.
		c.in.Pods[0].Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "b")
	})
	t.Run("pods' eviction costs count against the savings, a negative one as none", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "1"}))
		a := c.node("a", "default", "m2a.large", isConsolidatable)
		b := c.node("b", "default", "m2a.large", isConsolidatable)
		c.node("room", "default", "m2a.xlarge")
		// a: 3 / (1 + 1 + 0), its second pod's cost clamped to -10 and counted as 0; b: 3 / (1 + 0.5).
		// Summed as they are, as before v1.15, a's -9 would have gone before b's 0.5.
		c.pods(testPod("a1", a, "200m", "1Gi"), testPod("a2", a, "200m", "1Gi", withPodAnnotation(karpv1.DisruptionCostAnnotationKey, "-2147483648")),
			testPod("b1", b, "200m", "1Gi", withPodAnnotation(karpv1.DisruptionCostAnnotationKey, "-67108864")))
		expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "b")
	})
}

func TestValidate(t *testing.T) {
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
	a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
	b := c.node("b", "default", "m2a.xlarge", isConsolidatable)
	c.pods(testPod("p1", a, "1800m", "2Gi"), testPod("p2", b, "1800m", "2Gi"))
	cmd := c.snapshot().Decide(Options{}).Command
	if cmd == nil {
		t.Fatal("no command")
	}
	if again, why := c.snapshot().Validate(cmd); again == nil || again.Decision() != DecisionReplace {
		t.Fatalf("unchanged cluster: %v %s", again, why)
	}

	c.in.Now = testNow.Add(time.Minute)
	c.pods(testPod("late", b, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")))
	if again, why := c.snapshot().Validate(cmd); again != nil || !strings.Contains(why, "pod default/late is annotated") {
		t.Fatalf("a do-not-disrupt pod arrived: %v %q", again, why)
	}
	c.in.Pods = c.in.Pods[:2]
	c.in.NodeClaims[1].Status.Conditions = c.in.NodeClaims[1].Status.Conditions[:3] // no longer consolidatable
	if again, why := c.snapshot().Validate(cmd); again != nil || !strings.Contains(why, "nodeclaim b is no longer a candidate") {
		t.Fatalf("b is no longer consolidatable: %v %q", again, why)
	}
}

// An emptiness command is validated as upstream validates it: the nodes still empty go, within
// the budgets, and it is given up only when none is left.
func TestValidateEmpty(t *testing.T) {
	setup := func() (*cluster, *Command) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		for _, name := range []string{"a", "b", "c"} {
			c.node(name, "default", "m2a.large", isConsolidatable)
		}
		return c, expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "a", "b", "c")
	}
	names := func(cmd *Command) []string {
		got := cmd.Names()
		slices.Sort(got)
		return got
	}

	c, cmd := setup()
	c.in.Now = testNow.Add(time.Minute)
	c.pods(testPod("late", "node-b", "100m", "64Mi"))
	again, why := c.snapshot().Validate(cmd)
	if again == nil || !slices.Equal(names(again), []string{"a", "c"}) || again.Savings != 6 {
		t.Fatalf("b took a pod: want a and c to go, saving 6; got %v %q", again, why)
	}

	c.pods(testPod("protected", "node-c", "0", "0", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true"), ownedByDS))
	if again, why := c.snapshot().Validate(cmd); again == nil || !slices.Equal(names(again), []string{"a"}) {
		t.Fatalf("c is blocked by a do-not-disrupt pod: want a alone to go; got %v %q", again, why)
	}

	c.pods(testPod("late-too", "node-a", "100m", "64Mi"))
	if again, why := c.snapshot().Validate(cmd); again != nil || !strings.Contains(why, "is annotated") {
		t.Fatalf("none is left and one is blocked: want it given up with the block's reason; got %v %q", again, why)
	}

	c, cmd = setup()
	c.pods(testPod("p1", "node-a", "100m", "64Mi"), testPod("p2", "node-b", "100m", "64Mi"), testPod("p3", "node-c", "100m", "64Mi"))
	if again, why := c.snapshot().Validate(cmd); again != nil || why != "none of its 3 nodeclaims is still a candidate for Empty" {
		t.Fatalf("every node took a pod: got %v %q", again, why)
	}

	// The budget narrows to one node during the delay, then a is being disrupted.
	c, cmd = setup()
	c.in.NodePools[0].Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
	if again, why := c.snapshot().Validate(cmd); again == nil || len(again.Candidates) != 1 {
		t.Fatalf("a budget of one node: want one of the three to go; got %v %q", again, why)
	}
	c.in.Nodes[0].Spec.Taints = append(c.in.Nodes[0].Spec.Taints, karpv1.DisruptedNoScheduleTaint)
	c.in.InFlight = sets.New("a")
	if again, why := c.snapshot().Validate(cmd); again != nil || !strings.Contains(why, "the budgets now allow no Empty disruption of its 2 nodeclaims still empty") {
		t.Fatalf("a is being disrupted and the budget is one node: got %v %q", again, why)
	}
}

// TestFingerprint: the loop skips consolidation while the fingerprint stays what it was after
// a pass that found nothing, so what time alone changes must change it.
func TestFingerprint(t *testing.T) {
	build := func(now time.Time, protect string, budgets ...karpv1.Budget) uint64 {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, budgets...))
		c.in.Now = now
		a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
		var opts []podOpt
		if protect != "" {
			opts = append(opts, withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, protect))
		}
		c.pods(testPod("warming", a, "100m", "64Mi", opts...))
		return c.snapshot().Fingerprint()
	}
	if build(testNow, "90m") != build(testNow.Add(time.Minute), "90m") {
		t.Error("a minute later with nothing else changed, the fingerprint changed")
	}
	// The pod started an hour before testNow: its 90 minutes run out 30 minutes after it.
	if build(testNow, "90m") == build(testNow.Add(31*time.Minute), "90m") {
		t.Error("the do-not-disrupt duration ran out and the fingerprint stayed")
	}
	// A budget that allows nothing for an hour from testNow.
	window := karpv1.Budget{Nodes: "0", Schedule: new(fmt.Sprintf("%d %d * * *", testNow.Minute(), testNow.Hour())), Duration: &metav1.Duration{Duration: time.Hour}}
	if build(testNow.Add(10*time.Minute), "", window) == build(testNow.Add(2*time.Hour), "", window) {
		t.Error("a budget's blocking window closed and the fingerprint stayed")
	}
}

func TestBlockedByPool(t *testing.T) {
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}), testPool("other", karpv1.ConsolidationPolicyWhenEmpty))
	held := c.node("held", "default", "m2a.large", isDrifted)
	free := c.node("free", "default", "m2a.large", isDrifted)
	quiet := c.node("quiet", "default", "m2a.large") // neither drifted nor consolidatable
	c.node("annotated", "default", "m2a.large", isConsolidatable, withNodeAnnotation(karpv1.DoNotDisruptAnnotationKey, "true"))
	c.pods(testPod("db-0", held, "100m", "64Mi", withLabels(map[string]string{"app": "db"})),
		testPod("web", free, "100m", "64Mi"),
		testPod("job", quiet, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "true")))
	c.in.PDBs = append(c.in.PDBs, testPDB("db", map[string]string{"app": "db"}, 0))
	if got := c.snapshot().BlockedByPool(); got["default"] != 2 || got["other"] != 0 || len(got) != 2 {
		t.Errorf("blocked %v, want default 2 (held by a PodDisruptionBudget, annotated) and other 0", got)
	}
}

func TestCapacityBuffers(t *testing.T) {
	chunks := func(n int32) []*corev1.Pod {
		cb := &autoscalingv1beta1.CapacityBuffer{ObjectMeta: metav1.ObjectMeta{Name: "buffer", Namespace: "default", UID: "buffer"},
			Status: autoscalingv1beta1.CapacityBufferStatus{Replicas: &n}}
		return capacitybuffer.VirtualPods(cb, corev1.PodTemplateSpec{Spec: testPod("chunk", "", "1", "512Mi").Spec})
	}
	t.Run("keeps the node a buffer's chunk lands on, and removes the other empty ones", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		c.node("a", "default", "m2a.large", isConsolidatable)
		c.node("b", "default", "m2a.large", isConsolidatable)
		c.in.BufferPods = chunks(1)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "b")

		c.in.BufferPods = nil
		expectCommand(t, c.snapshot().Decide(Options{}), MethodEmptiness, DecisionDelete, "a", "b")
	})
	t.Run("a chunk does not hold its node against drift: the replacement has room for it", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		c.node("a", "default", "m2a.large", isDrifted)
		c.in.BufferPods = chunks(1)
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodDrift, DecisionReplace, "a")
		if len(cmd.Replacements) != 1 || len(cmd.Replacements[0].Pods) != 1 || !capacitybuffer.IsVirtual(cmd.Replacements[0].Pods[0]) {
			t.Errorf("want one replacement for the chunk: %s", cmd)
		}
	})
	t.Run("consolidation deletes a node only when its chunks fit elsewhere", func(t *testing.T) {
		// Two of the cheapest nodes, each running 300m: one can go, its pod moving to the other.
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a := c.node("a", "default", "c2a.large", isConsolidatable)
		b := c.node("b", "default", "c2a.large", isConsolidatable)
		c.pods(testPod("pa", a, "300m", "64Mi"), testPod("pb", b, "300m", "64Mi"))
		deletesOne := func(what string) {
			t.Helper()
			d := c.snapshot().Decide(Options{})
			if d.Command == nil || len(d.Command.Candidates) != 1 || d.Command.Decision() != DecisionDelete {
				t.Fatalf("%s: want one node deleted, got %+v", what, d.Command)
			}
		}
		deletesOne("without a buffer")
		// One chunk of 1 CPU still fits beside both pods on one node.
		c.in.BufferPods = chunks(1)
		deletesOne("with one chunk")
		// Two do not: each node keeps its chunk, and a larger node would cost as much.
		c.in.BufferPods = chunks(2)
		expectNoCommand(t, c.snapshot().Decide(Options{}))
	})
}

func TestUninitializedDestinations(t *testing.T) {
	// b registered but never initialized (a replacement a rolled-back command left behind):
	// a's pod fits there, and the move is refused rather than made, as upstream refuses it.
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
	a := c.node("a", "default", "m2a.large", isDrifted)
	c.node("b", "default", "m2a.xlarge", func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)
	})
	c.pods(testPod("p", a, "100m", "64Mi"))
	d := c.snapshot().Decide(Options{})
	expectNoCommand(t, d)
	expectBlocked(t, d, "a", ReasonDisruptionReplacementFailed, "cannot replace the drifted node: pod default/p: it would move to node-b, which has not initialized yet")
}

func TestDecideTimesEachMethod(t *testing.T) {
	c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized))
	busy := c.node("busy", "default", "m2a.large", isConsolidatable)
	c.pods(testPod("app", busy, "1", "1Gi"))
	tick := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { tick = tick.Add(time.Second); return tick }
	for _, tc := range []struct {
		skip bool
		want []string
	}{
		{false, []string{MethodRepair, MethodEmptiness, MethodDrift, MethodMultiNode, MethodSingleNode}},
		{true, []string{MethodRepair, MethodEmptiness, MethodDrift}},
	} {
		d := c.snapshot().Decide(Options{SkipConsolidation: tc.skip, Clock: clock})
		var got []string
		for _, e := range d.Evaluations {
			got = append(got, e.Method)
			if e.Duration <= 0 {
				t.Errorf("%s took %v on a clock that ticks on every read", e.Method, e.Duration)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("skip %v: evaluated %v, want %v", tc.skip, got, tc.want)
		}
	}
	if got := (Evaluation{Method: MethodMultiNode}).ConsolidationType(); got != "multi" {
		t.Errorf("multi-node consolidation's type is %q", got)
	}
}

// TestDecisionSaysWhatItFound: what the loop reports comes with the decision, and nothing of
// it is left on the snapshot: a second decision on the same snapshot is the same.
func TestDecisionSaysWhatItFound(t *testing.T) {
	untilIn := func(d time.Duration) string { return testNow.Add(d).UTC().Format(time.RFC3339) }
	notices := func(d *Decision) map[string]string {
		out := map[string]string{}
		for _, n := range d.Notices {
			if _, twice := out[n.Pod.Name]; twice {
				t.Errorf("%s told twice", n.Pod.Name)
			}
			out[n.Pod.Name] = n.Reason + ": " + n.Message
		}
		return out
	}
	t.Run("the pods of every node a method would act on are told, whatever the decision tries", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		// web-0 is consolidation's (skipped below), nominated's (pods are headed there) and
		// quiet's (neither drifted nor consolidatable, so no method's) each run a pod held for
		// two hours after it started, an hour ago.
		held := withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "2h")
		web := c.node("web-0", "default", "m2a.large", isConsolidatable)
		nominated := c.node("nominated", "default", "m2a.large", isDrifted)
		quiet := c.node("quiet", "default", "m2a.large")
		c.pods(testPod("web", web, "100m", "64Mi", held), testPod("headed", nominated, "100m", "64Mi", held), testPod("idle", quiet, "100m", "64Mi", held))
		c.in.Nominated = sets.New("nominated")
		want := ReasonDoNotDisruptUntil + ": karpenter.sh/do-not-disrupt=2h holds this pod's node from voluntary disruption until " + untilIn(time.Hour)
		got := notices(c.snapshot().Decide(Options{SkipConsolidation: true}))
		if got["web"] != want || got["headed"] != want || len(got) != 2 {
			t.Errorf("notices %v, want web and headed told %q, idle nothing", got, want)
		}
	})
	t.Run("an unhealthy node's pods are told once repair looks at it", func(t *testing.T) {
		c := newCluster(repairPool())
		sick := c.node("sick", "default", "m2a.large", notReadySince(testNow.Add(-40*time.Minute)))
		c.node("other", "default", "m2a.large")
		c.pods(testPod("job", sick, "100m", "64Mi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "30m")))
		c.unhealthy("sick", 50, nil, 40*time.Minute)
		got := notices(c.snapshot().Decide(Options{}))
		if !strings.HasPrefix(got["job"], ReasonDoNotDisruptGracePeriodElapsed+": karpenter.sh/do-not-disrupt=30m elapsed at ") || len(got) != 1 {
			t.Errorf("notices %v, want job told its annotation elapsed", got)
		}
	})
	t.Run("every NodePool's budgets, by name and reason", func(t *testing.T) {
		c := newCluster(testPool("b", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}}),
			testPool("a", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "50%"}))
		c.node("a-1", "a", "m2a.large")
		c.node("a-2", "a", "m2a.large", withDisruptedTaint)
		c.node("b-1", "b", "m2a.large")
		var got []string
		for _, b := range c.snapshot().Decide(Options{}).Budgets {
			allowed := fmt.Sprint(b.Allowed)
			if b.Allowed == Unlimited {
				allowed = "unlimited"
			}
			got = append(got, fmt.Sprintf("%s %s %s %d", b.NodePool, b.Reason, allowed, b.Disrupting))
		}
		want := []string{
			"a Empty 1 1", "a Drifted 1 1", "a Underutilized 1 1", "a Unhealthy 1 1",
			"b Empty unlimited 0", "b Drifted 1 0", "b Underutilized unlimited 0", "b Unhealthy unlimited 0",
		}
		if !slices.Equal(got, want) {
			t.Errorf("budgets %q, want %q", got, want)
		}
	})
	t.Run("a second decision on the same snapshot is the same", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyBalanced, karpv1.Budget{Nodes: "100%"}))
		// a's pod holds it; b and x are full, c is underused but Balanced passes it over.
		a := c.node("a", "default", "m2a.xlarge", isConsolidatable)
		b := c.node("b", "default", "m2a.xlarge", isConsolidatable)
		under := c.node("c", "default", "m2a.xlarge", isConsolidatable)
		c.pods(testPod("job", a, "3", "1Gi", withPodAnnotation(karpv1.DoNotDisruptAnnotationKey, "2h")), testPod("full", b, "3500m", "1Gi"))
		for i := range 8 {
			c.pods(testPod(fmt.Sprintf("c-%d", i), under, "400m", "256Mi"))
		}
		snap := c.snapshot()
		first, second := snap.Decide(Options{}), snap.Decide(Options{})
		if len(first.Blocked) == 0 || len(first.Notices) == 0 || len(first.Scores) == 0 {
			t.Fatalf("the first decision found little: blocked %v, notices %v, scores %v", blockedMessages(first), first.Notices, first.Scores)
		}
		if !slices.Equal(blockedMessages(first), blockedMessages(second)) || !slices.Equal(first.Scores, second.Scores) ||
			len(first.Notices) != len(second.Notices) || len(first.Verdicts) != len(second.Verdicts) ||
			!maps.Equal(first.Eligible, second.Eligible) || (first.Command == nil) != (second.Command == nil) {
			t.Errorf("decided %v then %v (scores %v, %v; notices %d, %d)", blockedMessages(first), blockedMessages(second),
				first.Scores, second.Scores, len(first.Notices), len(second.Notices))
		}
	})
}

func TestSavingsByPool(t *testing.T) {
	c := newCluster(testPool("a", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized), testPool("b", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized))
	c.node("a-1", "a", "m2a.large")
	c.node("b-1", "b", "m2a.large")
	c.node("b-2", "b", "m2a.large")
	snap := c.snapshot()
	var cands []*Candidate
	for _, n := range snap.nodes {
		cands = append(cands, &Candidate{StateNode: n})
	}
	cmd := &Command{Method: MethodMultiNode, Candidates: cands, Savings: totalPrice(cands) / 2}
	got := cmd.SavingsByNodePool()
	price := cands[0].price
	if len(got) != 2 || math.Abs(got["a"]-price/2) > 1e-9 || math.Abs(got["b"]-price) > 1e-9 {
		t.Errorf("savings by pool %v, want a %v and b %v: each pool's share of the cost", got, price/2, price)
	}
	if pools := cmd.NodePools(); !slices.Equal(pools, []string{"a", "b"}) && !slices.Equal(pools, []string{"b", "a"}) {
		t.Errorf("candidate pools %v, want a and b once each", pools)
	}
	cmd.Savings = 0
	if got := cmd.SavingsByNodePool(); len(got) != 0 {
		t.Errorf("a command that saves nothing shares %v", got)
	}
}

// A command under way whose candidate's pods are still on it holds the room they were placed
// in: a second command decided meanwhile does not count on it, and a pod that has left is
// counted where it is now, not twice.
func TestHeldForCommandsUnderWay(t *testing.T) {
	// Every pod asks for the m2a family: no type of it is cheaper than its node and still holds
	// it, so the only moves are deletions onto x, which is no candidate.
	m2a := func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{kcv1.LabelInstanceFamily: "m2a"} }
	setup := func() (c *cluster, a, b, x string) {
		c = newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized, karpv1.Budget{Nodes: "100%"}))
		a, b = c.node("a", "default", "m2a.xlarge", isConsolidatable), c.node("b", "default", "m2a.xlarge", isConsolidatable)
		x = c.node("x", "default", "m2a.2xlarge")
		// x (7.9 CPUs) has 2.9 CPUs free: room for a's pod or b's, not both.
		c.pods(testPod("pa", a, "2", "4Gi", ownedByRS, m2a), testPod("pb", b, "2", "4Gi", ownedByRS, m2a),
			testPod("px", x, "5", "20Gi", ownedByRS, m2a))
		return c, a, b, x
	}
	freeCPU := func(c *cluster, x string) int64 {
		t.Helper()
		for _, d := range c.snapshot().dests {
			if d.existing.ID.Key() == destination.NodeNamed(x) {
				return d.freeCPU
			}
		}
		t.Fatalf("%s is no destination", x)
		return 0
	}

	c, _, _, x := setup()
	if got := freeCPU(c, x); got != 2900 {
		t.Fatalf("x has %dm free before any command, want 2900m", got)
	}
	cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodSingleNode, DecisionDelete, "a")

	// The command under way: a is tainted, and its pod is still on it.
	c.in.InFlight = sets.New(cmd.Names()...)
	c.in.Headed = cmd.Placed
	c.in.Nodes[0].Spec.Taints = append(c.in.Nodes[0].Spec.Taints, karpv1.DisruptedNoScheduleTaint)
	if got := freeCPU(c, x); got != 900 {
		t.Errorf("x has %dm free while a's pod is headed there, want 900m", got)
	}
	expectNoCommand(t, c.snapshot().Decide(Options{}))

	t.Run("a pod that has left is counted where it is, once", func(t *testing.T) {
		for _, where := range []string{"", x} {
			c, a, _, x := setup()
			c.in.InFlight, c.in.Headed = sets.New("a"), cmd.Placed
			// The ReplicaSet's new pod, pending or bound to x, in place of the evicted one.
			c.in.Pods = slices.DeleteFunc(c.in.Pods, func(p *corev1.Pod) bool { return p.Spec.NodeName == a })
			c.pods(testPod("pa-2", where, "2", "4Gi", ownedByRS, m2a))
			if got := freeCPU(c, x); got != 900 {
				t.Errorf("new pod on %q: x has %dm free, want 900m", where, got)
			}
		}
	})
}
