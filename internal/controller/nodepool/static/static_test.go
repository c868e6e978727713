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

package static_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodepool/static"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Static NodePools", func() {
	It("keeps spec.replicas NodeClaims, each offering every instance type the template allows", func() {
		nodePool := staticPool(3)
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		claims := liveClaims(nodePool)
		Expect(claims).To(HaveLen(3))
		types, err := controllers.CloudProvider.GetInstanceTypes(env.Ctx, nodePool)
		Expect(err).NotTo(HaveOccurred())
		for _, nodeClaim := range claims {
			Expect(nodeClaim.Labels).To(HaveKeyWithValue(karpv1.LabelNodePool, nodePool.Name))
			Expect(nodeClaim.Spec.Requirements).To(ContainElement(SatisfyAll(
				HaveField("Key", corev1.LabelInstanceTypeStable), HaveField("Values", HaveLen(len(types))))))
		}
		ExpectEvent(env.Recorder, nodePool.Name, static.ReasonScaledUp, "created 3 NodeClaims to reach 3 replicas")

		By("counting the NodeClaims just created: no second round")
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(HaveLen(3))

		By("replacing a NodeClaim that goes (expiry, repair, a user's delete)")
		ExpectDeleted(env.Ctx, env.Client, &claims[0])
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(HaveLen(3))
	})

	It("scales down the NodeClaims not launched yet first, then the emptiest nodes", func() {
		nodePool := staticPool(3)
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		launched := liveClaims(nodePool)[1]
		launched.Status.ProviderID = "kakaocloud://00000000-0000-4000-8000-000000000001"
		ExpectApplied(env.Ctx, env.Client, &launched)

		nodePool = scaleTo(nodePool, 1)
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(ConsistOf(HaveField("Name", launched.Name)))
		ExpectEvent(env.Recorder, nodePool.Name, static.ReasonScaledDown, "deleting 2 NodeClaims to come down to 1 replicas")
	})

	It("creates no more than limits.nodes allows, and says so", func() {
		nodePool := staticPool(3, func(nodePool *karpv1.NodePool) {
			nodePool.Spec.Limits = karpv1.Limits{karpv1.ResourceNodes: resource.MustParse("2")}
		})
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(HaveLen(2))
		ExpectEvent(env.Recorder, nodePool.Name, static.ReasonScaleUpWaiting, "2 of 3 replicas: limits.nodes (2) allows no more")
	})

	It("counts a NodeClaim being deleted against limits.nodes until it is gone", func() {
		nodePool := staticPool(3, func(nodePool *karpv1.NodePool) {
			nodePool.Spec.Limits = karpv1.Limits{karpv1.ResourceNodes: resource.MustParse("3")}
		})
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		claims := liveClaims(nodePool)
		Expect(claims).To(HaveLen(3))

		By("a NodeClaim whose termination has not finished still counts")
		held := &claims[0]
		held.Finalizers = []string{karpv1.TerminationFinalizer}
		ExpectApplied(env.Ctx, env.Client, held)
		Expect(env.Client.Delete(env.Ctx, held)).To(Succeed())
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(HaveLen(2))
		ExpectEvent(env.Recorder, nodePool.Name, static.ReasonScaleUpWaiting,
			"2 of 3 replicas: limits.nodes (3) allows no more: the NodePool has 3 NodeClaims, 1 of them being deleted")

		By("once it is gone, its place is taken again")
		held = ExpectExists(env.Ctx, env.Client, held)
		held.Finalizers = nil
		ExpectApplied(env.Ctx, env.Client, held)
		ExpectNotFound(env.Ctx, env.Client, held)
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(HaveLen(3))
	})

	It("counts a disruption's candidate as holding its place while its replacement launches, and not once it is replaced", func() {
		nodePool := staticPool(2)
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		claims := liveClaims(nodePool)
		Expect(claims).To(HaveLen(2))

		By("a candidate whose replacement is not created yet: no NodeClaim created")
		candidate := &claims[0]
		meta.SetStatusCondition(&candidate.Status.Conditions, metav1.Condition{
			Type: karpv1.ConditionTypeDisruptionReason, Status: metav1.ConditionTrue, Reason: string(karpv1.DisruptionReasonDrifted)})
		Expect(env.Client.Status().Update(env.Ctx, candidate)).To(Succeed())
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(HaveLen(2))

		By("its replacement created: none deleted either")
		replacement := claims[1].DeepCopy()
		replacement.ObjectMeta = metav1.ObjectMeta{GenerateName: nodePool.Name + "-", Labels: replacement.Labels}
		replacement.Status = karpv1.NodeClaimStatus{}
		ExpectApplied(env.Ctx, env.Client, replacement)
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, nodePool)
		Expect(liveClaims(nodePool)).To(HaveLen(3))
		ExpectNoEvent(env.Recorder, nodePool.Name, static.ReasonScaledDown)
	})

	It("leaves a dynamic NodePool alone", func() {
		dynamic := test.NodePool(nodeClass)
		ExpectApplied(env.Ctx, env.Client, dynamic)
		ExpectReconciled(env.Ctx, controllers.NodePool, dynamic)
		ExpectObjectReconciled(env.Ctx, controllers.Static.Client, controllers.Static, dynamic)
		Expect(liveClaims(dynamic)).To(BeEmpty())
	})
})
