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
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodepool"
)

var counter atomic.Int64

func newNodePool(nodeClass string) *karpv1.NodePool {
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%d", counter.Add(1))},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass},
			ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
		}}, Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration("0s")}},
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, np)).To(Succeed())
	return np
}

// nodeClassWithReady creates a KCNodeClass whose status says Ready is status (as its own
// controller would write it).
func nodeClassWithReady(status metav1.ConditionStatus, reason, message string) *kcv1.KCNodeClass {
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("nodeclass-%d", counter.Add(1))},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
		},
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, nodeClass)).To(Succeed())
	setReady(nodeClass, status, reason, message)
	return nodeClass
}

func setReady(nodeClass *kcv1.KCNodeClass, status metav1.ConditionStatus, reason, message string) {
	EventuallyWithOffset(2, func() error {
		if err := env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), nodeClass); err != nil {
			return err
		}
		meta.SetStatusCondition(&nodeClass.Status.Conditions, metav1.Condition{Type: kcv1.ConditionTypeReady, Status: status, Reason: reason, Message: message})
		return env.APIClient.Status().Update(env.Ctx, nodeClass)
	}).Should(Succeed())
}

func poolCondition(np *karpv1.NodePool, t string) func(Gomega) metav1.Condition {
	return func(g Gomega) metav1.Condition {
		current := &karpv1.NodePool{}
		g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), current)).To(Succeed())
		c := meta.FindStatusCondition(current.Status.Conditions, t)
		g.Expect(c).NotTo(BeNil())
		return *c
	}
}

func update(np *karpv1.NodePool, mutate func(*karpv1.NodePool)) {
	EventuallyWithOffset(1, func() error {
		if err := env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), np); err != nil {
			return err
		}
		mutate(np)
		return env.APIClient.Update(env.Ctx, np)
	}).Should(Succeed())
}

var _ = Describe("NodePool readiness", func() {
	It("is not ready while its KCNodeClass is missing or not ready, and ready once it is", func() {
		np := newNodePool("not-yet")
		Eventually(poolCondition(np, karpv1.ConditionTypeNodeClassReady)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", karpv1.ReasonNodeClassNotFound)))
		Eventually(poolCondition(np, karpv1.ConditionTypeReady)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Message", ContainSubstring(`KCNodeClass "not-yet" does not exist`))))

		nodeClass := nodeClassWithReady(metav1.ConditionFalse, kcv1.ReasonVersionSkewUnsupported, "worker version 1.34 is outside the allowed skew")
		update(np, func(p *karpv1.NodePool) { p.Spec.Template.Spec.NodeClassRef.Name = nodeClass.Name })
		Eventually(poolCondition(np, karpv1.ConditionTypeNodeClassReady)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", kcv1.ReasonVersionSkewUnsupported),
			HaveField("Message", ContainSubstring("outside the allowed skew"))))

		setReady(nodeClass, metav1.ConditionTrue, kcv1.ReasonReady, "ready")
		Eventually(poolCondition(np, karpv1.ConditionTypeReady)).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(poolCondition(np, karpv1.ConditionTypeValidationSucceeded)(Default).Status).To(Equal(metav1.ConditionTrue))
	})

	It("is not ready when a budget schedule does not parse", func() {
		nodeClass := nodeClassWithReady(metav1.ConditionTrue, kcv1.ReasonReady, "ready")
		np := newNodePool(nodeClass.Name)
		update(np, func(p *karpv1.NodePool) {
			p.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0", Schedule: new("61 * * * *"), Duration: &metav1.Duration{Duration: 3600e9}}}
		})
		Eventually(poolCondition(np, karpv1.ConditionTypeValidationSucceeded)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Message", ContainSubstring("not a cron schedule"))))
		Eventually(poolCondition(np, karpv1.ConditionTypeReady)).Should(HaveField("Status", metav1.ConditionFalse))
	})
})

var _ = Describe("NodePool hash", func() {
	It("changes with the template's labels and taints, not with its requirements", func() {
		np := newNodePool("any")
		hash := func(g Gomega) string {
			current := &karpv1.NodePool{}
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), current)).To(Succeed())
			g.Expect(current.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion))
			return current.Annotations[karpv1.NodePoolHashAnnotationKey]
		}
		Eventually(hash).ShouldNot(BeEmpty())
		first := hash(Default)

		update(np, func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements,
				karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-a"}})
		})
		Consistently(hash, "1s").Should(Equal(first))

		update(np, func(p *karpv1.NodePool) { p.Spec.Template.Labels = map[string]string{"team": "checkout"} })
		Eventually(hash).ShouldNot(Equal(first))
		second := hash(Default)
		update(np, func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}}
		})
		Eventually(hash).ShouldNot(Equal(second))
	})

	// Upstream's e2e spec of the same name: a NodeClaim stamped by another hash version is
	// re-stamped with the NodePool's new hash, even when the template changed meanwhile, and is
	// not drifted; one already drifted keeps its stamp.
	It("re-stamps the NodeClaims of another hash version instead of drifting them", func() {
		np := newNodePool("any")
		Eventually(func(g Gomega) {
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), np)).To(Succeed())
			g.Expect(np.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion))
		}).Should(Succeed())
		claim := func(drifted bool) *karpv1.NodeClaim {
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
			Expect(env.APIClient.Create(env.Ctx, nodeClaim)).To(Succeed())
			if drifted {
				nodeClaim.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "NodePoolDrifted", LastTransitionTime: metav1.Now()}}
				Expect(env.APIClient.Status().Update(env.Ctx, nodeClaim)).To(Succeed())
			}
			return nodeClaim
		}
		current, drifted := claim(false), claim(true)
		update(np, func(p *karpv1.NodePool) {
			p.Annotations[karpv1.NodePoolHashAnnotationKey] = "test-hash-1"
			p.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = "test-hash-version-1"
			p.Spec.Template.Annotations = map[string]string{"test-key": "test-value"}
		})
		Eventually(func(g Gomega) {
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), np)).To(Succeed())
			want := nodepool.Hash(np)
			g.Expect(np.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashAnnotationKey, want))
			g.Expect(np.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion))
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(current), current)).To(Succeed())
			g.Expect(current.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashAnnotationKey, want))
			g.Expect(current.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion))
		}).Should(Succeed())
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(drifted), drifted)).To(Succeed())
		Expect(drifted.Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashVersionAnnotationKey, "test-hash-version-2"))
	})
})

