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

package e2e

import (
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// computeOperations are the calls of KakaoCloud's compute service (BCS): a throttling storm
// there stops every launch, every look at a VM and every deletion.
var computeOperations = []string{
	emulator.OpCreateInstance, emulator.OpGetInstance, emulator.OpListInstances, emulator.OpDeleteInstance,
	emulator.OpUpdateInstance, emulator.OpListActionLogs, emulator.OpListFlavors, emulator.OpGetFlavor,
}

var _ = Describe("KakaoCloud throttling and silence", func() {
	It("registers the VMs already booted during a storm of 429s asking for 5 minutes, and runs every pod within 2 minutes after it ends", func() {
		const storm = time.Minute
		createPool("storm", func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		// One pod a node: a NodeClaim each.
		early, late := podTemplate("storm-early", "1500m"), podTemplate("storm-late", "1500m")
		for _, t := range []*corev1.PodTemplateSpec{&early, &late} {
			t.Spec.NodeSelector = map[string]string{karpv1.LabelNodePool: "storm"}
		}
		createDeployment("storm-early", 2, early)
		By("waiting for the first two VMs to be created")
		var launchedBefore []string
		Eventually(func(g Gomega) {
			launchedBefore = nil
			for _, c := range claimsOf("storm")(g) {
				if meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeLaunched) {
					launchedBefore = append(launchedBefore, c.Name)
				}
			}
			g.Expect(launchedBefore).To(HaveLen(2))
		}).WithPolling(100 * time.Millisecond).Should(Succeed())

		By(fmt.Sprintf("answering every compute call with 429, Retry-After 300 s, for %s, while 3 more pods come", storm))
		for _, op := range computeOperations {
			emulatorAdmin("POST", "/faults", map[string]any{"operation": op, "status": 429, "retry_after": "300s"})
		}
		stormStart := time.Now()
		DeferCleanup(func() { emulatorAdmin("DELETE", "/faults", nil) })
		createDeployment("storm-late", 3, late)

		Eventually(func(g Gomega) {
			for _, c := range claimsOf("storm")(g) {
				if slices.Contains(launchedBefore, c.Name) {
					g.Expect(meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeRegistered)).To(BeTrue(), "NodeClaim %s, launched before the storm, registered", c.Name)
				}
			}
			g.Expect(running(podsOf("storm-early")(g))).To(Equal(2))
		}, storm-5*time.Second).Should(Succeed(), "the VMs booted before the storm register during it, and their pods run")
		registeredAfter := time.Since(stormStart)
		Expect(registeredAfter).To(BeNumerically("<", storm), "during the storm")
		fmt.Fprintf(GinkgoWriter, "the 2 VMs created before the storm registered and their pods ran %.1f s into it\n", registeredAfter.Seconds())

		time.Sleep(time.Until(stormStart.Add(storm)))
		throttled := 0
		for _, c := range claimsOf("storm")(Default) {
			if launched := meta.FindStatusCondition(c.Status.Conditions, karpv1.ConditionTypeLaunched); launched != nil && launched.Reason == "Throttled" {
				throttled++
			}
		}
		By("ending the storm")
		emulatorAdmin("DELETE", "/faults", nil)
		stormEnd := time.Now()
		Eventually(func(g Gomega) int { return running(podsOf("storm-late")(g)) }, 2*time.Minute).Should(Equal(3), "every pod Running within 2 minutes of the storm's end")
		fmt.Fprintf(GinkgoWriter, "storm of %s (%d NodeClaims waiting as Throttled at its end): all pods Running %.1f s after it ended\n",
			storm, throttled, time.Since(stormEnd).Seconds())

		perName := map[string]int{}
		for _, vm := range vms(Default) {
			perName[vm.Name]++
		}
		for _, c := range claimsOf("storm")(Default) {
			Expect(perName[c.Name]).To(Equal(1), "NodeClaim %s has exactly one VM", c.Name)
		}
	})

	It("gives up on a create KakaoCloud never answers at the call's deadline, and makes no second VM for it", func() {
		createPool("unanswered", func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		By("holding every create for 10 minutes")
		emulatorAdmin("POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": "10m"})
		DeferCleanup(func() {
			emulatorAdmin("POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": "0s"})
		})
		template := podTemplate("unanswered", "1500m")
		template.Spec.NodeSelector = map[string]string{karpv1.LabelNodePool: "unanswered"}
		createDeployment("unanswered", 1, template)

		var claim karpv1.NodeClaim
		Eventually(func(g Gomega) {
			claims := claimsOf("unanswered")(g)
			g.Expect(claims).To(HaveLen(1))
			claim = claims[0]
			launched := meta.FindStatusCondition(claim.Status.Conditions, karpv1.ConditionTypeLaunched)
			g.Expect(launched).NotTo(BeNil())
			g.Expect(launched.Reason).To(Equal("AwaitingInstance"), "looked for rather than made again")
			// The condition says what the latest look found; the event, why the launch looks.
			g.Expect(eventNotes(claim.Name, "AwaitingInstance")(g)).To(ContainElement(ContainSubstring("no answer within the call timeout of 30s")))
		}, 90*time.Second).Should(Succeed(), "the create in doubt after its deadline")
		fmt.Fprintf(GinkgoWriter, "the create without an answer was given up %.1f s after its NodeClaim was created\n",
			time.Since(claim.CreationTimestamp.Time).Seconds())

		By("letting creates through: the held one was dropped unserved, and the launch makes exactly one VM once the lookup window ends")
		emulatorAdmin("POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": "0s"})
		Eventually(func(g Gomega) int { return running(podsOf("unanswered")(g)) }, 4*time.Minute).Should(Equal(1), "the pod Running")
		named := 0
		for _, vm := range vms(Default) {
			if vm.Name == claim.Name {
				named++
			}
		}
		Expect(named).To(Equal(1), "one VM for NodeClaim %s", claim.Name)
	})
})
