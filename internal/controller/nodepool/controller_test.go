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

package nodepool_test

import (
	"fmt"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodepool"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var counter atomic.Int64

func newNodePool(nodeClass string) *karpv1.NodePool {
	GinkgoHelper()
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%d", counter.Add(1))},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass},
			ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
		}}, Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration("0s")}},
	}
	ExpectApplied(env.Ctx, env.Client, np)
	return np
}

// nodeClassWithReady creates a KCNodeClass whose status says Ready is status (as its own
// controller would write it).
func nodeClassWithReady(status metav1.ConditionStatus, reason, message string) *kcv1.KCNodeClass {
	GinkgoHelper()
	nodeClass := test.KCNodeClass()
	ExpectApplied(env.Ctx, env.Client, nodeClass)
	setReady(nodeClass, status, reason, message)
	return nodeClass
}

func setReady(nodeClass *kcv1.KCNodeClass, status metav1.ConditionStatus, reason, message string) {
	GinkgoHelper()
	meta.SetStatusCondition(&nodeClass.Status.Conditions, metav1.Condition{Type: kcv1.ConditionTypeReady, Status: status, Reason: reason, Message: message})
	ExpectApplied(env.Ctx, env.Client, nodeClass)
}

// reconciled runs the controller on the NodePool and returns it as stored.
func reconciled(np *karpv1.NodePool) *karpv1.NodePool {
	GinkgoHelper()
	ExpectReconciled(env.Ctx, controllers.NodePool, np)
	return ExpectExists(env.Ctx, env.Client, np)
}

func condition(np *karpv1.NodePool, conditionType string) metav1.Condition {
	GinkgoHelper()
	c := meta.FindStatusCondition(np.Status.Conditions, conditionType)
	Expect(c).NotTo(BeNil(), "NodePool %s has no condition %s: %v", np.Name, conditionType, np.Status.Conditions)
	return *c
}

// newNodeClaim creates a NodeClaim of the NodePool, stamped with another hash version.
func newNodeClaim(np *karpv1.NodePool, mutate ...func(*karpv1.NodeClaim)) *karpv1.NodeClaim {
	GinkgoHelper()
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("%s-%d", np.Name, counter.Add(1)),
			Labels: map[string]string{karpv1.LabelNodePool: np.Name},
			Annotations: map[string]string{
				karpv1.NodePoolHashAnnotationKey: "test-hash-2", karpv1.NodePoolHashVersionAnnotationKey: "test-hash-version-2",
			},
		},
		Spec: karpv1.NodeClaimSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{np.Name}}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "any"},
		},
	}
	for _, m := range mutate {
		m(nodeClaim)
	}
	ExpectApplied(env.Ctx, env.Client, nodeClaim)
	return nodeClaim
}

func drifted(nodeClaim *karpv1.NodeClaim) {
	nodeClaim.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "NodePoolDrifted", LastTransitionTime: metav1.Now()}}
}

var _ = AfterEach(func() { ExpectCleanedUp(env.Ctx, env.Client) })

