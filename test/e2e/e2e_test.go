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
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

var _ = Describe("Provisioning", func() {
	It("scales inflate to 30 one-CPU pods onto just enough new nodes", func() {
		By("applying the README's KCNodeClass and NodePool with kubectl")
		out, err := kubectlApply(readmeManifest("inflate"))
		Expect(err).NotTo(HaveOccurred(), out)
		DeferCleanup(deletePool, "inflate")
		waitPoolReady("inflate")

		By("creating inflate and scaling it to 30")
		createDeployment("inflate", 0, podTemplate("inflate", "1"))
		out, err = kubectl("-n", namespace, "scale", "deployment", "inflate", "--replicas=30")
		Expect(err).NotTo(HaveOccurred(), out)

		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("inflate")(g))).To(Equal(30))
		}).Should(Succeed(), "all 30 pods Running")

		claims := claimsOf("inflate")(Default)
		Expect(claims).NotTo(BeEmpty())
		live := map[string]kakaocloud.Instance{}
		for _, vm := range vms(Default) {
			live[kcv1.ProviderIDPrefix+vm.ID] = vm
		}
		for _, c := range claims {
			for _, condition := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized} {
				Expect(meta.IsStatusConditionTrue(c.Status.Conditions, condition)).To(BeTrue(), "NodeClaim %s %s", c.Name, condition)
			}
			vm, ok := live[c.Status.ProviderID]
			Expect(ok).To(BeTrue(), "NodeClaim %s has a VM (%s)", c.Name, c.Status.ProviderID)
			Expect(vm.Status).To(Equal(kakaocloud.InstanceStatusActive))
			Expect(vm.Flavor.Name).To(Equal(c.Labels[corev1.LabelInstanceTypeStable]))
		}

		nodes := nodesOf("inflate")(Default)
		Expect(nodes).To(HaveLen(len(claims)), "one node per NodeClaim")
		var total, smallest int64
		for i, n := range nodes {
			Expect(ready(n)).To(BeTrue(), "node %s Ready", n.Name)
			Expect(n.Spec.Taints).NotTo(ContainElement(karpv1.UnregisteredNoExecuteTaint), "node %s registered", n.Name)
			cpu := n.Status.Allocatable.Cpu().MilliValue()
			total += cpu
			if i == 0 || cpu < smallest {
				smallest = cpu
			}
		}
		Expect(total).To(BeNumerically(">=", 30000), "the nodes hold 30 CPUs")
		Expect(total-smallest).To(BeNumerically("<", 30000), "just enough nodes: without the smallest, 30 CPUs do not fit")
		fmt.Fprintf(GinkgoWriter, "%d NodeClaims: %v\n", len(claims), instanceTypes(claims))
	})

	It("empties a pool with kubectl delete nodeclaims -l karpenter.sh/nodepool=<name>", func() {
		createPool("emptied", nil)
		By("running 3 pods on the pool's nodes")
		for i := range 3 {
			template := podTemplate("emptied", "1")
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("emptied-%d", i), Namespace: namespace, Labels: template.Labels}, Spec: template.Spec}
			pod.Spec.NodeSelector = map[string]string{karpv1.LabelNodePool: "emptied"}
			Expect(kube.Create(ctx, pod)).To(Succeed())
			DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pod))).To(Succeed()) })
		}
		Eventually(func(g Gomega) int { return running(podsOf("emptied")(g)) }).Should(Equal(3))
		var ids []string
		for _, c := range claimsOf("emptied")(Default) {
			ids = append(ids, c.Status.ProviderID)
		}
		Expect(ids).NotTo(BeEmpty())

		By("kubectl delete nodeclaims -l karpenter.sh/nodepool=emptied")
		out, err := kubectl("delete", "nodeclaims", "-l", karpv1.LabelNodePool+"=emptied")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("deleted"))

		Eventually(claimsOf("emptied")).Should(BeEmpty())
		Eventually(nodesOf("emptied")).Should(BeEmpty())
		Eventually(func(g Gomega) []string {
			var left []string
			for _, id := range vmIDs(g) {
				left = append(left, kcv1.ProviderIDPrefix+id)
			}
			return left
		}).ShouldNot(ContainElements(ids), "the VMs are gone from the emulator")
		Eventually(podsOf("emptied")).Should(BeEmpty(), "the pods were evicted")
	})

	It("removes a node, its VM and its NodeClaim on kubectl delete node, and the pods run elsewhere", func() {
		createPool("deleted-node", func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		template := podTemplate("deleted-node", "1")
		template.Spec.NodeSelector = map[string]string{karpv1.LabelNodePool: "deleted-node"}
		createDeployment("deleted-node", 2, template)
		Eventually(func(g Gomega) int { return running(podsOf("deleted-node")(g)) }).Should(Equal(2))
		victim := podsOf("deleted-node")(Default)[0].Spec.NodeName
		var claim karpv1.NodeClaim
		for _, c := range claimsOf("deleted-node")(Default) {
			if c.Status.NodeName == victim {
				claim = c
			}
		}
		Expect(claim.Name).NotTo(BeEmpty(), "the NodeClaim of node %s", victim)

		By("kubectl delete node " + victim)
		out, err := kubectl("delete", "node", victim, "--wait=false")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func() error { return kube.Get(ctx, client.ObjectKey{Name: victim}, &corev1.Node{}) }).ShouldNot(Succeed(), "the node is gone")
		Eventually(func() error { return kube.Get(ctx, client.ObjectKey{Name: claim.Name}, &karpv1.NodeClaim{}) }).ShouldNot(Succeed(), "its NodeClaim is gone")
		Eventually(vmIDs).ShouldNot(ContainElement(strings.TrimPrefix(claim.Status.ProviderID, kcv1.ProviderIDPrefix)), "its VM is gone")
		// The emulator names nodes after their VM's address, which a new VM may get again: the
		// deleted node is told by its VM.
		Eventually(func(g Gomega) {
			pods := podsOf("deleted-node")(g)
			g.Expect(running(pods)).To(Equal(2))
			for _, p := range pods {
				node := &corev1.Node{}
				g.Expect(kube.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, node)).To(Succeed())
				g.Expect(node.Spec.ProviderID).NotTo(Equal(claim.Status.ProviderID))
			}
		}).Should(Succeed(), "both pods run, none on the deleted node's VM")
	})

	It("replaces NodeClaims whose VMs go to error for lack of capacity, and the pods run without anyone touching them", func() {
		createPool("no-capacity", func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		By("making KakaoCloud put the next 2 VMs in error: no valid host")
		emulatorAdmin("POST", "/fail-instances", map[string]any{"count": 2, "message": emulator.NoValidHostMessage})
		template := podTemplate("no-capacity", "1")
		template.Spec.NodeSelector = map[string]string{karpv1.LabelNodePool: "no-capacity"}
		start := time.Now()
		createDeployment("no-capacity", 3, template)

		Eventually(func(g Gomega) int {
			n := 0
			list := &eventsv1.EventList{}
			g.Expect(kube.List(ctx, list)).To(Succeed())
			for _, e := range list.Items {
				if e.Reason == "InsufficientCapacityError" && strings.Contains(e.Note, "No valid host") {
					n++
				}
			}
			return n
		}).Should(BeNumerically(">=", 2), "both failed VMs are reported")
		Eventually(func(g Gomega) int { return running(podsOf("no-capacity")(g)) }, 90*time.Second).Should(Equal(3), "all pods Running within 90 s")
		fmt.Fprintf(GinkgoWriter, "all 3 pods Running %.1f s after the deployment was created, through 2 VMs in error\n", time.Since(start).Seconds())
		Eventually(func(g Gomega) []string {
			var errored []string
			for _, vm := range vms(g) {
				if vm.Status == kakaocloud.InstanceStatusError {
					errored = append(errored, vm.ID)
				}
			}
			return errored
		}).Should(BeEmpty(), "the VMs in error are deleted")
	})

	It("launches exactly one VM per NodeClaim when create answers are lost and listings lag, and the pods run", func() {
		createPool("lost-answers", func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		By("making KakaoCloud list new VMs 20 s late and lose the answers of the next 2 creates it carries out")
		emulatorAdmin("POST", "/list-lag", map[string]any{"lag": "20s"})
		emulatorAdmin("POST", "/faults", map[string]any{"operation": emulator.OpCreateInstance, "count": 2, "commit": true, "drop": true})
		DeferCleanup(func() {
			emulatorAdmin("DELETE", "/faults", nil)
			emulatorAdmin("POST", "/list-lag", map[string]any{"lag": "0s"})
		})
		template := podTemplate("lost-answers", "1")
		template.Spec.NodeSelector = map[string]string{karpv1.LabelNodePool: "lost-answers"}
		start := time.Now()
		createDeployment("lost-answers", 3, template)

		Eventually(func(g Gomega) int { return running(podsOf("lost-answers")(g)) }, 3*time.Minute).Should(Equal(3), "all pods Running")
		fmt.Fprintf(GinkgoWriter, "all 3 pods Running %.1f s after the deployment was created, through 2 lost create answers\n", time.Since(start).Seconds())
		Eventually(func(g Gomega) {
			claims := &karpv1.NodeClaimList{}
			g.Expect(kube.List(ctx, claims, client.MatchingLabels{karpv1.LabelNodePool: "lost-answers"})).To(Succeed())
			perName := map[string]int{}
			for _, vm := range vms(g) {
				if vm.Status != kakaocloud.InstanceStatusDeleting {
					perName[vm.Name]++
				}
			}
			for _, claim := range claims.Items {
				g.Expect(perName[claim.Name]).To(Equal(1), "NodeClaim %s has exactly one VM", claim.Name)
			}
		}).Should(Succeed())
	})

	It("runs a pod that requests exactly the allocatable the model computes on the node launched for it, and the node reports that allocatable", func() {
		kubelet := &kcv1.KubeletConfiguration{
			MaxPods:        ptr.To[int32](58),
			SystemReserved: map[string]string{"memory": "300Mi"},
			EvictionHard:   map[string]string{"memory.available": "5%"},
		}
		createPoolOf("exact", func(c *kcv1.KCNodeClass) { c.Spec.Kubelet = kubelet }, func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{
				requirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, "m2a.large"),
			}
		})
		nodeClass := &kcv1.KCNodeClass{}
		Expect(kube.Get(ctx, client.ObjectKey{Name: "exact"}, nodeClass)).To(Succeed())
		types, err := instancetype.NewProvider(staticFlavors(emulator.DefaultCatalog().Flavors), nil, nil).List(ctx, nodeClass)
		Expect(err).NotTo(HaveOccurred())
		var allocatable corev1.ResourceList
		for _, it := range types {
			if it.Name == "m2a.large" {
				allocatable = it.Allocatable()
			}
		}
		Expect(allocatable).NotTo(BeNil())
		By(fmt.Sprintf("running one pod that requests all of m2a.large's allocatable: %v", allocatable))

		template := podTemplate("exact", "1")
		template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
			corev1.ResourceCPU:              allocatable[corev1.ResourceCPU],
			corev1.ResourceMemory:           allocatable[corev1.ResourceMemory],
			corev1.ResourceEphemeralStorage: allocatable[corev1.ResourceEphemeralStorage],
		}
		createDeployment("exact", 1, template)
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("exact")(g))).To(Equal(1))
		}).Should(Succeed())

		nodes := nodesOf("exact")(Default)
		Expect(nodes).To(HaveLen(1))
		Expect(podsOf("exact")(Default)[0].Spec.NodeName).To(Equal(nodes[0].Name))
		for name, want := range allocatable {
			got := nodes[0].Status.Allocatable[name]
			Expect(got.Cmp(want)).To(BeZero(), "node %s allocatable %s: %s, the model's %s", nodes[0].Name, name, got.String(), want.String())
		}
	})

	It("deletes each bootstrap token once its node registers, and with its NodeClaim: none outlives its use through a scale-up, a replacement and a scale-down", func() {
		createPool("tokens", nil)
		By("scaling up to 3 one-CPU pods")
		d := createDeployment("tokens", 3, poolPod("tokens", "tokens", "1"))
		Eventually(func(g Gomega) int { return running(podsOf("tokens")(g)) }).Should(Equal(3))
		Eventually(spentTokens).Should(BeEmpty())

		By("deleting a NodeClaim: its pods go to a replacement")
		claims := claimsOf("tokens")(Default)
		Expect(claims).NotTo(BeEmpty())
		Expect(kube.Delete(ctx, &claims[0])).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("tokens")(g))).To(Equal(3))
			for _, c := range claimsOf("tokens")(g) {
				g.Expect(c.UID).NotTo(Equal(claims[0].UID))
			}
		}).Should(Succeed())
		Eventually(spentTokens).Should(BeEmpty())

		By("scaling down to 0 and emptying the pool")
		update(d, func(d *appsv1.Deployment) { d.Spec.Replicas = new(int32(0)) })
		Eventually(podsOf("tokens")).Should(BeEmpty())
		out, err := kubectl("delete", "nodeclaims", "-l", karpv1.LabelNodePool+"=tokens")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(claimsOf("tokens")).Should(BeEmpty())
		Eventually(spentTokens).Should(BeEmpty())
	})

	It("launches nothing from a NodePool with limits.cpu 0, and says so on the pod", func() {
		createPool("frozen", func(p *karpv1.NodePool) {
			p.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("0")}
		})
		pod := createPoolPod("frozen", "frozen", "1")

		Eventually(eventNotes("frozen", "FailedScheduling")).Should(ContainElement(ContainSubstring("nodepool frozen: would exceed limits cpu")))
		Consistently(claimsOf("frozen")).Should(BeEmpty())
		Expect(vms(Default)).To(BeEmpty())
		Expect(kube.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		Expect(pod.Spec.NodeName).To(BeEmpty())
	})

	It("puts the template's labels and taints on the nodes, and only tolerating pods there", func() {
		taint := corev1.Taint{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}
		createPool("checkout", func(p *karpv1.NodePool) {
			p.Spec.Template.Labels = map[string]string{"team": "checkout"}
			p.Spec.Template.Spec.Taints = []corev1.Taint{taint}
		})
		createPool("general", nil)
		By("running 4 pods that tolerate the taint and select team=checkout, and 4 that do not tolerate it")

		checkout := podTemplate("checkout", "1")
		checkout.Spec.NodeSelector = map[string]string{"team": "checkout"}
		checkout.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}}
		createDeployment("checkout", 4, checkout)
		createDeployment("web", 4, podTemplate("web", "1"))
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("checkout")(g))).To(Equal(4))
			g.Expect(running(podsOf("web")(g))).To(Equal(4))
		}).Should(Succeed())

		checkoutNodes := map[string]bool{}
		for _, n := range nodesOf("checkout")(Default) {
			checkoutNodes[n.Name] = true
			Expect(n.Labels).To(HaveKeyWithValue("team", "checkout"), "node %s", n.Name)
			Expect(n.Spec.Taints).To(ContainElement(taint), "node %s", n.Name)
		}
		Expect(checkoutNodes).NotTo(BeEmpty())
		for _, n := range nodesOf("general")(Default) {
			Expect(n.Labels).NotTo(HaveKey("team"), "node %s", n.Name)
			Expect(n.Spec.Taints).NotTo(ContainElement(taint), "node %s", n.Name)
		}
		for _, p := range podsOf("checkout")(Default) {
			Expect(checkoutNodes).To(HaveKey(p.Spec.NodeName), "checkout pod %s runs on a checkout node", p.Name)
		}
		for _, p := range podsOf("web")(Default) {
			Expect(checkoutNodes).NotTo(HaveKey(p.Spec.NodeName), "web pod %s does not tolerate the taint", p.Name)
		}
	})
})

