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

package health_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Node repair", func() {
	It("replaces a node NotReady past its toleration, without waiting on PodDisruptionBudgets, and not before", func() {
		nodePool := pool()
		nodeClaim, node := readyNode(nodePool)
		Expect(ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node).RequeueAfter).To(BeZero(), "a Ready node is left alone")

		node = notReady(node)
		// Its VM is active: what could make it a repair sooner is looked at again in 30 s.
		Expect(ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node).RequeueAfter).To(Equal(30 * time.Second))
		// The condition's transition time is kept to the second.
		env.Step(kakao.DefaultNotReadyToleration - time.Second)
		ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node)
		Expect(deleting(nodeClaim)).To(BeFalse())
		ExpectNoEvent(env.Recorder, node.Name, repair.ReasonNodeRepair)

		before := test.MetricValue("karpenter_nodeclaims_unhealthy_disrupted_total", map[string]string{"condition": "ready", "nodepool": nodePool.Name})
		env.Step(2 * time.Second)
		ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node)
		Expect(deleting(nodeClaim)).To(BeTrue())
		Expect(ExpectExists(env.Ctx, env.Client, nodeClaim).Annotations).To(HaveKeyWithValue(karpv1.NodeClaimTerminationTimestampAnnotationKey,
			env.Clock.Now().UTC().Format(time.RFC3339)), "its terminationGracePeriod is over: the drain does not wait on PodDisruptionBudgets")
		ExpectEvent(env.Recorder, nodeClaim.Name, repair.ReasonNodeRepair, "its Ready condition has been Unknown for 30m")
		ExpectEvent(env.Recorder, nodeClaim.Name, repair.ReasonNodeRepair, "past the 30m0s its repair policy tolerates")
		ExpectEvent(env.Recorder, node.Name, repair.ReasonNodeRepair, "without waiting on PodDisruptionBudgets")
		ExpectMetric("karpenter_nodeclaims_unhealthy_disrupted_total", map[string]string{"condition": "ready", "nodepool": nodePool.Name}, Equal(before+1))
		ExpectMetric("karpenter_nodeclaims_disrupted_total", map[string]string{"reason": "unhealthy", "nodepool": nodePool.Name}, BeNumerically(">=", 1))
	})

	It("replaces a node sooner when KakaoCloud reports its VM stopped", func() {
		nodeClaim, node := readyNode(pool())
		Expect(env.Emulator.SetInstanceState(instanceID(nodeClaim), kakaocloud.InstanceStatusStopped)).To(Succeed())
		node = notReady(node)
		Expect(ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node).RequeueAfter).To(BeNumerically("~", kakao.DefaultInstanceFailedToleration, time.Second))
		env.Step(kakao.DefaultInstanceFailedToleration + time.Second)
		ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node)
		Expect(deleting(nodeClaim)).To(BeTrue())
		ExpectEvent(env.Recorder, nodeClaim.Name, repair.ReasonNodeRepair, "and KakaoCloud reports its VM stopped, past the 10m0s its repair policy tolerates")
	})

	It("looks at a NotReady node's VM again, and replaces it on the shorter toleration once KakaoCloud reports it in error, though the node did not change", func() {
		nodeClaim, node := readyNode(pool())
		node = notReady(node)
		// KakaoCloud still reports the VM active: only the 30-minute policy applies yet, but
		// the VM's state is looked at again well before.
		Expect(ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node).RequeueAfter).To(Equal(30 * time.Second))
		Expect(env.Emulator.SetInstanceState(instanceID(nodeClaim), kakaocloud.InstanceStatusError)).To(Succeed())
		env.Step(kakao.DefaultInstanceFailedToleration + time.Second)
		ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node)
		Expect(deleting(nodeClaim)).To(BeTrue())
		ExpectEvent(env.Recorder, nodeClaim.Name, repair.ReasonNodeRepair, "and KakaoCloud reports its VM error, past the 10m0s its repair policy tolerates")
	})

	It("holds repair while more of a NodePool's nodes than its repair.maxUnhealthy are unhealthy, and says so", func() {
		nodePool := pool()
		var unhealthy []*karpv1.NodeClaim
		var nodes []string
		for i := range 3 {
			nodeClaim, node := readyNode(nodePool)
			if i < 2 {
				notReady(node)
				unhealthy = append(unhealthy, nodeClaim)
				nodes = append(nodes, node.Name)
			}
		}
		env.Step(kakao.DefaultNotReadyToleration + time.Second)
		for i, nodeClaim := range unhealthy {
			Expect(ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, nodeByName(nodes[i])).RequeueAfter).To(Equal(time.Minute))
			Expect(deleting(nodeClaim)).To(BeFalse())
			ExpectEvent(env.Recorder, nodeClaim.Name, repair.ReasonNodeRepairBlocked,
				"repair is held: 2 of the 3 nodes of NodePool "+nodePool.Name+" are unhealthy, more than its repair.maxUnhealthy (20%, 1 nodes) allows")
		}

		By("letting repair go on with two unhealthy nodes")
		nodePool = ExpectExists(env.Ctx, env.Client, nodePool)
		nodePool.Spec.Disruption.Repair = &karpv1.Repair{MaxUnhealthy: "2"}
		ExpectApplied(env.Ctx, env.Client, nodePool)
		ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, nodeByName(nodes[0]))
		Expect(deleting(unhealthy[0])).To(BeTrue())
	})

	It("does not repair in a NodePool whose repair.maxUnhealthy is 0", func() {
		nodeClaim, node := readyNode(pool(func(nodePool *karpv1.NodePool) {
			nodePool.Spec.Disruption.Repair = &karpv1.Repair{MaxUnhealthy: "0"}
		}))
		node = notReady(node)
		env.Step(kakao.DefaultNotReadyToleration + time.Second)
		ExpectObjectReconciled(env.Ctx, controllers.Health.Client, controllers.Health, node)
		Expect(deleting(nodeClaim)).To(BeFalse())
		ExpectEvent(env.Recorder, node.Name, repair.ReasonNodeRepairBlocked, "repair is turned off for NodePool")
	})
})