var _ = Describe("NodePool readiness", func() {
	It("is not ready while its KCNodeClass is missing or not ready, and ready once it is", func() {
		np := reconciled(newNodePool("not-yet"))
		Expect(condition(np, karpv1.ConditionTypeNodeClassReady)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", karpv1.ReasonNodeClassNotFound)))
		Expect(condition(np, karpv1.ConditionTypeReady)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Message", ContainSubstring(`KCNodeClass "not-yet" does not exist`))))

		nodeClass := nodeClassWithReady(metav1.ConditionFalse, kcv1.ReasonVersionSkewUnsupported, "worker version 1.34 is outside the allowed skew")
		np.Spec.Template.Spec.NodeClassRef.Name = nodeClass.Name
		ExpectApplied(env.Ctx, env.Client, np)
		np = reconciled(np)
		Expect(condition(np, karpv1.ConditionTypeNodeClassReady)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", kcv1.ReasonVersionSkewUnsupported),
			HaveField("Message", ContainSubstring("outside the allowed skew"))))
		Expect(condition(np, karpv1.ConditionTypeReady).Status).To(Equal(metav1.ConditionFalse))

		setReady(nodeClass, metav1.ConditionTrue, kcv1.ReasonReady, "ready")
		np = reconciled(np)
		Expect(condition(np, karpv1.ConditionTypeReady).Status).To(Equal(metav1.ConditionTrue))
		Expect(condition(np, karpv1.ConditionTypeValidationSucceeded).Status).To(Equal(metav1.ConditionTrue))
	})

	It("is not ready when a budget schedule does not parse", func() {
		nodeClass := nodeClassWithReady(metav1.ConditionTrue, kcv1.ReasonReady, "ready")
		np := newNodePool(nodeClass.Name)
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0", Schedule: new("61 * * * *"), Duration: &metav1.Duration{Duration: 3600e9}}}
		ExpectApplied(env.Ctx, env.Client, np)
		np = reconciled(np)
		Expect(condition(np, karpv1.ConditionTypeValidationSucceeded)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Message", ContainSubstring("not a cron schedule"))))
		Expect(condition(np, karpv1.ConditionTypeReady).Status).To(Equal(metav1.ConditionFalse))
	})
})

var _ = Describe("NodePool hash", func() {
	It("changes with the template's labels and taints, not with its requirements", func() {
		np := reconciled(newNodePool("any"))
		Expect(np.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion))
		first := np.Annotations[karpv1.NodePoolHashAnnotationKey]
		Expect(first).NotTo(BeEmpty())

		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-a"}})
		ExpectApplied(env.Ctx, env.Client, np)
		np = reconciled(np)
		Expect(np.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashAnnotationKey, first))

		np.Spec.Template.Labels = map[string]string{"team": "checkout"}
		ExpectApplied(env.Ctx, env.Client, np)
		np = reconciled(np)
		second := np.Annotations[karpv1.NodePoolHashAnnotationKey]
		Expect(second).NotTo(Equal(first))

		np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}}
		ExpectApplied(env.Ctx, env.Client, np)
		np = reconciled(np)
		Expect(np.Annotations[karpv1.NodePoolHashAnnotationKey]).NotTo(Equal(second))
	})

	// Upstream's e2e spec of the same name: a NodeClaim stamped by another hash version is
	// re-stamped with the NodePool's new hash, even when the template changed meanwhile, and is
	// not drifted; one already drifted keeps its stamp.
	It("re-stamps the NodeClaims of another hash version instead of drifting them", func() {
		np := reconciled(newNodePool("any"))
		current, alreadyDrifted := newNodeClaim(np), newNodeClaim(np, drifted)
		np.Annotations[karpv1.NodePoolHashAnnotationKey] = "test-hash-1"
		np.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = "test-hash-version-1"
		np.Spec.Template.Annotations = map[string]string{"test-key": "test-value"}
		ExpectApplied(env.Ctx, env.Client, np)

		np = reconciled(np)
		want := nodepool.Hash(np)
		Expect(np.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashAnnotationKey, want))
		Expect(np.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion))
		current = ExpectExists(env.Ctx, env.Client, current)
		Expect(current.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashAnnotationKey, want))
		Expect(current.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion))
		alreadyDrifted = ExpectExists(env.Ctx, env.Client, alreadyDrifted)
		Expect(alreadyDrifted.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, "test-hash-version-2"))
	})
})

var _ = Describe("NodePool counters", func() {
	It("counts its NodeClaims and sums their capacity", func() {
		np := newNodePool("any")
		for _, cpu := range []string{"4", "8"} {
			newNodeClaim(np, func(nodeClaim *karpv1.NodeClaim) {
				nodeClaim.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("16Gi")}
				if cpu == "8" {
					drifted(nodeClaim)
				}
			})
		}
		np = reconciled(np)
		Expect(np.Status.Nodes).To(HaveValue(BeEquivalentTo(2)))
		Expect(np.Status.Drifted).To(BeEquivalentTo(1))
		Expect(np.Status.Resources.Cpu().String()).To(Equal("12"))
		Expect(np.Status.Resources.Memory().String()).To(Equal("32Gi"))
		Expect(np.Status.Resources).To(HaveKeyWithValue(karpv1.ResourceNodes, resource.MustParse("2")))
		Expect(np.Status.Resources).To(HaveKeyWithValue(corev1.ResourcePods, resource.MustParse("0")))
		usage := func(resourceType string) map[string]string {
			return map[string]string{"nodepool": np.Name, "resource_type": resourceType}
		}
		ExpectMetric("karpenter_nodepools_usage", usage("nodes"), Equal(2.0))
		ExpectMetric("karpenter_nodepools_usage", usage("cpu"), Equal(12.0))
		ExpectMetric("karpenter_nodepools_usage", usage("memory"), Equal(float64(32<<30)))
	})

	// The one spec against the emulator: the cost is priced with the instance types KakaoCloud
	// lists over HTTP, at the offering each launched NodeClaim runs in.
	It("prices its launched NodeClaims with KakaoCloud's offerings", func() {
		nodeClass := test.KCNodeClass()
		ExpectApplied(env.Ctx, env.Client, nodeClass)
		nodeClass = ExpectKCNodeClassReady(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
		np := newNodePool(nodeClass.Name)
		types, err := controllers.CloudProvider.GetInstanceTypes(env.Ctx, np)
		Expect(err).NotTo(HaveOccurred())
		Expect(types).NotTo(BeEmpty())
		it, offering := types[0], types[0].Offerings[0]
		launched := func(nodeClaim *karpv1.NodeClaim) {
			nodeClaim.Labels[karpv1.LabelInstanceType] = it.Name
			nodeClaim.Labels[karpv1.LabelTopologyZone] = offering.Zone
			nodeClaim.Labels[karpv1.LabelCapacityType] = offering.CapacityType
		}
		newNodeClaim(np, launched)
		newNodeClaim(np, launched)
		newNodeClaim(np) // not launched yet: it costs nothing
		reconciled(np)
		ExpectMetric("karpenter_nodepools_cost_total", map[string]string{"nodepool": np.Name}, BeNumerically("~", 2*offering.Price, 1e-9))
	})
})
