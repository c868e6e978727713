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
	"sync/atomic"
	"time"

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
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var counter atomic.Int64

func newNodeClass(version string, subnets ...string) *kcv1.KCNodeClass {
	GinkgoHelper()
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
	ExpectApplied(env.Ctx, env.Client, nodeClass)
	DeferCleanup(func() {
		current := &kcv1.KCNodeClass{}
		if env.Client.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), current) == nil {
			current.Finalizers = nil
			_ = env.Client.Update(env.Ctx, current)
			_ = env.Client.Delete(env.Ctx, current)
		}
	})
	return nodeClass
}

// reconciled runs the controller on the node class a second after the last run, as its
// resync would, and returns the node class as stored.
func reconciled(nodeClass *kcv1.KCNodeClass) *kcv1.KCNodeClass {
	GinkgoHelper()
	env.Step(time.Second)
	ExpectObjectReconciled(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
	return ExpectExists(env.Ctx, env.Client, nodeClass)
}

// condition reads a condition of the node class as stored.
func condition(nodeClass *kcv1.KCNodeClass, t string) metav1.Condition {
	GinkgoHelper()
	c := meta.FindStatusCondition(ExpectExists(env.Ctx, env.Client, nodeClass).Status.Conditions, t)
	Expect(c).NotTo(BeNil(), "condition %s not set", t)
	return *c
}

// update changes the node class as stored.
func update(nodeClass *kcv1.KCNodeClass, mutate func(*kcv1.KCNodeClass)) {
	GinkgoHelper()
	current := ExpectExists(env.Ctx, env.Client, nodeClass)
	mutate(current)
	Expect(env.Client.Update(env.Ctx, current)).To(Succeed())
}

func have(status metav1.ConditionStatus, reason string) OmegaMatcher {
	return SatisfyAll(
		HaveField("Status", status),
		HaveField("Reason", reason),
	)
}

func metric(name string, nodeClass *kcv1.KCNodeClass) float64 {
	return test.MetricValue(name, map[string]string{"nodeclass": nodeClass.Name})
}

// restoreControlPlane puts the emulator's cluster back after a test that changed it.
func restoreControlPlane() {
	DeferCleanup(func() { env.Emulator.SetControlPlane("1.36", "1.36.4", kakaocloud.ClusterPhaseProvisioned) })
}

// nodeClaimOf creates a NodeClaim of the node class, removed when the spec ends.
func nodeClaimOf(nodeClass *kcv1.KCNodeClass, mutate func(*karpv1.NodeClaim)) *karpv1.NodeClaim {
	GinkgoHelper()
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: test.RandomName(nodeClass.Name), Annotations: map[string]string{}, Labels: map[string]string{}},
		Spec: karpv1.NodeClaimSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
		},
	}
	if mutate != nil {
		mutate(nodeClaim)
	}
	ExpectApplied(env.Ctx, env.Client, nodeClaim)
	DeferCleanup(func() { Expect(client.IgnoreNotFound(env.Client.Delete(env.Ctx, nodeClaim))).To(Succeed()) })
	return nodeClaim
}

