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

package capacitybuffer_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("CapacityBuffers", func() {
	var nodePool *karpv1.NodePool
	BeforeEach(func() {
		nodePool = test.NodePool(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nodePool)
		ExpectReconciled(env.Ctx, controllers.NodePool, nodePool)
		DeferCleanup(func() { ExpectDeleted(env.Ctx, env.Client, nodePool) })
	})

	It("keeps room for a PodTemplate's chunks: NodeClaims launched for them, then counted as theirs", func() {
		template := podTemplate("1")
		buffer := newBuffer(autoscalingv1beta1.CapacityBufferSpec{PodTemplateRef: &autoscalingv1beta1.LocalObjectRef{Name: template.Name}, Replicas: new(int32(2))})
		ExpectApplied(env.Ctx, env.Client, template, buffer)
		ExpectReconciled(env.Ctx, controllers.CapacityBuffer, buffer)
		buffer = ExpectExists(env.Ctx, env.Client, buffer)
		expectCondition(buffer, autoscalingv1beta1.ConditionReadyForProvisioning, metav1.ConditionTrue, capacitybuffer.ReasonResolved)
		Expect(buffer.Status.Replicas).To(HaveValue(BeEquivalentTo(2)))
		Expect(buffer.Status.PodTemplateRef).To(HaveField("Name", template.Name))

		By("the first pass launches room for both chunks")
		created, err := controllers.Provisioner.Provision(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(created).NotTo(BeEmpty())
		var cpu resource.Quantity
		for _, nodeClaim := range created {
			Expect(nodeClaim.Labels).To(HaveKeyWithValue(karpv1.LabelNodePool, nodePool.Name))
			cpu.Add(nodeClaim.Spec.Resources.Requests[corev1.ResourceCPU])
		}
		Expect(cpu.Cmp(resource.MustParse("2"))).To(BeNumerically(">=", 0), "the NodeClaims are sized for two chunks of 1 CPU")
		expectCondition(ExpectExists(env.Ctx, env.Client, buffer), autoscalingv1beta1.ConditionProvisioning, metav1.ConditionFalse, capacitybuffer.ReasonRequiresNewCapacity)
		ExpectNoEvent(env.Recorder, "capacity-buffer-"+buffer.Name+"-1", "Nominated")

		By("the next pass finds them in the NodeClaims in flight: nothing more is launched")
		again, err := controllers.Provisioner.Provision(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(BeEmpty())
		expectCondition(ExpectExists(env.Ctx, env.Client, buffer), autoscalingv1beta1.ConditionProvisioning, metav1.ConditionTrue, capacitybuffer.ReasonFitsExistingCapacity)

		By("a deleted buffer keeps no room")
		ExpectDeleted(env.Ctx, env.Client, buffer)
		ExpectReconciled(env.Ctx, controllers.CapacityBuffer, buffer)
		ExpectNotFound(env.Ctx, env.Client, buffer)
		for _, nodeClaim := range created {
			ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		}
		none, err := controllers.Provisioner.Provision(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(none).To(BeEmpty())
	})

	It("waits for a workload that does not exist yet, then keeps a share of its replicas", func() {
		buffer := newBuffer(autoscalingv1beta1.CapacityBufferSpec{
			ScalableRef: &autoscalingv1beta1.ScalableRef{APIGroup: "apps", Kind: autoscalingv1beta1.KindDeployment, Name: test.RandomName("app")},
			Percentage:  new(int32(20)),
		})
		ExpectApplied(env.Ctx, env.Client, buffer)
		DeferCleanup(func() { ExpectDeleted(env.Ctx, env.Client, buffer) })
		ExpectReconciled(env.Ctx, controllers.CapacityBuffer, buffer)
		buffer = ExpectExists(env.Ctx, env.Client, buffer)
		expectCondition(buffer, autoscalingv1beta1.ConditionReadyForProvisioning, metav1.ConditionFalse, capacitybuffer.ReasonScalableRefNotFound)
		_, err := controllers.Provisioner.Provision(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		expectCondition(ExpectExists(env.Ctx, env.Client, buffer), autoscalingv1beta1.ConditionProvisioning, metav1.ConditionFalse, capacitybuffer.ReasonNotReadyForProvisioning)

		template := podTemplate("500m")
		deployment := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: buffer.Spec.ScalableRef.Name, Namespace: "default"},
			Spec: appsv1.DeploymentSpec{
				Replicas: new(int32(10)), Selector: &metav1.LabelSelector{MatchLabels: template.Template.Labels},
				Template: template.Template,
			},
		}
		ExpectApplied(env.Ctx, env.Client, deployment)
		DeferCleanup(func() { ExpectDeleted(env.Ctx, env.Client, deployment) })
		ExpectReconciled(env.Ctx, controllers.CapacityBuffer, buffer)
		buffer = ExpectExists(env.Ctx, env.Client, buffer)
		expectCondition(buffer, autoscalingv1beta1.ConditionReadyForProvisioning, metav1.ConditionTrue, capacitybuffer.ReasonResolved)
		Expect(buffer.Status.Replicas).To(HaveValue(BeEquivalentTo(2)), "20% of 10 replicas")
		Expect(buffer.Status.PodTemplateRef).To(BeNil())
	})

	It("refuses a buffer that names both a PodTemplate and a workload, or a PodTemplate without a count", func() {
		both := newBuffer(autoscalingv1beta1.CapacityBufferSpec{
			PodTemplateRef: &autoscalingv1beta1.LocalObjectRef{Name: "t"}, Replicas: new(int32(1)),
			ScalableRef: &autoscalingv1beta1.ScalableRef{Kind: autoscalingv1beta1.KindDeployment, Name: "app"},
		})
		Expect(env.Client.Create(env.Ctx, both)).To(MatchError(ContainSubstring("You must define either PodTemplateRef or ScalableRef, but not both")))
		uncounted := newBuffer(autoscalingv1beta1.CapacityBufferSpec{PodTemplateRef: &autoscalingv1beta1.LocalObjectRef{Name: "t"}})
		Expect(env.Client.Create(env.Ctx, uncounted)).To(MatchError(ContainSubstring("If podTemplateRef is set, replicas or limits must also be set")))
	})
})

func podTemplate(cpu string) *corev1.PodTemplate {
	return &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: test.RandomName("template"), Namespace: "default"},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "buffered"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("512Mi")},
			}}}},
		},
	}
}

func newBuffer(spec autoscalingv1beta1.CapacityBufferSpec) *autoscalingv1beta1.CapacityBuffer {
	return &autoscalingv1beta1.CapacityBuffer{ObjectMeta: metav1.ObjectMeta{Name: test.RandomName("buffer"), Namespace: "default"}, Spec: spec}
}

func expectCondition(cb *autoscalingv1beta1.CapacityBuffer, conditionType string, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	condition := meta.FindStatusCondition(cb.Status.Conditions, conditionType)
	Expect(condition).NotTo(BeNil(), "condition %s", conditionType)
	Expect(condition.Status).To(Equal(status), condition.Message)
	Expect(condition.Reason).To(Equal(reason), condition.Message)
}