var _ = Describe("KCNodeClass webhook", func() {
	It("refuses a Kubernetes version Kubernetes Engine deprecated, on create and on change", func() {
		manifest := `apiVersion: karpenter.kakaocloud.com/v1
kind: KCNodeClass
metadata:
  name: deprecated
spec:
  bootstrap:
    kubernetesVersion: "1.33"
  subnetSelectorTerms:
  - name: karpenter-subnet-a
  securityGroupSelectorTerms:
  - name: karpenter-workers
`
		By("kubectl apply of a KCNodeClass on 1.33")
		out, err := kubectlApply(manifest)
		Expect(err).To(HaveOccurred(), out)
		Expect(out).To(MatchRegexp(`spec.bootstrap.kubernetesVersion: Invalid value: "1.33": Kubernetes Engine does not offer Kubernetes 1.33 \(deprecated or unknown\); allowed versions: (1.36, 1.35|1.35, 1.36)`))
		Expect(kube.Get(ctx, client.ObjectKey{Name: "deprecated"}, &kcv1.KCNodeClass{})).NotTo(Succeed())

		nodeClass := &kcv1.KCNodeClass{
			ObjectMeta: metav1.ObjectMeta{Name: "versioned"},
			Spec: kcv1.KCNodeClassSpec{
				Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
				SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
				SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
			},
		}
		By("changing a KCNodeClass on 1.36 to 1.33, then to 1.35")
		Expect(kube.Create(ctx, nodeClass)).To(Succeed())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(kube.Delete(ctx, nodeClass))).To(Succeed())
			Eventually(func() error { return kube.Get(ctx, client.ObjectKeyFromObject(nodeClass), &kcv1.KCNodeClass{}) }).ShouldNot(Succeed())
		})
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.33"
			err := kube.Update(ctx, nodeClass)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring("Kubernetes Engine does not offer Kubernetes 1.33"))
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.35"
			g.Expect(kube.Update(ctx, nodeClass)).To(Succeed(), "one minor below the control plane is allowed")
		}).Should(Succeed())
	})
})

