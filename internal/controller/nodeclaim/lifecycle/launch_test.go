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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Launch", func() {
	It("adds the termination finalizer and launches a VM, recording what the cloud resolved", func() {
		launchedBefore := test.MetricValue("karpenter_nodeclaims_launched_total", map[string]string{"nodepool": "default"})
		nodeClaim := test.NodeClaim(nodeClass, func(nodeClaim *karpv1.NodeClaim) { nodeClaim.Labels["team"] = "checkout" })
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)

		nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
		Expect(controllerutil.ContainsFinalizer(nodeClaim, karpv1.TerminationFinalizer)).To(BeTrue())
		Expect(nodeClaim.Status.ProviderID).To(HavePrefix(kcv1.ProviderIDPrefix))
		Expect(nodeClaim.Status.ImageID).NotTo(BeEmpty())
		Expect(nodeClaim.Status.Capacity.Cpu().IsZero()).To(BeFalse())
		Expect(nodeClaim.Status.Allocatable.Cpu().Cmp(*nodeClaim.Spec.Resources.Requests.Cpu())).To(BeNumerically(">=", 0))
		Expect(nodeClaim.Labels).To(HaveKeyWithValue("team", "checkout"), "the NodeClaim's own labels stay")
		Expect(nodeClaim.Labels).To(HaveKey(karpv1.LabelInstanceType))
		Expect(nodeClaim.Labels).To(HaveKeyWithValue(karpv1.LabelTopologyZone, "kr-central-2-a"))
		Expect(nodeClaim.Annotations).To(HaveKeyWithValue(kcv1.AnnotationKubernetesVersion, "1.36"))
		Expect(condition(nodeClaim, karpv1.ConditionTypeLaunched).Status).To(Equal(metav1.ConditionTrue))
		// As upstream's: Ready is Unknown, not False, while the node has yet to register.
		Expect(condition(nodeClaim, karpv1.ConditionTypeReady)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionUnknown), HaveField("Reason", karpv1.ReasonNodeNotFound),
			HaveField("Message", HavePrefix(karpv1.ConditionTypeRegistered+": "))))
		_, exists := vm(nodeClaim)
		Expect(exists).To(BeTrue())
		ExpectMetric("karpenter_nodeclaims_launched_total", map[string]string{"nodepool": "default"}, Equal(launchedBefore+1))
	})

	It("launches once, however often it is reconciled", func() {
		nodeClaim := launchedNodeClaim()
		creates := env.Emulator.CallCount(emulator.OpCreateInstance)
		for range 3 {
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		}
		Expect(env.Emulator.CallCount(emulator.OpCreateInstance)).To(Equal(creates))
		Expect(vmsNamed(nodeClaim)).To(Equal(1))
	})

	It("leaves alone a copy older than its last write, whose watch event is still on its way", func() {
		nodeClaim := test.NodeClaim(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		stale := nodeClaim.DeepCopy()
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		// The cache would hand the NodeClaim as it was created until the launch's write shows.
		res, err := controllers.Lifecycle.Reconcile(env.Ctx, stale)
		Expect(err).NotTo(HaveOccurred())
		// A pass on it would have added the finalizer to it and written it, refused with
		// Conflict. It is tried again shortly, when the cache has the launch.
		Expect(stale.Finalizers).To(BeEmpty())
		Expect(res.RequeueAfter).To(BeNumerically(">", 0))
		// The current NodeClaim goes on: it waits for its node.
		current := ExpectExists(env.Ctx, env.Client, nodeClaim)
		res, err = controllers.Lifecycle.Reconcile(env.Ctx, current)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeNumerically(">", 0))
	})

	It("deletes a NodeClaim that no instance type can satisfy, and says why", func() {
		nodeClaim := test.NodeClaim(nodeClass, func(nodeClaim *karpv1.NodeClaim) {
			nodeClaim.Spec.Requirements = append(nodeClaim.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{
				Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-c"},
			})
		})
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonInsufficientCapacity, "no available offering")
		// The finalizer holds it until termination, which has no VM to delete.
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("deletes a NodeClaim whose KCNodeClass does not exist, and says so", func() {
		missing := test.KCNodeClass()
		nodeClaim := test.NodeClaim(missing)
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNodeClassNotReady, missing.Name)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("waits for a KCNodeClass created with it to be resolved, then launches (upstream's standalone NodeClaim)", func() {
		fresh := test.KCNodeClass()
		ExpectApplied(env.Ctx, env.Client, fresh)
		nodeClaim := test.NodeClaim(fresh)
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim, MatchError(ContainSubstring("is not resolved yet")))
		nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
		Expect(nodeClaim.DeletionTimestamp).To(BeNil(), "a KCNodeClass whose Ready is not known yet does not fail the NodeClaim")
		ExpectNoEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNodeClassNotReady)

		ExpectKCNodeClassReady(env.Ctx, env.Client, controllers.NodeClass, fresh)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeLaunched).Status).To(Equal(metav1.ConditionTrue))
	})

	It("retries a launch KakaoCloud refused for another reason, and says why on the condition", func() {
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Message: "instance.key_name: no such key pair", Count: 1})
		nodeClaim := test.NodeClaim(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim, MatchError(ContainSubstring("no such key pair")))
		launched := condition(nodeClaim, karpv1.ConditionTypeLaunched)
		Expect(launched.Status).To(Equal(metav1.ConditionUnknown))
		Expect(launched.Reason).To(Equal(lifecycle.ReasonLaunchFailed))
		Expect(launched.Message).To(ContainSubstring("no such key pair"))

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeLaunched).Status).To(Equal(metav1.ConditionTrue))
		Expect(vmsNamed(nodeClaim)).To(Equal(1))
	})

	It("waits out a create KakaoCloud throttled, capped, without failing the pass, says so once, and launches after", func() {
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: 5 * time.Minute})
		nodeClaim := test.NodeClaim(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nodeClaim)

		for range 2 {
			result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(result.RequeueAfter).To(Equal(kakaocloud.DefaultMaxRetryAfter), "the 5 minutes asked for, capped")
			launched := condition(nodeClaim, karpv1.ConditionTypeLaunched)
			Expect(launched.Status).To(Equal(metav1.ConditionUnknown))
			Expect(launched.Reason).To(Equal(lifecycle.ReasonThrottled))
			Expect(launched.Message).To(ContainSubstring("429"))
			Expect(ExpectExists(env.Ctx, env.Client, nodeClaim).Annotations).NotTo(HaveKey(kcv1.AnnotationLaunchAttempt), "no create is in doubt")
			env.Step(kakaocloud.DefaultMaxRetryAfter)
		}
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonThrottled, "creating it again in 30s")
		Expect(env.Recorder.Notes(nodeClaim.Name, lifecycle.ReasonThrottled)).To(HaveLen(1), "said once, not on every pass")
		Expect(vmsNamed(nodeClaim)).To(Equal(0))

		env.Emulator.ClearFaults()
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeLaunched).Status).To(Equal(metav1.ConditionTrue))
		Expect(vmsNamed(nodeClaim)).To(Equal(1))
	})

	It("falls back to the next offering when the cheapest has no capacity, and avoids it afterwards", func() {
		first := launchedNodeClaim()
		cheapest := first.Labels[karpv1.LabelInstanceType]
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Message: "Insufficient capacity for " + cheapest, Count: 1})
		second := launchedNodeClaim()
		Expect(second.Labels[karpv1.LabelInstanceType]).NotTo(Equal(cheapest))
		third := launchedNodeClaim()
		Expect(third.Labels[karpv1.LabelInstanceType]).NotTo(Equal(cheapest), "the offering stays unavailable for a while")
	})

	Context("when the answer to a create is lost", func() {
		It("looks for the VM until it is listed and adopts it, creating nothing meanwhile", func() {
			env.Emulator.SetListLag(30 * time.Second)
			env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Commit: true, Drop: true, Count: 1})
			nodeClaim := test.NodeClaim(nodeClass)
			ExpectApplied(env.Ctx, env.Client, nodeClaim)

			result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(result.RequeueAfter).To(BeNumerically("<=", 5*time.Second))
			launched := condition(nodeClaim, karpv1.ConditionTypeLaunched)
			Expect(launched.Status).To(Equal(metav1.ConditionUnknown))
			Expect(launched.Reason).To(Equal(lifecycle.ReasonAwaitingInstance))
			Expect(ExpectExists(env.Ctx, env.Client, nodeClaim).Annotations).To(HaveKey(kcv1.AnnotationLaunchAttempt))
			ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonAwaitingInstance, "looking for the VM until")

			for range 5 {
				env.Step(5 * time.Second)
				ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			}
			Expect(env.Emulator.CallCount(emulator.OpCreateInstance)).To(Equal(1), "no second create while the first may exist")
			Expect(env.Recorder.Notes(nodeClaim.Name, lifecycle.ReasonAwaitingInstance)).To(HaveLen(1), "said once, not on every look")

			env.Step(5 * time.Second) // 30 s: listed
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(condition(nodeClaim, karpv1.ConditionTypeLaunched).Status).To(Equal(metav1.ConditionTrue))
			Expect(vmsNamed(nodeClaim)).To(Equal(1))
		})

		It("creates again once the lookup window has passed without the VM showing up", func() {
			env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Drop: true, Count: 1}) // lost before it was served
			nodeClaim := test.NodeClaim(nodeClass)
			ExpectApplied(env.Ctx, env.Client, nodeClaim)
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(condition(nodeClaim, karpv1.ConditionTypeLaunched).Reason).To(Equal(lifecycle.ReasonAwaitingInstance))

			env.Step(instance.DefaultLookupWindow - time.Second)
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(env.Emulator.CallCount(emulator.OpCreateInstance)).To(Equal(1))
			env.Step(time.Second)
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(env.Emulator.CallCount(emulator.OpCreateInstance)).To(Equal(2))
			Expect(condition(nodeClaim, karpv1.ConditionTypeLaunched).Status).To(Equal(metav1.ConditionTrue))
			Expect(vmsNamed(nodeClaim)).To(Equal(1))
		})
	})
})