var _ = Describe("NodePool counters", func() {
	It("counts its NodeClaims and sums their capacity", func() {
		np := newNodePool("any")
		for _, cpu := range []string{"4", "8"} {
			claim := &karpv1.NodeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", np.Name, counter.Add(1)), Labels: map[string]string{karpv1.LabelNodePool: np.Name}},
				Spec: karpv1.NodeClaimSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{np.Name}}},
					NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "any"},
				},
			}
			Expect(env.APIClient.Create(env.Ctx, claim)).To(Succeed())
			claim.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("16Gi")}
			if cpu == "8" {
				claim.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "NodePoolDrifted", LastTransitionTime: metav1.Now()}}
			}
			Expect(env.APIClient.Status().Update(env.Ctx, claim)).To(Succeed())
		}
		Eventually(func(g Gomega) {
			current := &karpv1.NodePool{}
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), current)).To(Succeed())
			g.Expect(current.Status.Nodes).To(HaveValue(BeEquivalentTo(2)))
			g.Expect(current.Status.Drifted).To(BeEquivalentTo(1))
			g.Expect(current.Status.Resources.Cpu().String()).To(Equal("12"))
			g.Expect(current.Status.Resources.Memory().String()).To(Equal("32Gi"))
			g.Expect(current.Status.Resources).To(HaveKeyWithValue(karpv1.ResourceNodes, resource.MustParse("2")))
			g.Expect(current.Status.Resources).To(HaveKeyWithValue(corev1.ResourcePods, resource.MustParse("0")))
			g.Expect(gauge("karpenter_nodepools_usage", np.Name, "nodes")).To(Equal(2.0))
			g.Expect(gauge("karpenter_nodepools_usage", np.Name, "cpu")).To(Equal(12.0))
			g.Expect(gauge("karpenter_nodepools_usage", np.Name, "memory")).To(Equal(float64(32 << 30)))
		}).Should(Succeed())
	})
})

// gauge reads one series of a NodePool gauge from the manager's registry (-1 when absent).
func gauge(name, nodePool, resourceType string) float64 {
	families, err := crmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["nodepool"] == nodePool && labels["resource_type"] == resourceType {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}