var _ = Describe("KCNodeClass status", func() {
	It("resolves version, images, subnets with their zones and security groups, and is Ready", func() {
		nodeClass := reconciled(newNodeClass("1.36", "karpenter-subnet-a", "karpenter-subnet-c"))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady))
		s := nodeClass.Status
		Expect(s.ControlPlaneVersion).To(Equal("1.36"))
		Expect(s.KubernetesVersion).To(Equal("1.36"))
		Expect(s.Images).To(HaveLen(3))
		Expect(s.Subnets).To(ConsistOf(
			And(HaveField("Name", "karpenter-subnet-a"), HaveField("Zone", "kr-central-2-a")),
			And(HaveField("Name", "karpenter-subnet-c"), HaveField("Zone", "kr-central-2-c")),
		))
		Expect(s.SecurityGroups).To(ConsistOf(HaveField("Name", "karpenter-workers")))
		for _, t := range []string{kcv1.ConditionTypeKubernetesVersionReady, kcv1.ConditionTypeImagesReady, kcv1.ConditionTypeSubnetsReady, kcv1.ConditionTypeSecurityGroupsReady} {
			Expect(condition(nodeClass, t).Status).To(Equal(metav1.ConditionTrue), t)
		}
		Expect(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionDeprecated)).To(have(metav1.ConditionFalse, kcv1.ReasonWorkerVersionOffered))
		Expect(metric("karpenter_kakaocloud_nodeclass_kubernetes_version_skew", nodeClass)).To(BeEquivalentTo(0))
		Expect(nodeClass.Finalizers).To(ContainElement(nodeclass.Finalizer))
	})

	It("reports subnets and security groups that do not exist", func() {
		nodeClass := reconciled(newNodeClass("1.36", "karpenter-subnet-a", "no-such-subnet"))
		Expect(condition(nodeClass, kcv1.ConditionTypeSubnetsReady)).To(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonSubnetsNotFound),
			HaveField("Message", ContainSubstring("name no-such-subnet")),
		))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonSubnetsNotFound),
			HaveField("Message", ContainSubstring("SubnetsReady: subnet(s) not found: name no-such-subnet")),
		))
		Expect(env.Recorder.Notes(nodeClass.Name, kcv1.ReasonSubnetsNotFound)).To(ContainElement(ContainSubstring("no-such-subnet")))
	})

	It("marks a version Kubernetes Engine no longer offers as deprecated without blocking nodes", func() {
		nodeClass := reconciled(newNodeClass("1.35"))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady))

		env.Emulator.SetVersionDeprecated("1.35", true)
		DeferCleanup(func() { env.Emulator.SetVersionDeprecated("1.35", false) })
		reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionDeprecated)).To(SatisfyAll(
			have(metav1.ConditionTrue, kcv1.ReasonWorkerVersionNotOffered),
			HaveField("Message", ContainSubstring("no longer offers 1.35")),
		))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady))
		reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady), "still, a pass later")
		Expect(env.Recorder.Notes(nodeClass.Name, kcv1.ReasonWorkerVersionNotOffered)).To(HaveLen(1), "said once")
		Expect(metric("karpenter_kakaocloud_nodeclass_kubernetes_version_deprecated", nodeClass)).To(BeEquivalentTo(1))
		Expect(metric("karpenter_kakaocloud_nodeclass_kubernetes_version_skew", nodeClass)).To(BeEquivalentTo(1))
	})

	It("retains earlier images when the lookup fails, until an image is pinned", func() {
		nodeClass := reconciled(newNodeClass("1.36"))
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)).To(have(metav1.ConditionTrue, kcv1.ReasonImagesResolved))
		before := nodeClass.Status.Images

		env.Emulator.FailNodeImageLookups(true)
		DeferCleanup(func() { env.Emulator.FailNodeImageLookups(false) })
		nodeClass = reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)).To(SatisfyAll(
			have(metav1.ConditionTrue, kcv1.ReasonImagesRetained),
			HaveField("Message", ContainSubstring("set spec.imageID")),
		))
		Expect(nodeClass.Status.Images).To(Equal(before))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady).Status).To(Equal(metav1.ConditionTrue))
		Expect(env.Recorder.Notes(nodeClass.Name, kcv1.ReasonImagesRetained)).To(HaveLen(1))
		Expect(metric("karpenter_kakaocloud_nodeclass_images_retained", nodeClass)).To(BeEquivalentTo(1))

		// It does not clear by itself when lookups work again.
		env.Emulator.FailNodeImageLookups(false)
		reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)).To(have(metav1.ConditionTrue, kcv1.ReasonImagesRetained))

		// Pinning a verified image clears it.
		update(nodeClass, func(nodeClass *kcv1.KCNodeClass) { nodeClass.Spec.ImageID = before[0].ID })
		nodeClass = reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)).To(have(metav1.ConditionTrue, kcv1.ReasonImagePinned))
		Expect(nodeClass.Status.Images).To(ConsistOf(HaveField("ID", before[0].ID)))
		Expect(metric("karpenter_kakaocloud_nodeclass_images_retained", nodeClass)).To(BeEquivalentTo(0))
	})

	It("says which images are missing for a version without any", func() {
		nodeClass := reconciled(newNodeClass("1.35"))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady))
		update(nodeClass, func(nodeClass *kcv1.KCNodeClass) { nodeClass.Spec.ImageID = "00000000-0000-4000-8000-000000000000" })
		reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)).To(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonImagesNotFound),
			HaveField("Message", ContainSubstring("pinned image 00000000-0000-4000-8000-000000000000 cannot be used")),
		))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionFalse, kcv1.ReasonImagesNotFound))
	})

	It("turns Ready False when a control-plane change puts the worker version out of skew", func() {
		restoreControlPlane()
		nodeClass := reconciled(newNodeClass("1.35"))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady))

		env.Emulator.SetControlPlane("1.37", "1.37.0", "")
		nodeClass = reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionReady)).To(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonVersionSkewUnsupported),
			HaveField("Message", ContainSubstring("allowed versions are 1.37, 1.36")),
		))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionFalse, kcv1.ReasonVersionSkewUnsupported))
		Expect(nodeClass.Status.ControlPlaneVersion).To(Equal("1.37"))
		Expect(metric("karpenter_kakaocloud_nodeclass_kubernetes_version_skew", nodeClass)).To(BeEquivalentTo(2))
		Expect(env.Recorder.Notes(nodeClass.Name, kcv1.ReasonVersionSkewUnsupported)).NotTo(BeEmpty())
	})

	It("pauses while the control plane upgrades and recovers afterwards", func() {
		restoreControlPlane()
		nodeClass := reconciled(newNodeClass("1.36"))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady))

		env.Emulator.SetControlPlane("", "", kakaocloud.ClusterPhaseUpdating)
		nodeClass = reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeKubernetesVersionReady)).To(have(metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading))
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)).To(have(metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading))
		Expect(nodeClass.Status.Images).NotTo(BeEmpty(), "images stay known during the upgrade")

		env.Emulator.SetControlPlane("", "", kakaocloud.ClusterPhaseProvisioned)
		reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady))
		Expect(condition(nodeClass, kcv1.ConditionTypeImagesReady)).To(have(metav1.ConditionTrue, kcv1.ReasonImagesResolved))
	})
})

