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

package kakao_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

var counter atomic.Int64

// readyNodeClass creates a KCNodeClass and waits until its controller has resolved it.
func readyNodeClass(version string, subnets ...string) *kcv1.KCNodeClass {
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("nodeclass-%d", counter.Add(1))},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: version},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
			RootVolume:                 kcv1.RootVolume{SizeGiB: 50},
		},
	}
	for _, s := range subnets {
		nodeClass.Spec.SubnetSelectorTerms = append(nodeClass.Spec.SubnetSelectorTerms, kcv1.SubnetSelectorTerm{Name: s})
	}
	ExpectWithOffset(1, env.Client.Create(env.Ctx, nodeClass)).To(Succeed())
	EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(env.Client.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)).To(BeTrue())
		g.Expect(nodeClass.Annotations).To(HaveKey(kcv1.AnnotationNodeClassHash))
	}).Should(Succeed())
	return nodeClass
}

// nodeClaim creates a NodeClaim in the API server, where a launch records its attempts.
func nodeClaim(nodeClass *kcv1.KCNodeClass, cpu string, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodeClaim {
	return nodeClaimOf("default", nodeClass, cpu, reqs...)
}

// nodeClaimOf is nodeClaim of the NodePool named.
func nodeClaimOf(pool string, nodeClass *kcv1.KCNodeClass, cpu string, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodeClaim {
	claim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("%s-%05d", pool, counter.Add(1)),
			Labels: map[string]string{karpv1.LabelNodePool: pool},
		},
		Spec: karpv1.NodeClaimSpec{
			Requirements: append([]karpv1.NodeSelectorRequirementWithMinValues{
				{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{pool}},
			}, reqs...),
			Resources:    karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
		},
	}
	ExpectWithOffset(1, env.Client.Create(env.Ctx, claim)).To(Succeed())
	return claim
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) karpv1.NodeSelectorRequirementWithMinValues {
	return karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

// launchSideBySide launches the NodeClaims at once, each in its own goroutine, as the
// lifecycle controller's workers do, and returns them as launched.
func launchSideBySide(claims []*karpv1.NodeClaim) []*karpv1.NodeClaim {
	GinkgoHelper()
	launched := make([]*karpv1.NodeClaim, len(claims))
	var wg sync.WaitGroup
	for i, claim := range claims {
		wg.Go(func() {
			defer GinkgoRecover()
			var err error
			launched[i], err = provider.Create(env.Ctx, claim)
			Expect(err).NotTo(HaveOccurred())
		})
	}
	wg.Wait()
	return launched
}

var _ = Describe("Create", func() {
	It("launches the cheapest type and zone that satisfy the NodeClaim, as a signed VM", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a", "karpenter-subnet-b")
		claim := nodeClaim(nodeClass, "3",
			req(kcv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, "m2a"),
			req(karpv1.LabelTopologyZone, corev1.NodeSelectorOpIn, "kr-central-2-b"),
		)
		launched, err := provider.Create(env.Ctx, claim)
		Expect(err).NotTo(HaveOccurred())

		// 3 CPUs need 4 vCPUs: m2a.xlarge is the cheapest m2a with that much allocatable.
		Expect(launched.Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, "m2a.xlarge"))
		Expect(launched.Labels).To(HaveKeyWithValue(karpv1.LabelTopologyZone, "kr-central-2-b"))
		Expect(launched.Labels).To(HaveKeyWithValue(karpv1.LabelCapacityType, karpv1.CapacityTypeOnDemand))
		Expect(launched.Labels).To(HaveKeyWithValue(karpv1.LabelArch, "amd64"))
		Expect(launched.Labels).To(HaveKeyWithValue(kcv1.LabelInstanceCPU, "4"))
		Expect(launched.Labels).To(HaveKeyWithValue(kcv1.LabelNodeClass, nodeClass.Name))
		Expect(launched.Status.ProviderID).To(HavePrefix(kcv1.ProviderIDPrefix))
		Expect(launched.Status.Capacity.Cpu().String()).To(Equal("4"))
		Expect(launched.Status.Allocatable.Cpu().Cmp(resource.MustParse("3"))).To(BeNumerically(">=", 0))
		Expect(launched.Annotations).To(HaveKeyWithValue(kcv1.AnnotationKubernetesVersion, "1.36"))
		Expect(launched.Annotations).To(HaveKeyWithValue(kcv1.AnnotationNodeClassHash, nodeClass.Annotations[kcv1.AnnotationNodeClassHash]))

		vm, err := env.KakaoCloud.GetInstance(env.Ctx, launched.Status.ProviderID[len(kcv1.ProviderIDPrefix):])
		Expect(err).NotTo(HaveOccurred())
		Expect(vm.Name).To(Equal(claim.Name))
		Expect(vm.AvailabilityZone).To(Equal("kr-central-2-b"))
		Expect(vm.SecurityGroups).To(ConsistOf(HaveField("Name", "karpenter-workers")))
		Expect(vm.Image.ID).To(Equal(launched.Status.ImageID))
		keyID, err := env.Keyring.Verify(vm.Description, signing.Subject{VMName: vm.Name, ClusterID: "karpenter-demo", NodeClaim: claim.Name})
		Expect(err).NotTo(HaveOccurred())
		Expect(launched.Labels).To(HaveKeyWithValue(kcv1.LabelSigningKey, keyID), "the NodeClaim names the key its VM is signed with")
		Expect(keyID).To(Equal(env.Keyring.ActiveKeyID()))
	})

	It("chooses by the operators' relative cost overrides", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		prices := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "karpenter-kakaocloud-prices"},
			Data:       map[string]string{"m2a.2xlarge": "1", "m2a.4xlarge": "not a number"},
		}
		Expect(env.Client.Create(env.Ctx, prices)).To(Succeed())
		DeferCleanup(func() { Expect(env.Client.Delete(env.Ctx, prices)).To(Succeed()) })
		launched, err := provider.Create(env.Ctx, nodeClaim(nodeClass, "3", req(kcv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, "m2a")))
		Expect(err).NotTo(HaveOccurred())
		Expect(launched.Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, "m2a.2xlarge"))
	})

	It("records the attempt before creating, and after a lost answer looks for the VM instead of creating another", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := nodeClaim(nodeClass, "1")
		env.Emulator.SetListLag(time.Hour)
		DeferCleanup(func() { env.Emulator.SetListLag(0) })
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Commit: true, Drop: true, Count: 1})
		_, err := provider.Create(env.Ctx, claim)
		Expect(cloudprovider.IsCreatePending(err)).To(BeTrue(), "got %v", err)
		stored := &karpv1.NodeClaim{}
		Expect(env.Client.Get(env.Ctx, client.ObjectKeyFromObject(claim), stored)).To(Succeed())
		Expect(stored.Annotations).To(HaveKey(kcv1.AnnotationLaunchAttempt))

		// Even from a copy without the annotation (a stale cache), no second create is tried.
		_, err = provider.Create(env.Ctx, claim)
		Expect(cloudprovider.IsCreatePending(err)).To(BeTrue(), "got %v", err)
		named := 0
		for _, i := range env.Emulator.Instances() {
			if i.Name == claim.Name {
				named++
			}
		}
		Expect(named).To(Equal(1))

		// Once listed, the VM is adopted.
		env.Emulator.SetListLag(0)
		launched, err := provider.Create(env.Ctx, stored)
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Emulator.Instances()).To(ContainElement(HaveField("ID", strings.TrimPrefix(launched.Status.ProviderID, kcv1.ProviderIDPrefix))))
	})

	It("returns the same VM when asked again for the same NodeClaim", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := nodeClaim(nodeClass, "1")
		first, err := provider.Create(env.Ctx, claim)
		Expect(err).NotTo(HaveOccurred())
		second, err := provider.Create(env.Ctx, claim)
		Expect(err).NotTo(HaveOccurred())
		Expect(second.Status.ProviderID).To(Equal(first.Status.ProviderID))
		named := 0
		for _, i := range env.Emulator.Instances() {
			if i.Name == claim.Name {
				named++
			}
		}
		Expect(named).To(Equal(1))
	})

	It("launches GPU types with the GPU image", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		launched, err := provider.Create(env.Ctx, nodeClaim(nodeClass, "1", req(kcv1.LabelInstanceGPUCount, corev1.NodeSelectorOpExists)))
		Expect(err).NotTo(HaveOccurred())
		Expect(launched.Labels).To(HaveKeyWithValue(kcv1.LabelInstanceGPUName, "t4"))
		Expect(launched.Status.Capacity).To(HaveKey(corev1.ResourceName("nvidia.com/gpu")))
		gpuImage := ""
		for _, img := range nodeClass.Status.Images {
			if img.GPU {
				gpuImage = img.ID
			}
		}
		Expect(launched.Status.ImageID).To(Equal(gpuImage))
	})

	It("spreads a NodePool's NodeClaims over the zones where prices tie, launched side by side, at no higher cost", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a", "karpenter-subnet-b")
		pool := fmt.Sprintf("spread-%d", counter.Add(1))
		// What one zone alone would launch for the same request: the price to match.
		alone, err := provider.Create(env.Ctx, nodeClaimOf(pool, nodeClass, "1", req(karpv1.LabelTopologyZone, corev1.NodeSelectorOpIn, "kr-central-2-a")))
		Expect(err).NotTo(HaveOccurred())

		claims := make([]*karpv1.NodeClaim, 7)
		for i := range claims {
			claims[i] = nodeClaimOf(pool, nodeClass, "1")
		}
		launched := launchSideBySide(claims)
		zones := map[string]int{}
		for _, nodeClaim := range launched {
			zones[nodeClaim.Labels[karpv1.LabelTopologyZone]]++
			Expect(nodeClaim.Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, alone.Labels[karpv1.LabelInstanceType]))
		}
		// Eight NodeClaims with the one pinned to zone a: four in each zone.
		Expect(zones).To(Equal(map[string]int{"kr-central-2-a": 3, "kr-central-2-b": 4}))

		// A pod's own constraint still wins: pinned to the fuller zone, it launches there.
		pinned, err := provider.Create(env.Ctx, nodeClaimOf(pool, nodeClass, "1", req(karpv1.LabelTopologyZone, corev1.NodeSelectorOpIn, "kr-central-2-a")))
		Expect(err).NotTo(HaveOccurred())
		Expect(pinned.Labels).To(HaveKeyWithValue(karpv1.LabelTopologyZone, "kr-central-2-a"))
	})
	It("takes, within a zone, the subnet with the most addresses left, so that launched side by side they fill two small subnets evenly", func() {
		// Eleven VM addresses in each: twelve NodeClaims fit only if both subnets take some.
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a-small-1", "karpenter-subnet-a-small-2")
		Expect(nodeClass.Status.Subnets).To(HaveEach(HaveField("CIDRBlock", HaveSuffix("/28"))))
		pool := fmt.Sprintf("subnets-%d", counter.Add(1))
		claims := make([]*karpv1.NodeClaim, 12)
		for i := range claims {
			claims[i] = nodeClaimOf(pool, nodeClass, "1")
		}
		launched := launchSideBySide(claims)
		bySubnet := map[string]int{}
		for _, nodeClaim := range launched {
			bySubnet[nodeClaim.Annotations[kcv1.AnnotationSubnetID]]++
		}
		Expect(bySubnet).To(Equal(map[string]int{nodeClass.Status.Subnets[0].ID: 6, nodeClass.Status.Subnets[1].ID: 6}))
		for _, nodeClaim := range launched {
			Expect(provider.Delete(env.Ctx, nodeClaim)).To(Succeed())
		}
	})
	It("refuses a zone no subnet of the KCNodeClass is in, and says why", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		_, err := provider.Create(env.Ctx, nodeClaim(nodeClass, "1", req(karpv1.LabelTopologyZone, corev1.NodeSelectorOpIn, "kr-central-2-c")))
		Expect(cloudprovider.IsInsufficientCapacity(err)).To(BeTrue(), "err = %v", err)
		Expect(err.Error()).To(ContainSubstring("have no available offering that meets the requirements in the zones of the KCNodeClass's subnets"))
	})

	It("honours Gte and Lte on the provider's numeric labels", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		launched, err := provider.Create(env.Ctx, nodeClaim(nodeClass, "1",
			req(kcv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, "r2a"),
			req(kcv1.LabelInstanceCPU, karpv1.NodeSelectorOpGte, "8"),
			req(kcv1.LabelInstanceCPU, karpv1.NodeSelectorOpLte, "8"),
		))
		Expect(err).NotTo(HaveOccurred())
		Expect(launched.Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, "r2a.2xlarge"))
	})

	It("refuses a NodeClaim whose KCNodeClass is not ready", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		env.Emulator.SetControlPlane("", "", kakaocloud.ClusterPhaseUpdating)
		DeferCleanup(func() { env.Emulator.SetControlPlane("", "", kakaocloud.ClusterPhaseProvisioned) })
		Eventually(func(g Gomega) {
			g.Expect(env.Client.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
			g.Expect(meta.IsStatusConditionFalse(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)).To(BeTrue())
		}).Should(Succeed())
		_, err := provider.Create(env.Ctx, nodeClaim(nodeClass, "1"))
		Expect(cloudprovider.IsNodeClassNotReady(err)).To(BeTrue(), "err = %v", err)
		Expect(err.Error()).To(ContainSubstring("ControlPlaneUpgrading"))
	})

	It("skips an offering without capacity and avoids it for a while", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Code: "BadRequest", Message: "Insufficient capacity: no valid host", Count: 1})
		claim := nodeClaim(nodeClass, "1", req(kcv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, "c2a"))
		launched, err := provider.Create(env.Ctx, claim)
		Expect(err).NotTo(HaveOccurred())
		Expect(launched.Labels[karpv1.LabelInstanceType]).NotTo(Equal("c2a.large"))
		Expect(unavailable.IsUnavailable("c2a.large", "kr-central-2-a", karpv1.CapacityTypeOnDemand)).To(BeTrue())

		types, err := provider.GetInstanceTypes(env.Ctx, &karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
		}}}})
		Expect(err).NotTo(HaveOccurred())
		for _, it := range types {
			if it.Name == "c2a.large" {
				Expect(it.Offerings).To(ConsistOf(HaveField("Available", false)))
			}
		}
	})
})

