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

package nodeclass_test

import (
	"fmt"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclass"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

var counter atomic.Int64

func newNodeClass(version string, subnets ...string) *kcv1.KCNodeClass {
	if len(subnets) == 0 {
		subnets = []string{"karpenter-subnet-a"}
	}
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("nodeclass-%d", counter.Add(1))},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: version},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
		},
	}
	for _, s := range subnets {
		nodeClass.Spec.SubnetSelectorTerms = append(nodeClass.Spec.SubnetSelectorTerms, kcv1.SubnetSelectorTerm{Name: s})
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, nodeClass)).To(Succeed())
	DeferCleanup(func() {
		current := &kcv1.KCNodeClass{}
		if env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current) == nil {
			_ = env.APIClient.Delete(env.Ctx, current)
		}
	})
	return nodeClass
}

// condition reads a condition of the node class as the API server has it.
func condition(nodeClass *kcv1.KCNodeClass, t string) func(Gomega) metav1.Condition {
	return func(g Gomega) metav1.Condition {
		current := &kcv1.KCNodeClass{}
		g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current)).To(Succeed())
		c := meta.FindStatusCondition(current.Status.Conditions, t)
		g.Expect(c).NotTo(BeNil(), "condition %s not set yet", t)
		return *c
	}
}

// update changes the node class as the API server has it, again on a conflict.
func update(nodeClass *kcv1.KCNodeClass, mutate func(*kcv1.KCNodeClass)) {
	EventuallyWithOffset(1, func() error {
		current := &kcv1.KCNodeClass{}
		if err := env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current); err != nil {
			return err
		}
		mutate(current)
		return env.APIClient.Update(env.Ctx, current)
	}).Should(Succeed())
}

func status(nodeClass *kcv1.KCNodeClass) kcv1.KCNodeClassStatus {
	current := &kcv1.KCNodeClass{}
	ExpectWithOffset(1, env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current)).To(Succeed())
	return current.Status
}

func have(status metav1.ConditionStatus, reason string) OmegaMatcher {
	return SatisfyAll(
		HaveField("Status", status),
		HaveField("Reason", reason),
	)
}

// restoreControlPlane puts the emulator's cluster back after a test that changed it.
func restoreControlPlane() {
	DeferCleanup(func() { env.Emulator.SetControlPlane("1.36", "1.36.4", kakaocloud.ClusterPhaseProvisioned) })
}