var _ = Describe("KCNodeClass upgrade readiness", func() {
	It("counts its nodes by Kubernetes version, NotReady and not launched ones included, and says when the control plane may be upgraded", func() {
		restoreControlPlane()
		nodeClass := newNodeClass("1.35")
		launchedWith := func(version string) func(*karpv1.NodeClaim) {
			return func(nodeClaim *karpv1.NodeClaim) { nodeClaim.Annotations[kcv1.AnnotationKubernetesVersion] = version }
		}
		// A node that registered on 1.34 and is NotReady: its kubelet's version counts, not
		// the version its NodeClaim was launched with.
		registered := nodeClaimOf(nodeClass, launchedWith("1.35"))
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: registered.Name},
			Spec:       corev1.NodeSpec{ProviderID: "kakaocloud:///" + registered.Name},
			Status: corev1.NodeStatus{
				NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.34.9"},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady"}},
			},
		}
		ExpectApplied(env.Ctx, env.Client, node)
		DeferCleanup(func() { Expect(client.IgnoreNotFound(env.Client.Delete(env.Ctx, node))).To(Succeed()) })
		registered.Status.ProviderID = node.Spec.ProviderID
		ExpectApplied(env.Ctx, env.Client, registered)
		nodeClaimOf(nodeClass, launchedWith("1.35")) // launched, still registering
		nodeClaimOf(nodeClass, nil)                  // not launched yet: it will be launched with the node class's version

		nodeClass = reconciled(nodeClass)
		Expect(nodeClass.Status.NodeVersions).To(Equal([]kcv1.NodeVersionCount{{Version: "1.34", NodeClaims: 1}, {Version: "1.35", NodeClaims: 2}}))
		Expect(condition(nodeClass, kcv1.ConditionTypeNodesOnControlPlaneVersion)).To(SatisfyAll(
			have(metav1.ConditionFalse, kcv1.ReasonNodesOffControlPlaneVersion),
			HaveField("Message", ContainSubstring("3 of 3 nodes are not on 1.36")),
			HaveField("Message", ContainSubstring("set spec.bootstrap.kubernetesVersion to 1.36 (it is 1.35)")),
		))
		Expect(condition(nodeClass, kcv1.ConditionTypeReady)).To(have(metav1.ConditionTrue, kcv1.ReasonReady), "informational: nodes still launch")

		update(nodeClass, func(nodeClass *kcv1.KCNodeClass) { nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36" })
		nodeClass = reconciled(nodeClass)
		Expect(nodeClass.Status.NodeVersions).To(Equal([]kcv1.NodeVersionCount{{Version: "1.34", NodeClaims: 1}, {Version: "1.35", NodeClaims: 1}, {Version: "1.36", NodeClaims: 1}}))
		Expect(condition(nodeClass, kcv1.ConditionTypeNodesOnControlPlaneVersion)).To(HaveField("Message", ContainSubstring("they are replaced as they drift")))

		list := &karpv1.NodeClaimList{}
		Expect(env.Client.List(env.Ctx, list)).To(Succeed())
		for i := range list.Items {
			if refers := list.Items[i].Spec.NodeClassRef; refers != nil && refers.Name == nodeClass.Name && list.Items[i].Annotations[kcv1.AnnotationKubernetesVersion] != "" {
				ExpectDeleted(env.Ctx, env.Client, &list.Items[i])
			}
		}
		reconciled(nodeClass)
		Expect(condition(nodeClass, kcv1.ConditionTypeNodesOnControlPlaneVersion)).To(SatisfyAll(
			have(metav1.ConditionTrue, kcv1.ReasonAllNodesOnControlPlaneVersion),
			HaveField("Message", ContainSubstring("all 1 nodes are on 1.36")),
		))
	})
})