var _ = Describe("Delete, Get and List", func() {
	It("deletes a VM it owns and reports a VM gone", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := nodeClaim(nodeClass, "1")
		launched, err := provider.Create(env.Ctx, claim)
		Expect(err).NotTo(HaveOccurred())
		claim.Status.ProviderID = launched.Status.ProviderID

		got, err := provider.Get(env.Ctx, claim.Status.ProviderID)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, launched.Labels[karpv1.LabelInstanceType]))
		listed, err := provider.List(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(listed).To(ContainElement(HaveField("Status.ProviderID", claim.Status.ProviderID)))

		Expect(provider.Delete(env.Ctx, claim)).To(Succeed())
		Eventually(func() bool {
			err := provider.Delete(env.Ctx, claim)
			return cloudprovider.IsNodeClaimNotFound(err)
		}).Should(BeTrue())
		_, err = provider.Get(env.Ctx, claim.Status.ProviderID)
		Expect(cloudprovider.IsNodeClaimNotFound(err)).To(BeTrue())
	})

	// launchedWithDescription launches a NodeClaim's VM and then changes the VM's description,
	// as someone editing it in the console would.
	launchedWithDescription := func(description string) (*karpv1.NodeClaim, string) {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := nodeClaim(nodeClass, "1")
		launched, err := provider.Create(env.Ctx, claim)
		Expect(err).NotTo(HaveOccurred())
		claim.Status.ProviderID = launched.Status.ProviderID
		id := launched.Status.ProviderID[len(kcv1.ProviderIDPrefix):]
		_, err = env.KakaoCloud.UpdateInstance(env.Ctx, id, kakaocloud.UpdateInstance{Description: &description})
		Expect(err).NotTo(HaveOccurred())
		return claim, id
	}
	expectNotDeleting := func(id string) {
		vm, err := env.KakaoCloud.GetInstance(env.Ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(vm.Status).NotTo(Equal(kakaocloud.InstanceStatusDeleting))
	}

	It("never deletes a VM whose description was changed", func() {
		claim, id := launchedWithDescription("renamed by an operator")
		err := provider.Delete(env.Ctx, claim)
		Expect(err).To(MatchError(ContainSubstring("do not prove that this cluster owns it")))
		Expect(env.Recorder.Notes(claim.Name, "InstanceOwnershipUnverified")).To(ContainElement(ContainSubstring("cannot prove it owns it")))
		expectNotDeleting(id)
	})

	It("never deletes a VM signed with a key the keyring no longer holds, and says to put the key back", func() {
		// A marker of this cluster signed with key "gone", which the ring does not hold.
		claim, id := launchedWithDescription("karpenter v1 c=karpenter-demo k=gone s=AAAAAAAAAAAAAAAAAAAAAA")
		Expect(provider.Delete(env.Ctx, claim)).To(MatchError(ContainSubstring("not in the keyring")))
		Expect(env.Recorder.Notes(claim.Name, "InstanceOwnershipUnverified")).To(ContainElement(ContainSubstring("put that key back into the keyring Secret")))
		expectNotDeleting(id)
	})
})

