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

package disruption_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	nodeclaimdisruption "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/expiration"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Disruption", func() {
	It("drifts the nodes of a NodePool whose template label changes and replaces them one after the other under a budget of nodes: \"1\"", func() {
		nodePool := readyPool("labels", func(np *karpv1.NodePool) {
			np.Spec.Template.Labels["team"] = "checkout"
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
			np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
		})
		// Each pod fills most of its node: neither fits beside the other.
		old, pods := twoNodes(nodePool, "m2a.large", "web", "1500m")

		updatePool(nodePool, func(np *karpv1.NodePool) { np.Spec.Template.Labels["team"] = "payments" })
		pass(controllers)
		for _, nodeClaim := range old {
			ExpectEvent(env.Recorder, nodeClaim.Name, nodeclaimdisruption.EventDriftDetected, "NodePoolDrifted: NodePool labels's template changed")
		}

		By("replacing one node, the other held by the budget until the first is gone")
		Expect(disrupted(old...)).To(HaveLen(1))
		first, second := old[0], old[1]
		if disrupted(old...)[0] == second.Name {
			first, second = second, first
		}
		Expect(meta.FindStatusCondition(ExpectExists(env.Ctx, env.Client, first).Status.Conditions, karpv1.ConditionTypeDisruptionReason)).To(HaveField("Reason", "Drifted"))
		replacements := launched(old...)
		Expect(replacements).To(HaveLen(1))
		Expect(replacements[0].Labels).To(HaveKeyWithValue("team", "payments"))
		pass(controllers)
		Expect(disrupted(old...)).To(Equal([]string{first.Name}), "the replacement is not up: the budget stays used")
		node := ExpectInitialized(env.Ctx, env.Client, lifecycle, replacements...)[0]
		pass(controllers)
		ExpectEvent(env.Recorder, first.Name, engine.ReasonDisruptionTerminating, "now that its replacement "+replacements[0].Name+" is initialized")
		ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, first)
		for _, pod := range pods {
			if pod.Spec.NodeName == "node-"+first.Name {
				ExpectNotFound(env.Ctx, env.Client, pod)
			}
		}
		running(node, "web", "1500m") // the ReplicaSet's new pod, which the kube-scheduler binds to the replacement

		By("replacing the second once the first is gone")
		before := nodeClaims()
		pass(controllers)
		Expect(disrupted(second)).To(HaveLen(1))
		replacements = launched(before...)
		Expect(replacements).To(HaveLen(1))
		ExpectInitialized(env.Ctx, env.Client, lifecycle, replacements...)
		pass(controllers)
		ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, second)
		current := nodeClaims()
		Expect(current).To(HaveLen(2))
		for _, nodeClaim := range current {
			Expect(nodeClaim.Labels).To(HaveKeyWithValue("team", "payments"))
		}
		Expect(test.MetricValue("karpenter_nodeclaims_disrupted_total", map[string]string{"nodepool": "labels", "reason": "drifted"})).To(BeNumerically(">=", 2))
	})

	It("holds drift and consolidation of nodes whose pods a PodDisruptionBudget allows no disruption of, and says so", func() {
		nodePool := readyPool("pdb", withoutDisruptions)
		old, _ := twoNodes(nodePool, "m2a.xlarge", "web", "500m")
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: metav1.NamespaceDefault},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		}
		ExpectApplied(env.Ctx, env.Client, pdb)
		// No kube-controller-manager runs here: write the status its disruption controller would.
		pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2}
		ExpectApplied(env.Ctx, env.Client, pdb)

		By("letting consolidation at the two underused nodes")
		nodePool = updatePool(nodePool, func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })
		pass(controllers)
		env.Step(engine.DefaultValidationDelay)
		pass(controllers)
		for _, nodeClaim := range old {
			ExpectEvent(env.Recorder, nodeClaim.Name, engine.ReasonDisruptionBlocked, "PodDisruptionBudget default/web allows no disruption of pod default/web-")
		}
		expectUntouched(old...)
		Expect(ExpectExists(env.Ctx, env.Client, nodePool).Status.DisruptionBlocked).To(BeEquivalentTo(2), "the NodePool counts the nodes held")

		By("drifting them: still held")
		updatePool(nodePool, func(np *karpv1.NodePool) { np.Spec.Template.Labels["pool"] = "pdb-v2" })
		pass(controllers)
		for _, nodeClaim := range old {
			Expect(meta.IsStatusConditionTrue(ExpectExists(env.Ctx, env.Client, nodeClaim).Status.Conditions, karpv1.ConditionTypeDrifted)).To(BeTrue())
		}
		env.Step(disruption.DefaultPollInterval)
		pass(controllers)
		expectUntouched(old...)

		By("removing the PodDisruptionBudget: the nodes are replaced")
		ExpectDeleted(env.Ctx, env.Client, pdb)
		replaceAll(controllers, lifecycle, old, nil)
	})

	It("lets karpenter.sh/do-not-disrupt hold consolidation but not expiry, whose drain waits for such pods until terminationGracePeriod", func() {
		nodePool := readyPool("dnd", func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration("30s")
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 5 * time.Second}
		})
		old, pods := twoNodes(nodePool, "m2a.xlarge", "batch", "500m", test.Annotated(karpv1.DoNotDisruptAnnotationKey, "true"))

		By("holding consolidation of the underused nodes, with an event naming the pod")
		pass(controllers)
		for i, nodeClaim := range old {
			ExpectEvent(env.Recorder, nodeClaim.Name, engine.ReasonDisruptionBlocked, fmt.Sprintf("pod default/%s is annotated karpenter.sh/do-not-disrupt", pods[i].Name))
		}
		env.Step(engine.DefaultValidationDelay)
		pass(controllers)
		expectUntouched(old...)

		By("expiring them anyway after expireAfter")
		env.Step(30 * time.Second)
		for _, nodeClaim := range old {
			ExpectObjectReconciled(env.Ctx, env.Client, controllers.Expiration, nodeClaim)
			ExpectEvent(env.Recorder, nodeClaim.Name, expiration.EventExpired, "expireAfter (30s) has elapsed")
		}
		Expect(deleting()).To(HaveLen(2))
		// The API server stamped the deletion with its own time, which terminationGracePeriod
		// counts from: the clock goes back to it, as the spec moved the clock on for expiry.
		env.Clock.SetTime(ExpectExists(env.Ctx, env.Client, old[0]).DeletionTimestamp.Time)

		By("draining: the do-not-disrupt pods stay until the terminationGracePeriod of 5 s is over")
		for _, nodeClaim := range old {
			ExpectReconciled(env.Ctx, lifecycle, nodeClaim)
		}
		for _, pod := range pods {
			Expect(ExpectExists(env.Ctx, env.Client, pod).DeletionTimestamp).To(BeNil(), "pod %s is not evicted before the grace period ends", pod.Name)
		}
		env.Step(5 * time.Second)
		ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, old...)
		ExpectNotFound(env.Ctx, env.Client, pods[0], pods[1])
		Expect(test.MetricValue("karpenter_nodeclaims_disrupted_total", map[string]string{"nodepool": "dnd", "reason": "expired"})).To(BeNumerically(">=", 2))
	})

	It("holds consolidation while a do-not-disrupt duration runs and tells the pods until when, then consolidates", func() {
		nodePool := readyPool("dnd-for", nil)
		old, pods := twoNodes(nodePool, "m2a.xlarge", "warming", "500m", test.Annotated(karpv1.DoNotDisruptAnnotationKey, "8s"))

		pass(controllers)
		until := pods[0].Status.StartTime.Add(8 * time.Second).UTC().Format(time.RFC3339)
		for _, pod := range pods {
			Expect(env.Recorder.Notes(pod.Name, engine.ReasonDoNotDisruptUntil)).To(ContainElement(
				HavePrefix("karpenter.sh/do-not-disrupt=8s holds this pod's node from voluntary disruption until " + until)))
		}
		expectUntouched(old...)

		By("consolidating once the 8 s are over, the pods told")
		env.Step(8 * time.Second)
		consolidate(controllers)
		ExpectNotFound(env.Ctx, env.Client, old[0], old[1])
		for _, pod := range pods {
			ExpectEvent(env.Recorder, pod.Name, engine.ReasonDoNotDisruptGracePeriodElapsed, "the pod no longer holds its node")
		}
	})

	It("never removes a node with pods under WhenEmpty, and removes it once it is empty", func() {
		nodePool := readyPool("empty", func(np *karpv1.NodePool) {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
		})
		old, pods := twoNodes(nodePool, "m2a.xlarge", "web", "500m")
		pass(controllers)
		env.Step(engine.DefaultValidationDelay)
		pass(controllers)
		expectUntouched(old...)

		By("deleting the pods: the empty nodes go, and nothing replaces them")
		ExpectDeleted(env.Ctx, env.Client, pods[0], pods[1])
		Expect(consolidate(controllers)).To(BeEmpty())
		Expect(nodeClaims()).To(BeEmpty())
	})

	It("reports the nodes each method could act on, held by nothing but the budgets", func() {
		nodePool := readyPool("eligible", withoutDisruptions)
		old, pods := twoNodes(nodePool, "m2a.xlarge", "web", "500m")
		updatePool(nodePool, func(np *karpv1.NodePool) { np.Spec.Template.Labels["team"] = "payments" })
		// Created after the change: not drifted, and empty.
		_, _ = initializedNode(ExpectExists(env.Ctx, env.Client, nodePool), "m2a.large")
		pass(controllers)
		eligible := func(reason string) float64 {
			return test.MetricValue("karpenter_voluntary_disruption_eligible_nodes", map[string]string{"reason": reason})
		}
		Expect(eligible("drifted")).To(BeEquivalentTo(2), "the two drifted nodes, which a budget of 0 holds")
		Expect(eligible("empty")).To(BeEquivalentTo(1), "the new node, which runs no pod")
		Expect(eligible("underutilized")).To(BeEquivalentTo(2), "the two drifted nodes: the empty one is emptiness's")
		expectUntouched(old...)

		By("a pod that must not be disrupted takes its node out of the count")
		pods[0].Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
		ExpectApplied(env.Ctx, env.Client, pods[0])
		env.Step(disruption.DefaultPollInterval)
		pass(controllers)
		Expect(eligible("drifted")).To(BeEquivalentTo(1))
		Expect(eligible("underutilized")).To(BeEquivalentTo(1))
	})

	It("replaces two half-empty nodes with one cheaper node under WhenEmptyOrUnderutilized", func() {
		nodePool := readyPool("merge", func(np *karpv1.NodePool) { np.Spec.Template.Spec.Requirements[1].Values = []string{"m2a", "c2a"} })
		old, _ := twoNodes(nodePool, "m2a.xlarge", "web", "1500m")
		multi := map[string]string{"decision": "replace", "reason": "underutilized", "consolidation_type": "multi"}
		before := test.MetricValue("karpenter_voluntary_disruption_decisions_total", multi)
		byPool := test.MetricValue("karpenter_voluntary_disruption_decisions_by_nodepool_total", map[string]string{"nodepool": "merge", "decision": "replace", "reason": "underutilized", "consolidation_type": "multi"})
		saved := test.MetricValue("karpenter_kakaocloud_consolidation_savings_total", map[string]string{"nodepool": "merge"})

		replacements := consolidate(controllers)
		Expect(replacements).To(HaveLen(1))
		ExpectNotFound(env.Ctx, env.Client, old[0], old[1])
		Expect(ExpectExists(env.Ctx, env.Client, replacements[0]).Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, "c2a.xlarge"), "the cheapest type for 3 CPUs, cheaper than one m2a.xlarge")
		Expect(test.MetricValue("karpenter_voluntary_disruption_decisions_total", multi)).To(Equal(before + 1))
		Expect(test.MetricValue("karpenter_voluntary_disruption_decisions_by_nodepool_total", map[string]string{"nodepool": "merge", "decision": "replace", "reason": "underutilized", "consolidation_type": "multi"})).To(Equal(byPool + 1))
		Expect(test.MetricValue("karpenter_kakaocloud_consolidation_savings_total", map[string]string{"nodepool": "merge"})).To(BeNumerically(">", saved), "two m2a.xlarge cost more than one c2a.xlarge")
		Expect(test.MetricValue("karpenter_voluntary_disruption_decision_evaluation_duration_seconds", map[string]string{"reason": "underutilized", "consolidation_type": "multi"})).To(BeNumerically(">", 0))
	})

	It("makes a Balanced move whose savings are worth its disruption, with its score in the nodes' events", func() {
		nodePool := readyPool("balanced", func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements[1].Values = []string{"m2a", "c2a"}
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyBalanced
		})
		old, _ := twoNodes(nodePool, "m2a.xlarge", "web", "1500m")
		moves := test.MetricValue("karpenter_consolidation_moves_total", map[string]string{"decision": "approved", "nodepool": "balanced", "policy": "Balanced"})

		// Two nodes of one pod each become one cheaper node: more than half of the NodePool's
		// cost saved for all of its (small) disruption.
		consolidate(controllers)
		for _, nodeClaim := range old {
			Expect(env.Recorder.Notes(nodeClaim.Name, engine.ReasonConsolidationApproved)).To(ContainElement(
				MatchRegexp(`^Balanced consolidation approves removing this node: score [0-9.]+ \(NodePool balanced's Balanced policy needs 0\.50, k=2\)`)))
		}
		ExpectNotFound(env.Ctx, env.Client, old[0], old[1])
		Expect(test.MetricValue("karpenter_consolidation_moves_total", map[string]string{"decision": "approved", "nodepool": "balanced", "policy": "Balanced"})).To(BeNumerically(">", moves))
	})

	It("holds drift outside a budget's maintenance window and replaces inside it", func() {
		now := env.Clock.Now().UTC()
		schedule := fmt.Sprintf("%d %d * * *", now.Add(-time.Hour).Minute(), now.Add(-time.Hour).Hour())
		nodePool := readyPool("window", func(np *karpv1.NodePool) {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
			// Disruption is blocked for 23h a day from an hour ago: the one-hour maintenance
			// window opens in 22h.
			np.Spec.Disruption.Budgets = []karpv1.Budget{
				{Nodes: "100%"},
				{Nodes: "0", Schedule: &schedule, Duration: &metav1.Duration{Duration: 23 * time.Hour}},
			}
		})
		nodeClaim, node := initializedNode(nodePool, "m2a.large")
		running(node, "web", "500m")

		updatePool(nodePool, func(np *karpv1.NodePool) { np.Spec.Template.Labels["pool"] = "window-v2" })
		pass(controllers)
		Expect(meta.IsStatusConditionTrue(ExpectExists(env.Ctx, env.Client, nodeClaim).Status.Conditions, karpv1.ConditionTypeDrifted)).To(BeTrue())
		ExpectEvent(env.Recorder, "window", engine.ReasonDisruptionBlocked,
			`no Drifted disruptions allowed: budget 1 (nodes: "0", schedule "`+schedule+`" for 23h0m0s) allows 0 of 1 nodes`)
		env.Step(21 * time.Hour)
		pass(controllers)
		expectUntouched(nodeClaim)

		By("replacing it once the window opens, 22 h later")
		env.Step(time.Hour + time.Minute)
		pass(controllers)
		Expect(disrupted(nodeClaim)).To(HaveLen(1))
		ExpectInitialized(env.Ctx, env.Client, lifecycle, launched(nodeClaim)...)
		pass(controllers)
		ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, nodeClaim)
	})

	It("removes a karpenter.sh/disrupted taint an earlier leader left on a new leader's first pass, and its own only after a grace", func() {
		nodePool := readyPool("stale-taint", withoutDisruptions)
		nodeClaim, node := initializedNode(nodePool, "m2a.large")
		pass(controllers) // the loop has passed before this taint
		node.Spec.Taints = append(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
		ExpectApplied(env.Ctx, env.Client, node)

		pass(controllers)
		Expect(ExpectExists(env.Ctx, env.Client, node).Spec.Taints).To(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)),
			"a loop that has passed before may have tainted it for a command it has not recorded yet")
		// A new leader's loop, whose first pass this is, knows the taint cannot be its own.
		ExpectPassed(env.Ctx, env.Controllers(func(o *operator.Options) { o.CloudProvider = cloud }).Disruption)
		Expect(ExpectExists(env.Ctx, env.Client, node).Spec.Taints).NotTo(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)), "the first pass removes the taint")
		expectUntouched(nodeClaim)
	})

	It("taints a command's nodes from the copies it was decided on, keeping what changed on them since", func() {
		create := func(name string) *corev1.Node {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: test.RandomName(name)}}
			Expect(env.APIClient.Create(env.Ctx, node)).To(Succeed())
			return node.DeepCopy()
		}
		otherTaint := corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoSchedule}
		current := create("copy-current")
		changed := create("copy-changed")
		untainted := create("copy-untainted")

		By("changing two nodes after the copies were read: a label and a taint on one, the disrupted taint taken off the other")
		stale := changed.DeepCopy()
		changed.Labels = map[string]string{"example.com/changed": "true"}
		changed.Spec.Taints = []corev1.Taint{otherTaint}
		Expect(env.APIClient.Update(env.Ctx, changed)).To(Succeed())
		untainted.Spec.Taints = []corev1.Taint{karpv1.DisruptedNoScheduleTaint}
		Expect(env.APIClient.Update(env.Ctx, untainted)).To(Succeed())
		believed := untainted.DeepCopy() // the copy says tainted, the API server will not
		untainted.Spec.Taints = nil
		Expect(env.APIClient.Update(env.Ctx, untainted)).To(Succeed())

		Expect(disruption.TaintNodes(env.Ctx, env.APIClient, env.APIClient, current, stale, believed)).To(Succeed())
		for _, node := range []*corev1.Node{current, changed, untainted} {
			Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(node), node)).To(Succeed())
			Expect(node.Spec.Taints).To(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)), node.Name)
		}
		Expect(changed.Spec.Taints).To(ContainElement(otherTaint), "the taint added after the copy was read stays")
		Expect(changed.Labels).To(HaveKeyWithValue("example.com/changed", "true"))
		Expect(untainted.Spec.Taints).To(HaveLen(1), "a copy that needs no change is not believed: the node is tainted once")
	})

	It("rolls a command back when its replacement fails to come up, and tries again", func() {
		nodePool := readyPool("rollback", func(np *karpv1.NodePool) {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
		})
		nodeClaim, node := initializedNode(nodePool, "m2a.large")
		pod := running(node, "web", "500m")
		failures := test.MetricValue("karpenter_voluntary_disruption_queue_failures_total", map[string]string{"reason": "drifted"})

		By("drifting the node: tainted before its replacement launches")
		updatePool(nodePool, func(np *karpv1.NodePool) { np.Spec.Template.Labels["pool"] = "rollback-v2" })
		pass(controllers)
		replacements := launched(nodeClaim)
		Expect(replacements).To(HaveLen(1))
		Expect(disrupted(nodeClaim)).To(HaveLen(1))
		Expect(meta.FindStatusCondition(ExpectExists(env.Ctx, env.Client, nodeClaim).Status.Conditions, karpv1.ConditionTypeDisruptionReason)).To(HaveField("Reason", "Drifted"))
		pass(controllers)
		ExpectEvent(env.Recorder, replacements[0].Name, engine.ReasonDisruptionWaitingReadiness, "Waiting on readiness to continue disruption")

		By("failing the replacement (as liveness deletes a NodeClaim whose node never registers)")
		ExpectDeleted(env.Ctx, env.Client, replacements[0])
		ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, replacements[0])
		pass(controllers)
		ExpectEvent(env.Recorder, nodeClaim.Name, engine.ReasonDisruptionFailed, "abandoned and rolled back: replacement nodeclaim "+replacements[0].Name)
		Expect(test.MetricValue("karpenter_voluntary_disruption_queue_failures_total", map[string]string{"reason": "drifted"})).To(BeNumerically(">", failures))
		expectUntouched(nodeClaim)
		Expect(ExpectExists(env.Ctx, env.Client, pod).DeletionTimestamp).To(BeNil(), "its pod never moved")

		By("trying again after a poll interval: the next replacement comes up and the node goes")
		env.Step(disruption.DefaultPollInterval)
		pass(controllers)
		ExpectInitialized(env.Ctx, env.Client, lifecycle, launched(nodeClaim)...)
		pass(controllers)
		ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, pod)
	})

	It("replaces an underused node by a cheaper one of another type (single-node consolidation)", func() {
		nodePool := readyPool("single", func(np *karpv1.NodePool) { np.Spec.Template.Spec.Requirements[1].Values = []string{"m2a", "c2a"} })
		nodeClaim, node := initializedNode(nodePool, "m2a.2xlarge")
		pod := running(node, "web", "1")
		single := map[string]string{"decision": "replace", "reason": "underutilized", "consolidation_type": "single"}
		before := test.MetricValue("karpenter_voluntary_disruption_decisions_total", single)

		replacements := consolidate(controllers)
		Expect(replacements).To(HaveLen(1))
		ExpectNotFound(env.Ctx, env.Client, nodeClaim, pod)
		Expect(ExpectExists(env.Ctx, env.Client, replacements[0]).Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, "c2a.large"), "the cheapest type that holds 1 CPU")
		Expect(test.MetricValue("karpenter_voluntary_disruption_decisions_total", single)).To(Equal(before + 1))
	})

	It("abandons a consolidation that no longer holds after the validation delay, and says why", func() {
		nodePool := readyPool("validate", nil)
		old, _ := twoNodes(nodePool, "m2a.xlarge", "web", "500m")
		pass(controllers)
		Expect(controllers.Disruption.Validating()).NotTo(BeNil(), "a consolidation command waits out its validation delay")
		var candidates []*engine.Candidate
		for _, cmd := range controllers.Disruption.Validating() {
			candidates = append(candidates, cmd.Candidates...)
		}

		By("binding pods to the candidates meanwhile, which no other node has room for")
		for _, candidate := range candidates {
			running(candidate.Node, "late", "3")
		}
		env.Step(engine.DefaultValidationDelay)
		pass(controllers)
		Expect(controllers.Disruption.Validating()).To(BeNil())
		for _, candidate := range candidates {
			ExpectEvent(env.Recorder, candidate.NodeClaim.Name, engine.ReasonConsolidationRejected, "Consolidation rejected")
		}
		expectUntouched(old...)
		Expect(launched(old...)).To(BeEmpty())
	})

	It("rolls a command back when its replacement does not initialize within the replacement timeout", func() {
		nodePool := readyPool("timeout", func(np *karpv1.NodePool) {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
		})
		nodeClaim, node := initializedNode(nodePool, "m2a.large")
		running(node, "web", "500m")
		updatePool(nodePool, func(np *karpv1.NodePool) { np.Spec.Template.Labels["pool"] = "timeout-v2" })
		pass(controllers)
		replacements := launched(nodeClaim)
		Expect(replacements).To(HaveLen(1))

		By("launching the replacement, whose node never registers")
		ExpectReconciled(env.Ctx, lifecycle, replacements[0])
		env.Step(disruption.DefaultReplacementTimeout - time.Second)
		pass(controllers)
		Expect(disrupted(nodeClaim)).To(HaveLen(1), "still waiting within the timeout")
		env.Step(2 * time.Second)
		pass(controllers)
		ExpectEvent(env.Recorder, nodeClaim.Name, engine.ReasonDisruptionFailed, "the replacements did not initialize within 10m0s")
		expectUntouched(nodeClaim)
	})
})