var _ = Describe("KCNodeClass status", func() {
	It("resolves version, images, subnets with their zones and security groups, and is Ready", func() {
		nodeClass := newNodeClass("1.36", "karpenter-subnet-a", "karpenter-subnet-c")
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonReady))
		s := status(nodeClass)
		Expect(s.ControlPlaneVersion).To(Equal("1.36"))
		Expect(s.KubernetesVersion).To(Equal("1.36"))
		Expect(s.Images).To(HaveLen(3))
		Expect(s.Subnets).To(ConsistOf(
			And(HaveField("Name", "karpenter-subnet-a"), HaveField("Zone", "kr-central-2-a")),
			And(HaveField("Name", "karpenter-subnet-c"), HaveField("Zone", "kr-central-2-c")),
		))
		Expect(s.SecurityGroups).To(ConsistOf(HaveField("Name", "karpenter-workers")))
		for _, t := range []string{kcv1.ConditionTypeKubernetesVersionReady, kcv1.ConditionTypeImagesReady, kcv1.ConditionTypeSubnetsReady, kcv1.ConditionTypeSecurityGroupsReady} {
			Expect(condition(nodeClass, t)(Default).Status).To(Equal(metav1.ConditionTrue), t)
		}
		Expect(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionDeprecated)(Default)).To(have(metav1.ConditionFalse, kcv1.ReasonWorkerVersionOffered))
		Eventually(func() float64 {
			return test.MetricValue("karpenter_kakaocloud_nodeclass_kubernetes_version_skew", map[string]string{"nodeclass": nodeClass.Name})
		}).Should(BeEquivalentTo(0))

		current := &kcv1.KCNodeClass{}
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current)).To(Succeed())
		Expect(current.Finalizers).To(ContainElement(nodeclass.Finalizer))
	})

	It("reports subnets and security groups that do not exist", func() {
		nodeClass := newNodeClass("1.36", "karpenter-subnet-a", "no-such-subnet")
		Eventually(condition(nodeClass, kcv1.ConditionTypeSubnetsReady)).Should(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonSubnetsNotFound),
			HaveField("Message", ContainSubstring("name no-such-subnet")),
		))
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonSubnetsNotFound),
			HaveField("Message", ContainSubstring("SubnetsReady: subnet(s) not found: name no-such-subnet")),
		))
		Eventually(env.Recorder.NotesOf(nodeClass.Name, kcv1.ReasonSubnetsNotFound)).Should(ContainElement(ContainSubstring("no-such-subnet")))
	})

	It("marks a version Kubernetes Engine no longer offers as deprecated without blocking nodes", func() {
		nodeClass := newNodeClass("1.35")
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonReady))

		env.Emulator.SetVersionDeprecated("1.35", true)
		DeferCleanup(func() { env.Emulator.SetVersionDeprecated("1.35", false) })
		Eventually(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionDeprecated)).Should(SatisfyAll(
			have(metav1.ConditionTrue, kcv1.ReasonWorkerVersionNotOffered),
			HaveField("Message", ContainSubstring("no longer offers 1.35")),
		))
		Consistently(condition(nodeClass, kcv1.ConditionTypeReady), "1s").Should(have(metav1.ConditionTrue, kcv1.ReasonReady))
		Eventually(env.Recorder.NotesOf(nodeClass.Name, kcv1.ReasonWorkerVersionNotOffered)).Should(HaveLen(1))
		Eventually(func() float64 {
			return test.MetricValue("karpenter_kakaocloud_nodeclass_kubernetes_version_deprecated", map[string]string{"nodeclass": nodeClass.Name})
		}).Should(BeEquivalentTo(1))
		Eventually(func() float64 {
			return test.MetricValue("karpenter_kakaocloud_nodeclass_kubernetes_version_skew", map[string]string{"nodeclass": nodeClass.Name})
		}).Should(BeEquivalentTo(1))
	})

	It("retains earlier images when the lookup fails, until an image is pinned", func() {
		nodeClass := newNodeClass("1.36")
		Eventually(condition(nodeClass, kcv1.ConditionTypeImagesReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonImagesResolved))
		before := status(nodeClass).Images

		env.Emulator.FailNodeImageLookups(true)
		DeferCleanup(func() { env.Emulator.FailNodeImageLookups(false) })
		Eventually(condition(nodeClass, kcv1.ConditionTypeImagesReady)).Should(SatisfyAll(
			have(metav1.ConditionTrue, kcv1.ReasonImagesRetained),
			HaveField("Message", ContainSubstring("set spec.imageID")),
		))
		Expect(status(nodeClass).Images).To(Equal(before))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)(Default).Status).To(Equal(metav1.ConditionTrue))
		Eventually(env.Recorder.NotesOf(nodeClass.Name, kcv1.ReasonImagesRetained)).Should(HaveLen(1))
		Eventually(func() float64 {
			return test.MetricValue("karpenter_kakaocloud_nodeclass_images_retained", map[string]string{"nodeclass": nodeClass.Name})
		}).Should(BeEquivalentTo(1))

		// It does not clear by itself when lookups work again.
		env.Emulator.FailNodeImageLookups(false)
		Consistently(condition(nodeClass, kcv1.ConditionTypeImagesReady), "1s").Should(have(metav1.ConditionTrue, kcv1.ReasonImagesRetained))

		// Pinning a verified image clears it.
		current := &kcv1.KCNodeClass{}
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current)).To(Succeed())
		current.Spec.ImageID = before[0].ID
		Expect(env.APIClient.Update(env.Ctx, current)).To(Succeed())
		Eventually(condition(nodeClass, kcv1.ConditionTypeImagesReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonImagePinned))
		Expect(status(nodeClass).Images).To(ConsistOf(HaveField("ID", before[0].ID)))
		Eventually(func() float64 {
			return test.MetricValue("karpenter_kakaocloud_nodeclass_images_retained", map[string]string{"nodeclass": nodeClass.Name})
		}).Should(BeEquivalentTo(0))
	})

	It("says which images are missing for a version without any", func() {
		nodeClass := newNodeClass("1.35")
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonReady))
		current := &kcv1.KCNodeClass{}
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current)).To(Succeed())
		current.Spec.ImageID = "00000000-0000-4000-8000-000000000000"
		Expect(env.APIClient.Update(env.Ctx, current)).To(Succeed())
		Eventually(condition(nodeClass, kcv1.ConditionTypeImagesReady)).Should(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonImagesNotFound),
			HaveField("Message", ContainSubstring("pinned image 00000000-0000-4000-8000-000000000000 cannot be used")),
		))
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionFalse, kcv1.ReasonImagesNotFound))
	})

	It("turns Ready False when a control-plane change puts the worker version out of skew", func() {
		restoreControlPlane()
		nodeClass := newNodeClass("1.35")
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonReady))

		env.Emulator.SetControlPlane("1.37", "1.37.0", "")
		Eventually(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionReady)).Should(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonVersionSkewUnsupported),
			HaveField("Message", ContainSubstring("allowed versions are 1.37, 1.36")),
		))
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionFalse, kcv1.ReasonVersionSkewUnsupported))
		Expect(status(nodeClass).ControlPlaneVersion).To(Equal("1.37"))
		Eventually(func() float64 {
			return test.MetricValue("karpenter_kakaocloud_nodeclass_kubernetes_version_skew", map[string]string{"nodeclass": nodeClass.Name})
		}).Should(BeEquivalentTo(2))
		Eventually(env.Recorder.NotesOf(nodeClass.Name, kcv1.ReasonVersionSkewUnsupported)).ShouldNot(BeEmpty())
	})

	It("pauses while the control plane upgrades and recovers afterwards", func() {
		restoreControlPlane()
		nodeClass := newNodeClass("1.36")
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonReady))

		env.Emulator.SetControlPlane("", "", kakaocloud.ClusterPhaseUpdating)
		Eventually(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionReady)).Should(have(metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading))
		Eventually(condition(nodeClass, kcv1.ConditionTypeImagesReady)).Should(have(metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading))
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading))
		Expect(status(nodeClass).Images).NotTo(BeEmpty(), "images stay known during the upgrade")

		env.Emulator.SetControlPlane("", "", kakaocloud.ClusterPhaseProvisioned)
		Eventually(condition(nodeClass, kcv1.ConditionTypeReady)).Should(have(metav1.ConditionTrue, kcv1.ReasonReady))
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)(Default)).To(have(metav1.ConditionTrue, kcv1.ReasonImagesResolved))
	})
})

