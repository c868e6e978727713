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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
)

// repairPool is a NodePool whose only budget is one node at a time for reason Unhealthy.
func repairPool() *karpv1.NodePool {
	return testPool("default", karpv1.ConsolidationPolicyWhenEmpty,
		karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnhealthy}})
}

// notReadyFor is a node that has been NotReady since the time given, as the node lifecycle
// controller marks it.
func notReadySince(since time.Time) nodeOpt {
	return func(_ *karpv1.NodeClaim, n *corev1.Node) {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, LastTransitionTime: metav1.NewTime(since)}}
	}
}

// unhealthy records the node as its repair policy finds it: NotReady for 40 minutes, past a
// 30-minute toleration, with the given priority and drain bound.
func (c *cluster) unhealthy(name string, priority int, bound *time.Duration, lasted time.Duration) {
	if c.in.Repair == nil {
		c.in.Repair = &RepairInput{Unhealthy: map[string]repair.Finding{}, Held: map[string]string{}}
	}
	c.in.Repair.Unhealthy[name] = repair.Finding{
		Policy: cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown,
			TolerationDuration: 30 * time.Minute, TerminationGracePeriod: bound, Priority: priority},
		Condition: corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			LastTransitionTime: metav1.NewTime(testNow.Add(-lasted))},
		Lasted: lasted, TerminationGracePeriod: bound,
	}
}

