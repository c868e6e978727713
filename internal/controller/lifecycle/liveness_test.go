/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package lifecycle_test

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Liveness", func() {
	It("deletes a NodeClaim whose launch keeps failing once the launch timeout passes, and not before", func() {
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Message: "instance.key_name: no such key pair"})
		nc := test.NodeClaim(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nc)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nc)

		env.Step(lifecycle.DefaultLaunchTimeout - time.Second)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nc)
		ExpectNoEvent(env.Recorder, nc.Name, lifecycle.ReasonNotLive)

		env.Step(2 * time.Second)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nc)
		ExpectEvent(env.Recorder, nc.Name, lifecycle.ReasonNotLive, "it was not launched within 5m0s")
		ExpectReconciled(env.Ctx, nodeClaims, nc) // termination: no VM to delete
		ExpectNotFound(env.Ctx, env.Client, nc)
	})

	It("deletes a NodeClaim and its VM when the node does not register within the registration timeout", func() {
		nc := launchedNodeClaim()
		result := ExpectReconciled(env.Ctx, nodeClaims, nc)
		Expect(result.RequeueAfter).To(BeNumerically(">", 0))

		env.Step(lifecycle.DefaultRegistrationTimeout - time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectExists(env.Ctx, env.Client, nc)

		env.Step(2 * time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectEvent(env.Recorder, nc.Name, lifecycle.ReasonNotLive, "it was not registered within 15m0s")

		By("terminating: the VM deleted, waited for, then the NodeClaim released")
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		instance, _ := vm(nc)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting))
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectNotFound(env.Ctx, env.Client, nc)
	})
})

var _ = Describe("Launch check", func() {
	It("deletes a NodeClaim at once when its VM goes to error for lack of capacity, and avoids that offering", func() {
		env.Emulator.FailNextInstances(1, emulator.NoValidHostMessage)
		nc := launchedNodeClaim()
		env.Step(buildDelay + 5*time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectEvent(env.Recorder, nc.Name, lifecycle.ReasonInsufficientCapacity, "No valid host was found")

		By("the next launch going elsewhere")
		next := launchedNodeClaim()
		Expect(next.Labels[karpv1.LabelInstanceType] + "/" + next.Labels[karpv1.LabelTopologyZone]).NotTo(
			Equal(nc.Labels[karpv1.LabelInstanceType] + "/" + nc.Labels[karpv1.LabelTopologyZone]))

		By("terminating the failed one: its VM deleted")
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectNotFound(env.Ctx, env.Client, nc)
		_, exists := vm(nc)
		Expect(exists).To(BeFalse())
	})

	It("deletes a NodeClaim whose VM goes to error for another reason, with the action log's message", func() {
		env.Emulator.FailNextInstances(1, "Build of instance aborted: image checksum mismatch")
		nc := launchedNodeClaim()
		env.Step(buildDelay + 5*time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectEvent(env.Recorder, nc.Name, lifecycle.ReasonLaunchFailed, "image checksum mismatch")
	})

	It("keeps watching a VM that is still building, from one listing for every NodeClaim", func() {
		first, second := launchedNodeClaim(), launchedNodeClaim()
		env.Emulator.ResetCallCounts()
		env.Step(6 * time.Second) // past the last listing's 5 s
		for _, nc := range []*karpv1.NodeClaim{first, second} {
			result := ExpectReconciled(env.Ctx, nodeClaims, nc)
			Expect(result.RequeueAfter).To(BeNumerically("<=", 5*time.Second))
		}
		Expect(env.Emulator.CallCount(emulator.OpListInstances)).To(Equal(1))
		Expect(env.Recorder.Notes(first.Name, lifecycle.ReasonLaunchFailed)).To(BeEmpty())
	})
})

var _ = Describe("Node deletion", func() {
	It("turns kubectl delete node into the NodeClaim's deletion, and removes node, VM and NodeClaim", func() {
		nc, node := initializedNodeClaim()
		ExpectDeleted(env.Ctx, env.Client, node) // its finalizer holds it
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectEvent(env.Recorder, nc.Name, lifecycle.ReasonNodeDeleted, "its node "+node.Name+" is being deleted")
		Expect(ExpectExists(env.Ctx, env.Client, nc).DeletionTimestamp).NotTo(BeNil())

		ExpectReconciled(env.Ctx, nodeClaims, nc) // drained (nothing to evict), VM deleting
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nc)
		ExpectNotFound(env.Ctx, env.Client, nc, node)
		_, exists := vm(nc)
		Expect(exists).To(BeFalse())
	})
})

var _ = Describe("NodeClaim garbage collection", func() {
	It("removes a registered NodeClaim whose VM is gone, once past the grace period and not before", func() {
		nc, _ := registeredNodeClaim() // never Ready: its kubelet went with the VM
		Expect(env.KakaoCloud.DeleteInstance(env.Ctx, strings.TrimPrefix(nc.Status.ProviderID, kcv1.ProviderIDPrefix))).To(Succeed())
		env.Step(deleteDelay)

		collector := controllers.NodeClaimCollector
		deleted, err := collector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(BeEmpty(), "registered less than the grace period ago")

		env.Step(time.Minute)
		deleted, err = collector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(ConsistOf(nc.Name))
		ExpectEvent(env.Recorder, nc.Name, "InstanceGone", "is gone from KakaoCloud")
	})

	It("leaves a NodeClaim whose node is still Ready, whatever the listing says", func() {
		nc, node := initializedNodeClaim()
		Expect(node.Status.Conditions).To(ContainElement(HaveField("Type", corev1.NodeReady)))
		env.Step(time.Minute)
		deleted, err := controllers.NodeClaimCollector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).NotTo(ContainElement(nc.Name))
	})
})
