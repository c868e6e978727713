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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Initialization", func() {
	It("waits for the node to be Ready", func() {
		nodeClaim, _ := registeredNodeClaim()
		initialized := condition(nodeClaim, karpv1.ConditionTypeInitialized)
		Expect(initialized.Status).To(Equal(metav1.ConditionUnknown))
		Expect(initialized.Message).To(ContainSubstring("Ready"))
	})

	It("waits for startup and ephemeral taints to go", func() {
		startup := corev1.Taint{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoExecute}
		nodeClaim, node := registeredNodeClaim(func(nodeClaim *karpv1.NodeClaim) { nodeClaim.Spec.StartupTaints = []corev1.Taint{startup} })
		node = ready(node)
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
		ExpectApplied(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInitialized).Message).To(ContainSubstring(startup.Key))

		node = ExpectExists(env.Ctx, env.Client, node)
		node.Spec.Taints = withoutKey(node.Spec.Taints, startup.Key)
		ExpectApplied(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInitialized).Message).To(ContainSubstring(corev1.TaintNodeNotReady))

		node = ExpectExists(env.Ctx, env.Client, node)
		node.Spec.Taints = withoutKey(node.Spec.Taints, corev1.TaintNodeNotReady)
		ExpectApplied(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInitialized).Status).To(Equal(metav1.ConditionTrue))
	})

	It("waits for the extended resources its pods asked for to be allocatable", func() {
		nodeClaim, node := registeredNodeClaim(func(nodeClaim *karpv1.NodeClaim) {
			nodeClaim.Spec.Resources.Requests[gpu] = resourceOne
		})
		node = ready(node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInitialized).Message).To(ContainSubstring(string(gpu)))

		node.Status.Allocatable[gpu] = resourceOne
		ExpectApplied(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInitialized).Status).To(Equal(metav1.ConditionTrue))
	})

	It("marks the node initialized and the NodeClaim Ready", func() {
		nodeClaim, node := initializedNodeClaim()
		Expect(ExpectExists(env.Ctx, env.Client, node).Labels).To(HaveKeyWithValue(karpv1.LabelInitialized, "true"))
		Expect(condition(nodeClaim, karpv1.ConditionTypeReady).Status).To(Equal(metav1.ConditionTrue))
	})
})

const gpu corev1.ResourceName = "nvidia.com/gpu"

func withoutKey(taints []corev1.Taint, key string) []corev1.Taint {
	var kept []corev1.Taint
	for _, t := range taints {
		if t.Key != key {
			kept = append(kept, t)
		}
	}
	return kept
}

var _ = Describe("Consistency", func() {
	It("says when an initialized node reports much less of a requested resource than its NodeClaim was launched for", func() {
		nodeClaim, node := initializedNodeClaim()
		nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
		expected := nodeClaim.Status.Capacity[corev1.ResourceCPU]
		half := resource.NewMilliQuantity(expected.MilliValue()/2, resource.DecimalSI)
		node.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: *half, corev1.ResourcePods: resource.MustParse("110")}
		ExpectApplied(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonFailedConsistencyCheck,
			"expected "+expected.String()+" of resource cpu, but found "+half.String()+" (50.0% of expected)")
	})
})