var _ = Describe("KCNodeClass upgrade readiness", func() {
	It("counts its nodes by Kubernetes version, NotReady and not launched ones included, and says when the control plane may be upgraded", func() {
		restoreControlPlane()
		nodeClass := newNodeClass("1.35")
		ref := &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name}
		claim := func(launchedWith string) *karpv1.NodeClaim {
			nodeClaim := &karpv1.NodeClaim{
				ObjectMeta: metav1.ObjectMeta{GenerateName: nodeClass.Name + "-", Annotations: map[string]string{}},
				Spec: karpv1.NodeClaimSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
					NodeClassRef: ref,
				},
			}
			if launchedWith != "" {
				nodeClaim.Annotations[kcv1.AnnotationKubernetesVersion] = launchedWith
			}
			Expect(env.APIClient.Create(env.Ctx, nodeClaim)).To(Succeed())
			DeferCleanup(func() { Expect(client.IgnoreNotFound(env.APIClient.Delete(env.Ctx, nodeClaim))).To(Succeed()) })
			return nodeClaim
		}
		// A node that registered on 1.34 and is NotReady: its kubelet's version counts, not
		// the version its NodeClaim was launched with.
		registered := claim("1.35")
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: registered.Name},
			Spec:       corev1.NodeSpec{ProviderID: "kakaocloud:///" + registered.Name},
		}
		Expect(env.APIClient.Create(env.Ctx, node)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(env.APIClient.Delete(env.Ctx, node))).To(Succeed()) })
		node.Status = corev1.NodeStatus{
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.34.9"},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady"}},
		}
		Expect(env.APIClient.Status().Update(env.Ctx, node)).To(Succeed())
		registered.Status.ProviderID = node.Spec.ProviderID
		Expect(env.APIClient.Status().Update(env.Ctx, registered)).To(Succeed())
		claim("1.35") // launched, still registering
		claim("")     // not launched yet: it will be launched with the node class's version

		versions := func() []kcv1.NodeVersionCount { return status(nodeClass).NodeVersions }
		Eventually(versions).Should(Equal([]kcv1.NodeVersionCount{{Version: "1.34", NodeClaims: 1}, {Version: "1.35", NodeClaims: 2}}))
		Eventually(condition(nodeClass, kcv1.ConditionTypeNodesOnControlPlaneVersion)).Should(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonNodesOffControlPlaneVersion),
			HaveField("Message", ContainSubstring("3 of 3 nodes are not on 1.36")),
			HaveField("Message", ContainSubstring("set spec.bootstrap.kubernetesVersion to 1.36 (it is 1.35)")),
		))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)(Default)).To(have(metav1.ConditionTrue, kcv1.ReasonReady), "informational: nodes still launch")

		update(nodeClass, func(nodeClass *kcv1.KCNodeClass) { nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36" })
		Eventually(versions).Should(Equal([]kcv1.NodeVersionCount{{Version: "1.34", NodeClaims: 1}, {Version: "1.35", NodeClaims: 1}, {Version: "1.36", NodeClaims: 1}}))
		Eventually(condition(nodeClass, kcv1.ConditionTypeNodesOnControlPlaneVersion)).Should(HaveField("Message", ContainSubstring("they are replaced as they drift")))

		list := &karpv1.NodeClaimList{}
		Expect(env.APIClient.List(env.Ctx, list)).To(Succeed())
		for i := range list.Items {
			if refers := list.Items[i].Spec.NodeClassRef; refers != nil && refers.Name == nodeClass.Name && list.Items[i].Annotations[kcv1.AnnotationKubernetesVersion] != "" {
				Expect(env.APIClient.Delete(env.Ctx, &list.Items[i])).To(Succeed())
			}
		}
		Eventually(condition(nodeClass, kcv1.ConditionTypeNodesOnControlPlaneVersion)).Should(SatisfyAll(
			have(metav1.ConditionTrue, kcv1.ReasonAllNodesOnControlPlaneVersion),
			HaveField("Message", ContainSubstring("all 1 nodes are on 1.36")),
		))
	})
})

