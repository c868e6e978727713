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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
)

var _ = Describe("KCNodeClass images", func() {
	// The emulator's node image lookups fail for the whole cluster while this spec runs; the
	// suite runs its specs one at a time, and the spec turns the failure off again.
	//
	// The operator caches a version's worker images for --catalog-ttl (a minute on the local
	// cluster), so the failure shows only once the cached entry is due.
	It("keeps the resolved images when they can no longer be looked up (ImagesRetained), stays Ready and still launches nodes", Serial, SpecPriority(-1), func() {
		createPool("retained", nil)
		nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "retained"}}
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
			g.Expect(meta.FindStatusCondition(nodeClass.Status.Conditions, kcv1.ConditionTypeImagesReady)).To(
				HaveField("Reason", kcv1.ReasonImagesResolved))
			g.Expect(nodeClass.Status.Images).NotTo(BeEmpty())
		}).Should(Succeed())
		images := nodeClass.Status.Images
		imageIDs := map[string]bool{}
		for _, img := range images {
			imageIDs[img.ID] = true
		}

		By("making Kubernetes Engine's node image lookups fail")
		DeferCleanup(emulatorAdmin, "POST", "/node-images/fail", map[string]bool{"fail": false})
		emulatorAdmin("POST", "/node-images/fail", map[string]bool{"fail": true})

		// The operator caches the images of a version for minutes; the lookup fails once the
		// cache is due. Touching the KCNodeClass makes it reconcile at once instead of at its
		// next resync. Ready must hold all along.
		stopReadyWatch := watchNodeClassReady(nodeClass.Name)
		By("waiting for ImagesReady to turn to ImagesRetained (the image cache expires first)")
		Eventually(func(g Gomega) {
			touch(g, nodeClass)
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
			condition := meta.FindStatusCondition(nodeClass.Status.Conditions, kcv1.ConditionTypeImagesReady)
			g.Expect(condition).NotTo(BeNil())
			g.Expect(condition.Reason).To(Equal(kcv1.ReasonImagesRetained), condition.Message)
			g.Expect(condition.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(condition.Message).To(ContainSubstring("worker images for Kubernetes 1.36 cannot be looked up"))
		}, 8*time.Minute, 5*time.Second).Should(Succeed())
		Expect(nodeClass.Status.Images).To(Equal(images), "the images resolved before are kept")
		Expect(meta.IsStatusConditionTrue(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)).To(BeTrue())
		Eventually(eventNotes("retained", kcv1.ReasonImagesRetained)).Should(ContainElement(ContainSubstring("cannot be looked up")))
		Eventually(func(g Gomega) string {
			v, _ := operatorMetric(g, `karpenter_kakaocloud_nodeclass_images_retained{nodeclass="retained"}`)
			return v
		}).Should(Equal("1"), "the metric behind the KarpenterNodeClassImagesRetained alert")

		By("running a pod: a node still launches, from a retained image")
		template := poolPod("retained", "retained", "1")
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "retained", Namespace: namespace, Labels: template.Labels}, Spec: template.Spec}
		Expect(kube.Create(ctx, pod)).To(Succeed())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(kube.Delete(ctx, pod))).To(Succeed())
			Eventually(podsOf("retained")).Should(BeEmpty())
		})
		Eventually(func(g Gomega) int { return running(podsOf("retained")(g)) }).Should(Equal(1))
		claims := claimsOf("retained")(Default)
		Expect(claims).To(HaveLen(1))
		for _, vm := range vms(Default) {
			if kcv1.ProviderIDPrefix+vm.ID == claims[0].Status.ProviderID {
				Expect(imageIDs).To(HaveKey(vm.Image.ID), "VM %s boots a retained image", vm.ID)
			}
		}

		By("letting lookups succeed again: the retention is sticky")
		lookups := emulatorCalls(Default, "ke.ListNodeImages")
		emulatorAdmin("POST", "/node-images/fail", map[string]bool{"fail": false})
		Eventually(func(g Gomega) int {
			touch(g, nodeClass)
			return emulatorCalls(g, "ke.ListNodeImages")
		}, 2*time.Minute, 2*time.Second).Should(BeNumerically(">", lookups), "the operator looked the images up again")
		Consistently(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
			g.Expect(meta.FindStatusCondition(nodeClass.Status.Conditions, kcv1.ConditionTypeImagesReady)).To(
				HaveField("Reason", kcv1.ReasonImagesRetained))
		}, 5*time.Second).Should(Succeed())

		By("pinning spec.imageID clears it")
		var pinned string
		for _, img := range images {
			if !img.GPU && img.Architecture == "x86_64" {
				pinned = img.ID
			}
		}
		Expect(pinned).NotTo(BeEmpty(), "an x86_64 image without GPU among %v", images)
		update(nodeClass, func(latest *kcv1.KCNodeClass) { latest.Spec.ImageID = pinned })
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
			g.Expect(meta.FindStatusCondition(nodeClass.Status.Conditions, kcv1.ConditionTypeImagesReady)).To(
				HaveField("Reason", kcv1.ReasonImagePinned))
			g.Expect(meta.IsStatusConditionTrue(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)).To(BeTrue())
		}).Should(Succeed())
		Eventually(func(g Gomega) string {
			v, _ := operatorMetric(g, `karpenter_kakaocloud_nodeclass_images_retained{nodeclass="retained"}`)
			return v
		}).Should(Equal("0"))
		Expect(stopReadyWatch()).To(BeEmpty(), "the KCNodeClass stayed Ready")
	})
})

// touch annotates an object with the time, which makes its controller reconcile it.
func touch(g Gomega, obj client.Object) {
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{"e2e.karpenter.kakaocloud.com/touched":%q}}}`, time.Now().Format(time.RFC3339Nano))
	g.Expect(kube.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}