func instanceTypes(claims []karpv1.NodeClaim) []string {
	var names []string
	for _, c := range claims {
		names = append(names, c.Labels[corev1.LabelInstanceTypeStable])
	}
	return names
}

type staticFlavors []kakaocloud.Flavor

func (f staticFlavors) Flavors(context.Context) ([]kakaocloud.Flavor, error) { return f, nil }

// spentTokens lists the bootstrap token Secrets the operator minted whose NodeClaim's node has
// registered, or whose NodeClaim is gone: none should be left once the operator and the
// garbage collector have acted.
func spentTokens(g Gomega) []string {
	secrets := &corev1.SecretList{}
	g.Expect(kube.List(ctx, secrets, client.InNamespace(metav1.NamespaceSystem), client.HasLabels{bootstrap.LabelNodeClaimUID})).To(Succeed())
	claims := &karpv1.NodeClaimList{}
	g.Expect(kube.List(ctx, claims)).To(Succeed())
	registered := map[string]bool{}
	for _, c := range claims.Items {
		registered[string(c.UID)] = meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeRegistered)
	}
	var spent []string
	for _, s := range secrets.Items {
		switch isRegistered, exists := registered[s.Labels[bootstrap.LabelNodeClaimUID]]; {
		case !exists:
			spent = append(spent, s.Name+" of NodeClaim "+s.Labels[bootstrap.LabelNodeClaim]+", which is gone")
		case isRegistered:
			spent = append(spent, s.Name+" of NodeClaim "+s.Labels[bootstrap.LabelNodeClaim]+", whose node registered")
		}
	}
	return spent
}
