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

package lifecycle_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Liveness", func() {
	It("deletes a NodeClaim whose launch keeps failing once the launch timeout passes, and not before", func() {
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Message: "instance.key_name: no such key pair"})
		nodeClaim := test.NodeClaim(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim)

		env.Step(lifecycle.DefaultLaunchTimeout - time.Second)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim)
		ExpectNoEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNotLive)

		env.Step(2 * time.Second)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNotLive, "it was not launched within 5m0s")
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim) // termination: no VM to delete
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("deletes a NodeClaim and its VM when the node does not register within the registration timeout", func() {
		nodeClaim := launchedNodeClaim()
		result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(result.RequeueAfter).To(BeNumerically(">", 0))

		env.Step(lifecycle.DefaultRegistrationTimeout - time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectExists(env.Ctx, env.Client, nodeClaim)

		env.Step(2 * time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNotLive, "it was not registered within 15m0s")

		By("terminating: the VM deleted, waited for, then the NodeClaim released")
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting))
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("turns its NodePool's NodeRegistrationHealthy False once half of its latest nodes did not register in time, until the NodePool changes", func() {
		nodePool := test.NodePool(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nodePool)
		ofPool := func(nodeClaim *karpv1.NodeClaim) {
			nodeClaim.Labels[karpv1.LabelNodePool] = nodePool.Name
			nodeClaim.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{nodePool.Name}}}
		}
		registration := func() metav1.Condition {
			GinkgoHelper()
			ExpectReconciled(env.Ctx, controllers.NodePool, nodePool)
			c := meta.FindStatusCondition(ExpectExists(env.Ctx, env.Client, nodePool).Status.Conditions, karpv1.ConditionTypeNodeRegistrationHealthy)
			Expect(c).NotTo(BeNil())
			return *c
		}
		Expect(registration()).To(SatisfyAll(HaveField("Status", metav1.ConditionUnknown), HaveField("Reason", karpv1.ReasonAwaitingRegistration)))

		registeredNodeClaim(ofPool)
		Expect(registration()).To(SatisfyAll(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", karpv1.ReasonNodesRegistered),
			HaveField("Message", "1 of the last 1 NodeClaims launched registered their node")))

		late := []*karpv1.NodeClaim{launchedNodeClaim(ofPool), launchedNodeClaim(ofPool)}
		env.Step(lifecycle.DefaultRegistrationTimeout + time.Second)
		for _, nodeClaim := range late {
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNotLive, "it was not registered within 15m0s")
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim) // a second pass of the same timeout counts once
		}
		Expect(registration()).To(SatisfyAll(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", karpv1.ReasonRegistrationFailed),
			HaveField("Message", HavePrefix("2 of the last 3 NodeClaims launched did not register their node in time"))))
		Expect(meta.IsStatusConditionTrue(ExpectExists(env.Ctx, env.Client, nodePool).Status.Conditions, karpv1.ConditionTypeReady)).To(BeTrue(),
			"informational: the NodePool still launches")

		By("changing the NodePool: what its old settings did says nothing of the new ones")
		nodePool = ExpectExists(env.Ctx, env.Client, nodePool)
		nodePool.Spec.Template.Labels = map[string]string{"team": "checkout"}
		ExpectApplied(env.Ctx, env.Client, nodePool)
		Expect(registration()).To(HaveField("Status", metav1.ConditionUnknown))
	})
})