func TestRepair(t *testing.T) {
	forceful := new(time.Duration(0))
	sick := notReadySince(testNow.Add(-40 * time.Minute))

	t.Run("replaces an unhealthy node with pods, the replacement first, its drain bounded by the policy", func(t *testing.T) {
		c := newCluster(repairPool())
		n := c.node("sick", "default", "m2a.large", sick)
		c.pods(testPod("app", n, "1", "1Gi"))
		c.unhealthy("sick", 50, forceful, 40*time.Minute)
		cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodRepair, DecisionReplace, "sick")
		if cmd.Reason != karpv1.DisruptionReasonUnhealthy || cmd.NeedsValidation() || cmd.DrainBound == nil || *cmd.DrainBound != 0 || cmd.Repair == nil {
			t.Fatalf("want reason Unhealthy, no validation, a forceful drain and the finding: %+v", cmd)
		}
	})
	t.Run("deletes an unhealthy node that runs no pods to move", func(t *testing.T) {
		c := newCluster(repairPool())
		n := c.node("sick", "default", "m2a.large", sick)
		c.pods(testPod("ds", n, "100m", "64Mi", ownedByDS))
		c.unhealthy("sick", 50, forceful, 40*time.Minute)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodRepair, DecisionDelete, "sick")
	})
	t.Run("NotReady nodes do not use up repair's budget", func(t *testing.T) {
		// Two unhealthy nodes under nodes: 1. Counted as disrupting, as they are for other
		// reasons, they left the budget at -1 and repair never started.
		c := newCluster(repairPool())
		c.node("sick-1", "default", "m2a.large", sick)
		c.node("sick-2", "default", "m2a.large", sick)
		c.unhealthy("sick-1", 50, forceful, 40*time.Minute)
		c.unhealthy("sick-2", 50, forceful, 40*time.Minute)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodRepair, DecisionDelete, "sick-1")
	})
	t.Run("one at a time under nodes: 1 of reason Unhealthy", func(t *testing.T) {
		c := newCluster(repairPool())
		c.node("repairing", "default", "m2a.large", sick, withDisruptedTaint)
		c.node("sick", "default", "m2a.large", sick)
		c.unhealthy("repairing", 50, forceful, 41*time.Minute)
		c.unhealthy("sick", 50, forceful, 40*time.Minute)
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		if len(d.BudgetBlocked) != 1 || d.BudgetBlocked[0].Reason != karpv1.DisruptionReasonUnhealthy || !strings.Contains(d.BudgetBlocked[0].Message, "1 are already being disrupted") {
			t.Fatalf("budget-blocked: %+v", d.BudgetBlocked)
		}
	})
	t.Run("a node not initialized yet runs nothing to protect and needs no budget", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty,
			karpv1.Budget{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnhealthy}}))
		c.node("starting", "default", "m2a.large", sick, func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
			nodeClaim.Status.Conditions = nodeClaim.Status.Conditions[:2]
		})
		c.unhealthy("starting", 50, forceful, 40*time.Minute)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodRepair, DecisionDelete, "starting")
	})
	t.Run("the highest priority first, then the longest eligible", func(t *testing.T) {
		c := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
		for _, name := range []string{"a-lower", "b-newer", "c-older"} {
			c.node(name, "default", "m2a.large", sick)
		}
		c.unhealthy("a-lower", 50, forceful, 50*time.Minute)
		c.unhealthy("b-newer", 100, forceful, 31*time.Minute)
		c.unhealthy("c-older", 100, forceful, 45*time.Minute)
		expectCommand(t, c.snapshot().Decide(Options{}), MethodRepair, DecisionDelete, "c-older")
	})
	t.Run("karpenter.sh/do-not-repair on the node or its NodeClaim vetoes repair, and says so", func(t *testing.T) {
		c := newCluster(repairPool())
		c.node("vetoed", "default", "m2a.large", sick, withNodeAnnotation(karpv1.DoNotRepairAnnotationKey, "true"))
		c.node("vetoed-claim", "default", "m2a.large", sick, func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
			metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, karpv1.DoNotRepairAnnotationKey, "true")
		})
		c.unhealthy("vetoed", 50, forceful, 40*time.Minute)
		c.unhealthy("vetoed-claim", 50, forceful, 40*time.Minute)
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "vetoed", ReasonDisruptionBlocked, "repair is blocked through the karpenter.sh/do-not-repair annotation on node node-vetoed")
		expectBlocked(t, d, "vetoed-claim", ReasonDisruptionBlocked, "repair is blocked through the karpenter.sh/do-not-repair annotation on nodeclaim vetoed-claim")
	})
	t.Run("a node a PodDisruptionBudget holds is repaired only with a drain bound, the shorter of the policy's and the NodeClaim's", func(t *testing.T) {
		held := func(tgp *metav1.Duration) *cluster {
			c := newCluster(repairPool())
			n := c.node("sick", "default", "m2a.large", sick, func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
				nodeClaim.Spec.TerminationGracePeriod = tgp
			})
			c.pods(testPod("guarded", n, "1", "1Gi", withLabels(map[string]string{"app": "guarded"})))
			c.in.PDBs = append(c.in.PDBs, testPDB("guarded", map[string]string{"app": "guarded"}, 0))
			return c
		}
		c := held(nil)
		c.unhealthy("sick", 50, nil, 40*time.Minute)
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "sick", ReasonDisruptionBlocked, "repair needs a termination grace period to go past what holds it: PodDisruptionBudget default/guarded allows no disruption")

		c = held(&metav1.Duration{Duration: time.Hour})
		c.unhealthy("sick", 50, nil, 40*time.Minute)
		if cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodRepair, DecisionReplace, "sick"); *cmd.DrainBound != time.Hour {
			t.Errorf("drain bound %s, want the NodeClaim's 1h", *cmd.DrainBound)
		}
		c = held(&metav1.Duration{Duration: time.Hour})
		c.unhealthy("sick", 50, new(10*time.Minute), 40*time.Minute)
		if cmd := expectCommand(t, c.snapshot().Decide(Options{}), MethodRepair, DecisionReplace, "sick"); *cmd.DrainBound != 10*time.Minute {
			t.Errorf("drain bound %s, want the policy's 10m, shorter than the NodeClaim's 1h", *cmd.DrainBound)
		}
	})
	t.Run("the circuit breaker holds repair in its NodePool, and says why", func(t *testing.T) {
		c := newCluster(repairPool())
		c.node("sick", "default", "m2a.large", sick)
		c.unhealthy("sick", 50, forceful, 40*time.Minute)
		c.in.Repair.Held["default"] = "repair is held: 2 of the 3 nodes of NodePool default are unhealthy"
		d := c.snapshot().Decide(Options{})
		expectNoCommand(t, d)
		expectBlocked(t, d, "sick", repair.ReasonNodeRepairBlocked, "but repair is held: 2 of the 3 nodes")
	})
	t.Run("nothing is repaired when the repair method is off", func(t *testing.T) {
		c := newCluster(repairPool())
		c.node("sick", "default", "m2a.large", sick)
		expectNoCommand(t, c.snapshot().Decide(Options{}))
	})
}

// TestPodEvictionCost: karpenter.sh/disruption-cost (upstream v1.15's) is read first, the
// ReplicaSet controller's pod-deletion-cost without it, each an int32.
func TestPodEvictionCost(t *testing.T) {
	const unit = 1.0 / (1 << 27)
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        float64
	}{
		{"an ordinary pod", nil, 1},
		{"karpenter.sh/disruption-cost", map[string]string{karpv1.DisruptionCostAnnotationKey: "1024"}, 1 + 1024*unit},
		{"pod-deletion-cost without it", map[string]string{podDeletionCostAnnotation: "512"}, 1 + 512*unit},
		{"disruption-cost before pod-deletion-cost", map[string]string{karpv1.DisruptionCostAnnotationKey: "-2048", podDeletionCostAnnotation: "512"}, 1 - 2048*unit},
		{"a value that is not an int32 counts as none", map[string]string{karpv1.DisruptionCostAnnotationKey: "1.5"}, 1},
		{"out of the int32 range", map[string]string{karpv1.DisruptionCostAnnotationKey: "4294967296"}, 1},
	} {
		pod := testPod("p", "n", "100m", "64Mi")
		pod.Annotations = tc.annotations
		if got := podEvictionCost(pod); got != tc.want {
			t.Errorf("%s: cost %v, want %v", tc.name, got, tc.want)
		}
	}
}