var _ = Describe("KCNodeClass static hash", func() {
	It("changes with the settings fixed at launch and not with those compared to the VM", func() {
		nodeClass := newNodeClass("1.36")
		hash := func(g Gomega) string {
			current := &kcv1.KCNodeClass{}
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current)).To(Succeed())
			g.Expect(current.Annotations).To(HaveKeyWithValue(kcv1.AnnotationNodeClassHashVersion, kcv1.NodeClassHashVersion))
			return current.Annotations[kcv1.AnnotationNodeClassHash]
		}
		Eventually(hash).ShouldNot(BeEmpty())
		first := hash(Default)

		update(nodeClass, func(c *kcv1.KCNodeClass) {
			c.Spec.SubnetSelectorTerms = append(c.Spec.SubnetSelectorTerms, kcv1.SubnetSelectorTerm{Name: "karpenter-subnet-b"})
		})
		Consistently(hash, "1s").Should(Equal(first))

		userData := "#!/bin/bash\necho tuned\n"
		update(nodeClass, func(c *kcv1.KCNodeClass) { c.Spec.UserData = &userData })
		Eventually(hash).ShouldNot(Equal(first))
	})
})

var _ = Describe("KCNodeClass deletion", func() {
	It("counts its NodeClaims by the key that signed their VM, as a keyring rotation goes on", func() {
		nodeClass := newNodeClass("1.36")
		claim := func(key string) *karpv1.NodeClaim {
			labels := map[string]string{}
			if key != "" {
				labels[kcv1.LabelSigningKey] = key
			}
			nodeClaim := &karpv1.NodeClaim{
				ObjectMeta: metav1.ObjectMeta{GenerateName: nodeClass.Name + "-", Labels: labels},
				Spec: karpv1.NodeClaimSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
					NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
				},
			}
			Expect(env.APIClient.Create(env.Ctx, nodeClaim)).To(Succeed())
			DeferCleanup(func() { Expect(client.IgnoreNotFound(env.APIClient.Delete(env.Ctx, nodeClaim))).To(Succeed()) })
			return nodeClaim
		}
		signingKeys := func() []kcv1.SigningKeyUse { return status(nodeClass).SigningKeys }
		old := claim("k1")
		claim("k1")
		claim("k2")
		claim("") // not launched yet: no VM, no key
		Eventually(signingKeys).Should(Equal([]kcv1.SigningKeyUse{{KeyID: "k1", NodeClaims: 2}, {KeyID: "k2", NodeClaims: 1}}))

		Expect(env.APIClient.Delete(env.Ctx, old)).To(Succeed())
		Eventually(signingKeys).Should(Equal([]kcv1.SigningKeyUse{{KeyID: "k1", NodeClaims: 1}, {KeyID: "k2", NodeClaims: 1}}))
	})

	It("waits while a NodePool refers to it and says so", func() {
		nodeClass := newNodeClass("1.36")
		Eventually(func(g Gomega) []string {
			current := &kcv1.KCNodeClass{}
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current)).To(Succeed())
			return current.Finalizers
		}).Should(ContainElement(nodeclass.Finalizer))

		np := &karpv1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: "pool-of-" + nodeClass.Name},
			Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
				ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
			}}, Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration("0s")}},
		}
		Expect(env.APIClient.Create(env.Ctx, np)).To(Succeed())
		Expect(env.APIClient.Delete(env.Ctx, nodeClass)).To(Succeed())

		Eventually(env.Recorder.NotesOf(nodeClass.Name, "WaitingOnReferences")).Should(ContainElement(
			ContainSubstring("waiting for NodePool/" + np.Name + " to be deleted")))
		Consistently(func() error {
			return env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), &kcv1.KCNodeClass{})
		}, "1s").Should(Succeed())

		Expect(env.APIClient.Delete(env.Ctx, np)).To(Succeed())
		Eventually(func() bool {
			err := env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), &kcv1.KCNodeClass{})
			return err != nil && strings.Contains(err.Error(), "not found")
		}).Should(BeTrue())
	})
})
