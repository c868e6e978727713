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
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	nodeclaimdisruption "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/disruption"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Disruption against the emulator", func() {
	It(`replaces the nodes of a KCNodeClass whose kubernetesVersion changes strictly one after the other under a budget of nodes: "1", with KakaoCloud's provider over HTTP (seed 003)`, func() {
		emulatedLifecycle := reconcile.AsReconciler(emulated.Lifecycle.Client, emulated.Lifecycle)
		nodePool := readyPool("checkout", func(np *karpv1.NodePool) {
			np.Spec.Template.Labels = map[string]string{"team": "checkout", "env": "dev"}
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}}
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
			np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
		}, func(nodeClass *kcv1.KCNodeClass) { nodeClass.Spec.Bootstrap.KubernetesVersion = "1.35" })
		nodeClass := ExpectExists(env.Ctx, env.Client, &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "checkout"}})
		tolerating := func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}}
			p.Spec.NodeSelector = map[string]string{"team": "checkout"}
		}

		By("launching two v1.35 nodes for the checkout pods, as VMs of the emulator")
		var old []*karpv1.NodeClaim
		var pods []*corev1.Pod
		for i := range 2 {
			nodeClaim := test.NodeClaim(nodeClass, func(nodeClaim *karpv1.NodeClaim) {
				nodeClaim.Name = test.RandomName("checkout")
				nodeClaim.Labels = map[string]string{karpv1.LabelNodePool: "checkout", "team": "checkout", "env": "dev"}
				nodeClaim.Annotations = map[string]string{karpv1.NodePoolHashAnnotationKey: nodePool.Annotations[karpv1.NodePoolHashAnnotationKey],
					karpv1.NodePoolHashVersionAnnotationKey: nodePool.Annotations[karpv1.NodePoolHashVersionAnnotationKey]}
				nodeClaim.Spec.Taints = nodePool.Spec.Template.Spec.Taints
				nodeClaim.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{
					{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{"checkout"}},
					{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a.large"}},
				}
			})
			ExpectApplied(env.Ctx, env.Client, nodeClaim)
			node := ExpectInitialized(env.Ctx, env.Client, emulatedLifecycle, nodeClaim)[0]
			nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
			Expect(nodeClaim.Annotations).To(HaveKeyWithValue(kcv1.AnnotationKubernetesVersion, "1.35"))
			old = append(old, nodeClaim)
			pods = append(pods, running(node, "checkout", "700m", tolerating))
			if i == 0 {
				pods = append(pods, running(node, "checkout", "700m", tolerating))
			} else {
				pods = append(pods, running(node, "checkout-redis", "300m", tolerating))
			}
		}
		Expect(liveVMs()).To(HaveLen(2))

		By("upgrading the KCNodeClass to 1.36: both nodes drift")
		nodeClass = ExpectExists(env.Ctx, env.Client, nodeClass)
		nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36"
		ExpectApplied(env.Ctx, env.Client, nodeClass)
		ExpectKCNodeClassReady(env.Ctx, env.Client, emulated.NodeClass, nodeClass)
		pass(emulated)
		for _, nodeClaim := range old {
			drifted := meta.FindStatusCondition(ExpectExists(env.Ctx, env.Client, nodeClaim).Status.Conditions, karpv1.ConditionTypeDrifted)
			Expect(drifted).NotTo(BeNil())
			Expect(drifted.Reason).To(Equal("KubernetesVersionDrift"))
			Expect(drifted.Message).To(ContainSubstring("launched for Kubernetes 1.35; KCNodeClass checkout now asks for 1.36"))
			ExpectEvent(env.Recorder, nodeClaim.Name, nodeclaimdisruption.EventDriftDetected, "KubernetesVersionDrift")
		}

		By("replacing them one at a time: each pass sees at most one old node disrupted")
		replaceAll(emulated, emulatedLifecycle, old, func() {
			Expect(len(disrupted(old...))).To(BeNumerically("<=", 1), "the budget allows one node at a time")
		})
		for _, pod := range pods {
			ExpectNotFound(env.Ctx, env.Client, pod)
		}
		current := nodeClaims()
		Expect(current).NotTo(BeEmpty())
		for _, nodeClaim := range current {
			Expect(nodeClaim.Annotations).To(HaveKeyWithValue(kcv1.AnnotationKubernetesVersion, "1.36"))
			Expect(nodeClaim.Labels).To(HaveKeyWithValue("team", "checkout"))
		}
		Expect(liveVMs()).To(HaveLen(len(current)), "the old VMs are deleted, no other left")
		// The first node's pods need a replacement; the second's fit on it, which their
		// ReplicaSets have not filled again here.
		var replaced int
		for _, nodeClaim := range old {
			replaced += len(slices.DeleteFunc(ExpectEvent(env.Recorder, nodeClaim.Name, engine.ReasonDisruptionTerminating, "Drifted (drift): deleting the NodeClaim"),
				func(note string) bool { return !strings.Contains(note, "now that its replacement") }))
		}
		Expect(replaced).To(Equal(1))
		Expect(test.MetricValue("karpenter_nodeclaims_disrupted_total", map[string]string{"nodepool": "checkout", "reason": "drifted"})).To(BeNumerically(">=", 2))

		By("deleting the rest: no VM is left")
		ExpectDeleted(env.Ctx, env.Client, Objects(current)...)
		ExpectTerminated(env.Ctx, env.Client, emulatedLifecycle, env.Clock, current...)
		Expect(liveVMs()).To(BeEmpty())
	})
})

// liveVMs are the emulator's VMs that are not being deleted.
func liveVMs() []kakaocloud.Instance {
	return slices.DeleteFunc(env.Emulator.Instances(), func(i kakaocloud.Instance) bool { return i.Status == kakaocloud.InstanceStatusDeleting })
}