var _ = Describe("IsDrifted", func() {
	launch := func(nodeClass *kcv1.KCNodeClass) *karpv1.NodeClaim {
		claim := nodeClaim(nodeClass, "1")
		launched, err := provider.Create(env.Ctx, claim)
		Expect(err).NotTo(HaveOccurred())
		launched.Spec = claim.Spec
		return launched
	}
	update := func(nodeClass *kcv1.KCNodeClass, mutate func(*kcv1.KCNodeClass)) {
		Eventually(func() error {
			if err := env.Client.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), nodeClass); err != nil {
				return err
			}
			mutate(nodeClass)
			return env.Client.Update(env.Ctx, nodeClass)
		}).Should(Succeed())
	}

	It("is not drifted right after launch", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		Expect(provider.IsDrifted(env.Ctx, launch(nodeClass))).To(BeZero())
	})

	It("drifts when the Kubernetes version changes", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := launch(nodeClass)
		update(nodeClass, func(latest *kcv1.KCNodeClass) { latest.Spec.Bootstrap.KubernetesVersion = "1.35" })
		Expect(provider.IsDrifted(env.Ctx, claim)).To(SatisfyAll(HaveField("Reason", kakao.DriftKubernetesVersion), HaveField("Message", ContainSubstring("now asks for"))))
	})

	It("drifts when the worker image changes", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := launch(nodeClass)
		other := ""
		for _, img := range nodeClass.Status.Images {
			if img.ID != claim.Status.ImageID {
				other = img.ID
			}
		}
		update(nodeClass, func(latest *kcv1.KCNodeClass) { latest.Spec.ImageID = other })
		Eventually(func() (cloudprovider.DriftReason, error) {
			drift, err := provider.IsDrifted(env.Ctx, claim)
			return drift.Reason, err
		}).Should(Equal(kakao.DriftImage))
	})

	It("drifts when the subnets no longer include the VM's", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := launch(nodeClass)
		update(nodeClass, func(latest *kcv1.KCNodeClass) {
			latest.Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-b"}}
		})
		Eventually(func() (cloudprovider.DriftReason, error) {
			drift, err := provider.IsDrifted(env.Ctx, claim)
			return drift.Reason, err
		}).Should(Equal(kakao.DriftSubnet))
	})

	It("drifts when the security groups change", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := launch(nodeClass)
		update(nodeClass, func(latest *kcv1.KCNodeClass) {
			latest.Spec.SecurityGroupSelectorTerms = append(latest.Spec.SecurityGroupSelectorTerms, kcv1.SecurityGroupSelectorTerm{Name: "default"})
		})
		Eventually(func() (cloudprovider.DriftReason, error) {
			drift, err := provider.IsDrifted(env.Ctx, claim)
			return drift.Reason, err
		}).Should(Equal(kakao.DriftSecurityGroup))
	})

	It("answers many NodeClaims from one listing of the VMs, not a get each", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		var claims []*karpv1.NodeClaim
		for range 5 {
			claims = append(claims, launch(nodeClass))
		}
		// Asked again and again while their VMs are too new to be listed, each costs a get
		// at most once.
		gets, lists := env.Emulator.CallCount(emulator.OpGetInstance), 0
		for range 3 {
			for _, claim := range claims {
				Expect(provider.IsDrifted(env.Ctx, claim)).To(BeZero())
			}
		}
		Expect(env.Emulator.CallCount(emulator.OpGetInstance) - gets).To(BeNumerically("<=", len(claims)))
		// The shared listing is at most a few seconds old (this suite runs on the real clock):
		// until one is made after the launches, the new VMs are got one by one.
		Eventually(func() int {
			gets := env.Emulator.CallCount(emulator.OpGetInstance)
			_, _ = provider.IsDrifted(env.Ctx, claims[len(claims)-1])
			return env.Emulator.CallCount(emulator.OpGetInstance) - gets
		}, 10*time.Second, 100*time.Millisecond).Should(BeZero(), "a listing that holds the new VMs")
		gets, lists = env.Emulator.CallCount(emulator.OpGetInstance), env.Emulator.CallCount(emulator.OpListInstances)
		for _, claim := range claims {
			Expect(provider.IsDrifted(env.Ctx, claim)).To(BeZero())
		}
		Expect(env.Emulator.CallCount(emulator.OpGetInstance)-gets).To(BeZero(), "VMs listed need no get")
		Expect(env.Emulator.CallCount(emulator.OpListInstances) - lists).To(BeNumerically("<=", 1))
	})

	It("drifts when a setting fixed at launch changes", func() {
		nodeClass := readyNodeClass("1.36", "karpenter-subnet-a")
		claim := launch(nodeClass)
		update(nodeClass, func(latest *kcv1.KCNodeClass) { latest.Spec.RootVolume.SizeGiB = 100 })
		Eventually(func() (cloudprovider.Drift, error) { return provider.IsDrifted(env.Ctx, claim) }).Should(SatisfyAll(
			HaveField("Reason", kakao.DriftNodeClass), HaveField("Message", ContainSubstring("root volume"))))
	})
})