// The repair method of the disruption loop (the default since upstream Karpenter v1.15; the
// specs above are the legacy controller's) over the same emulator and API server.
var _ = Describe("Node repair as a disruption method", func() {
	BeforeEach(func() {
		controllers.Disruption.NodeRepair = true
		DeferCleanup(func() { controllers.Disruption.NodeRepair = false })
	})
	unhealthyBudget := func(nodePool *karpv1.NodePool) {
		nodePool.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnhealthy}}}
	}

	It("repairs a node past its toleration within the Unhealthy budget, its drain ended at once by its policy, and not before", func() {
		nodePool := pool(unhealthyBudget)
		nodeClaim, node := readyNode(nodePool)
		node = notReady(node)
		env.Step(kakao.DefaultNotReadyToleration - time.Second)
		Expect(controllers.Disruption.Pass(env.Ctx)).To(Succeed())
		Expect(deleting(nodeClaim)).To(BeFalse())

		before := test.MetricValue("karpenter_nodeclaims_unhealthy_disrupted_total", map[string]string{"condition": "ready", "nodepool": nodePool.Name})
		env.Step(2 * time.Second)
		Expect(controllers.Disruption.Pass(env.Ctx)).To(Succeed())
		Expect(deleting(nodeClaim)).To(BeTrue())
		Expect(ExpectExists(env.Ctx, env.Client, nodeClaim).Annotations).To(HaveKeyWithValue(karpv1.NodeClaimTerminationTimestampAnnotationKey,
			env.Clock.Now().UTC().Format(time.RFC3339)), "its repair policy's termination grace period is 0")
		ExpectEvent(env.Recorder, node.Name, repair.ReasonNodeRepair, "past the 30m0s its repair policy tolerates; it has no pods to move, then its pods are deleted without waiting")
		ExpectMetric("karpenter_nodeclaims_unhealthy_disrupted_total", map[string]string{"condition": "ready", "nodepool": nodePool.Name}, Equal(before+1))
		ExpectMetric("karpenter_nodeclaims_disrupted_total", map[string]string{"reason": "unhealthy", "nodepool": nodePool.Name}, BeNumerically(">=", 1))
	})

	It("leaves a node annotated karpenter.sh/do-not-repair alone, and says so", func() {
		nodeClaim, node := readyNode(pool(unhealthyBudget))
		node = notReady(node)
		node.Annotations = map[string]string{karpv1.DoNotRepairAnnotationKey: "true"}
		ExpectApplied(env.Ctx, env.Client, node)
		env.Step(kakao.DefaultNotReadyToleration + time.Second)
		Expect(controllers.Disruption.Pass(env.Ctx)).To(Succeed())
		Expect(deleting(nodeClaim)).To(BeFalse())
		ExpectEvent(env.Recorder, nodeClaim.Name, "DisruptionBlocked", "repair is blocked through the karpenter.sh/do-not-repair annotation")
	})
})