var _ = Describe("KCNodeClass static hash", func() {
	It("changes with the settings fixed at launch and not with those compared to the VM", func() {
		hash := func(nodeClass *kcv1.KCNodeClass) string {
			GinkgoHelper()
			Expect(nodeClass.Annotations).To(HaveKeyWithValue(kcv1.AnnotationNodeClassHashVersion, kcv1.NodeClassHashVersion))
			return nodeClass.Annotations[kcv1.AnnotationNodeClassHash]
		}
		nodeClass := reconciled(newNodeClass("1.36"))
		first := hash(nodeClass)
		Expect(first).NotTo(BeEmpty())

		update(nodeClass, func(c *kcv1.KCNodeClass) {
			c.Spec.SubnetSelectorTerms = append(c.Spec.SubnetSelectorTerms, kcv1.SubnetSelectorTerm{Name: "karpenter-subnet-b"})
		})
		Expect(hash(reconciled(nodeClass))).To(Equal(first))

		userData := "#!/bin/bash\necho tuned\n"
		update(nodeClass, func(c *kcv1.KCNodeClass) { c.Spec.UserData = &userData })
		Expect(hash(reconciled(nodeClass))).NotTo(Equal(first))
	})
})

var _ = Describe("KCNodeClass deletion", func() {
	It("counts its NodeClaims by the key that signed their VM, as a keyring rotation goes on", func() {
		nodeClass := newNodeClass("1.36")
		signedBy := func(key string) func(*karpv1.NodeClaim) {
			return func(nodeClaim *karpv1.NodeClaim) { nodeClaim.Labels[kcv1.LabelSigningKey] = key }
		}
		old := nodeClaimOf(nodeClass, signedBy("k1"))
		nodeClaimOf(nodeClass, signedBy("k1"))
		nodeClaimOf(nodeClass, signedBy("k2"))
		nodeClaimOf(nodeClass, nil) // not launched yet: no VM, no key
		Expect(reconciled(nodeClass).Status.SigningKeys).To(Equal([]kcv1.SigningKeyUse{{KeyID: "k1", NodeClaims: 2}, {KeyID: "k2", NodeClaims: 1}}))

		ExpectDeleted(env.Ctx, env.Client, old)
		Expect(reconciled(nodeClass).Status.SigningKeys).To(Equal([]kcv1.SigningKeyUse{{KeyID: "k1", NodeClaims: 1}, {KeyID: "k2", NodeClaims: 1}}))
	})

	It("names at most five of the NodeClaims it waits for, as a longer event would be refused", func() {
		nodeClass := reconciled(newNodeClass("1.36"))
		for range 7 {
			nodeClaimOf(nodeClass, nil)
		}
		Expect(env.Client.Delete(env.Ctx, nodeClass)).To(Succeed())

		reconciled(nodeClass)
		notes := env.Recorder.Notes(nodeClass.Name, "WaitingOnReferences")
		Expect(notes).To(HaveLen(1))
		Expect(notes[0]).To(MatchRegexp(`^waiting for (NodeClaim/[^ ,]+, ){4}NodeClaim/[^ ,]+ and 2 other\(s\) to be deleted`))
	})

	It("waits while a NodePool refers to it and says so", func() {
		nodeClass := reconciled(newNodeClass("1.36"))
		Expect(nodeClass.Finalizers).To(ContainElement(nodeclass.Finalizer))

		np := &karpv1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: "pool-of-" + nodeClass.Name},
			Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}}},
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
				ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
			}}, Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration("0s")}},
		}
		ExpectApplied(env.Ctx, env.Client, np)
		DeferCleanup(func() { Expect(client.IgnoreNotFound(env.Client.Delete(env.Ctx, np))).To(Succeed()) })
		Expect(env.Client.Delete(env.Ctx, nodeClass)).To(Succeed())

		reconciled(nodeClass)
		Expect(env.Recorder.Notes(nodeClass.Name, "WaitingOnReferences")).To(ContainElement(
			ContainSubstring("waiting for NodePool/" + np.Name + " to be deleted")))
		reconciled(nodeClass) // still there a pass later

		ExpectDeleted(env.Ctx, env.Client, np)
		env.Step(time.Second)
		ExpectObjectReconciled(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
		ExpectNotFound(env.Ctx, env.Client, nodeClass)
	})
})
