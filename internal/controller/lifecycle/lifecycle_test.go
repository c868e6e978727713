/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package lifecycle_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaimgc"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

var counter atomic.Int64

func readyNodeClass() *kcv1.KCNodeClass {
	nc := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("nodeclass-%d", counter.Add(1))},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
			RootVolume:                 kcv1.RootVolume{SizeGiB: 50},
		},
	}
	ExpectWithOffset(1, k8sClient.Create(ctx, nc)).To(Succeed())
	EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(nc), nc)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(nc.Status.Conditions, kcv1.ConditionTypeReady)).To(BeTrue())
	}).Should(Succeed())
	return nc
}

func newNodeClaim(nodeClass *kcv1.KCNodeClass, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodeClaim {
	nc := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("checkout-%05d", counter.Add(1)),
			Labels: map[string]string{karpv1.LabelNodePool: "checkout", "team": "checkout"},
		},
		Spec: karpv1.NodeClaimSpec{
			Taints:       []corev1.Taint{{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}},
			Requirements: append([]karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{"checkout"}}}, reqs...),
			Resources:    karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
		},
	}
	ExpectWithOffset(1, k8sClient.Create(ctx, nc)).To(Succeed())
	return nc
}

func get(nc *karpv1.NodeClaim) func(Gomega) *karpv1.NodeClaim {
	return func(g Gomega) *karpv1.NodeClaim {
		current := &karpv1.NodeClaim{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(nc), current)).To(Succeed())
		return current
	}
}

// counterTotal sums every series of a counter in the manager's registry.
func counterTotal(name string) float64 {
	families, err := crmetrics.Registry.Gather()
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	total := 0.0
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func conditionTrue(t string) OmegaMatcher {
	return WithTransform(func(nc *karpv1.NodeClaim) bool { return meta.IsStatusConditionTrue(nc.Status.Conditions, t) }, BeTrue())
}

// registerNode does what a kubelet does for the VM: a Node with the provider id, labels from
// its flags and the unregistered taint.
func registerNode(nc *karpv1.NodeClaim) *corev1.Node {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-" + nc.Name, Labels: map[string]string{corev1.LabelHostname: "node-" + nc.Name}},
		Spec: corev1.NodeSpec{
			ProviderID: nc.Status.ProviderID,
			Taints:     []corev1.Taint{karpv1.UnregisteredNoExecuteTaint, {Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	ExpectWithOffset(1, k8sClient.Create(ctx, node)).To(Succeed())
	return node
}

// markNodeReady does what the kubelet and node lifecycle controller do once the node is up.
func markNodeReady(node *corev1.Node) {
	EventuallyWithOffset(1, func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
			return err
		}
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		node.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourcePods: resource.MustParse("110")}
		if err := k8sClient.Status().Update(ctx, node); err != nil {
			return err
		}
		var kept []corev1.Taint
		for _, t := range node.Spec.Taints {
			if t.Key != corev1.TaintNodeNotReady {
				kept = append(kept, t)
			}
		}
		node.Spec.Taints = kept
		return k8sClient.Update(ctx, node)
	}).Should(Succeed())
}

func eventNotes(name, reason string) func(Gomega) []string {
	return func(g Gomega) []string {
		list := &eventsv1.EventList{}
		g.Expect(k8sClient.List(ctx, list)).To(Succeed())
		var notes []string
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Reason == reason {
				notes = append(notes, e.Note)
			}
		}
		return notes
	}
}

func vmStatus(providerID string) func() string {
	return func() string {
		for _, i := range emu.Instances() {
			if kcv1.ProviderIDPrefix+i.ID == providerID {
				return i.Status
			}
		}
		return "gone"
	}
}

// vmsNamed counts the emulator's VMs of that name (a NodeClaim's VM bears its name).
func vmsNamed(name string) func() int {
	return func() int {
		n := 0
		for _, i := range emu.Instances() {
			if i.Name == name {
				n++
			}
		}
		return n
	}
}

// isGone reports, each time it is called, whether the object (read into into) is gone from the
// API server.
func isGone(obj, into client.Object) func() bool {
	return func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), into)) }
}

// initializedNodeClaim launches a NodeClaim, registers a node for it and makes it Ready, and
// returns both once the NodeClaim is initialized.
func initializedNodeClaim() (*karpv1.NodeClaim, *corev1.Node) {
	GinkgoHelper()
	claim := newNodeClaim(readyNodeClass())
	Eventually(get(claim)).Should(conditionTrue(karpv1.ConditionTypeLaunched))
	claim = get(claim)(Default)
	node := registerNode(claim)
	markNodeReady(node)
	Eventually(get(claim)).Should(conditionTrue(karpv1.ConditionTypeInitialized))
	return claim, node
}

var _ = Describe("NodeClaim lifecycle", func() {
	It("launches, registers, initializes, then drains and deletes respecting a PodDisruptionBudget", func() {
		nodeClass := readyNodeClass()
		claim := newNodeClaim(nodeClass)

		By("launching the VM")
		Eventually(get(claim)).Should(SatisfyAll(
			conditionTrue(karpv1.ConditionTypeLaunched),
			HaveField("Status.ProviderID", HavePrefix(kcv1.ProviderIDPrefix)),
			HaveField("Labels", HaveKeyWithValue(karpv1.LabelInstanceType, Not(BeEmpty()))),
			HaveField("Labels", HaveKeyWithValue("team", "checkout")),
			HaveField("Finalizers", ContainElement(karpv1.TerminationFinalizer)),
		))
		claim = get(claim)(Default)
		Expect(vmStatus(claim.Status.ProviderID)()).To(Equal(kakaocloud.InstanceStatusActive))

		By("registering the node a kubelet created")
		node := registerNode(claim)
		Eventually(get(claim)).Should(SatisfyAll(conditionTrue(karpv1.ConditionTypeRegistered), HaveField("Status.NodeName", node.Name)))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(node), node)).To(Succeed())
			g.Expect(node.Labels).To(HaveKeyWithValue("team", "checkout"))
			g.Expect(node.Labels).To(HaveKeyWithValue(karpv1.LabelNodePool, "checkout"))
			g.Expect(node.Labels).To(HaveKeyWithValue(karpv1.LabelRegistered, "true"))
			g.Expect(node.Spec.Taints).To(ContainElement(HaveField("Key", "dedicated")))
			g.Expect(node.Spec.Taints).NotTo(ContainElement(HaveField("Key", karpv1.UnregisteredNoExecuteTaint.Key)))
			g.Expect(node.Finalizers).To(ContainElement(karpv1.TerminationFinalizer))
		}).Should(Succeed())
		Consistently(get(claim), "500ms").ShouldNot(conditionTrue(karpv1.ConditionTypeInitialized))

		By("initializing once the node is Ready")
		markNodeReady(node)
		Eventually(get(claim)).Should(SatisfyAll(conditionTrue(karpv1.ConditionTypeInitialized), conditionTrue(karpv1.ConditionTypeReady)))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(node), node)).To(Succeed())
		Expect(node.Labels).To(HaveKeyWithValue(karpv1.LabelInitialized, "true"))

		By("holding the drain while a PodDisruptionBudget allows no eviction")
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "checkout-" + claim.Name, Namespace: "default", Labels: map[string]string{"app": claim.Name}},
			Spec: corev1.PodSpec{
				NodeName: node.Name, TerminationGracePeriodSeconds: ptr.To[int64](0),
				Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}},
				Containers:  []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
			},
		}
		Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: claim.Name, Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: ptr.To(intstr.FromInt32(1)),
				Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": claim.Name}},
			},
		}
		Expect(k8sClient.Create(ctx, pdb)).To(Succeed())
		// Without a disruption controller in envtest, write the PDB status it would write.
		Eventually(func() error {
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(pdb), pdb); err != nil {
				return err
			}
			pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1, DisruptionsAllowed: 0}
			return k8sClient.Status().Update(ctx, pdb)
		}).Should(Succeed())

		Expect(k8sClient.Delete(ctx, claim)).To(Succeed())
		Eventually(eventNotes(claim.Name, "Draining")).Should(ContainElement(ContainSubstring("a PodDisruptionBudget does not allow it yet")))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(node), node)).To(Succeed())
			g.Expect(node.Spec.Taints).To(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)))
		}).Should(Succeed())
		Consistently(vmStatus(claim.Status.ProviderID), "1s").Should(Equal(kakaocloud.InstanceStatusActive))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())

		By("evicting, deleting the VM, the node and the NodeClaim once the budget allows it")
		terminatedBefore := counterTotal("karpenter_nodeclaims_terminated_total")
		Expect(k8sClient.Delete(ctx, pdb)).To(Succeed())
		Eventually(isGone(pod, &corev1.Pod{})).Should(BeTrue())
		Eventually(vmStatus(claim.Status.ProviderID)).Should(Equal("gone"))
		Eventually(isGone(node, &corev1.Node{})).Should(BeTrue())
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue())
		// Passes on stale copies after the NodeClaim is gone must not count it again.
		Consistently(func() float64 { return counterTotal("karpenter_nodeclaims_terminated_total") - terminatedBefore }, "2s").Should(Equal(1.0))
	})

	It("deletes the NodeClaim, drains the node and deletes its VM when the node is deleted (kubectl delete node)", func() {
		claim, node := initializedNodeClaim()

		Expect(k8sClient.Delete(ctx, node)).To(Succeed())
		Eventually(eventNotes(claim.Name, "NodeDeleted")).Should(ContainElement(ContainSubstring("its node " + node.Name + " is being deleted")))
		Eventually(vmStatus(claim.Status.ProviderID)).Should(Equal("gone"))
		Eventually(isGone(node, &corev1.Node{})).Should(BeTrue(), "the node's finalizer is removed once its VM is gone")
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue())
	})

	It("deletes a NodeClaim at once when KakaoCloud puts its VM in error for lack of capacity, and says so", func() {
		nodeClass := readyNodeClass()
		emu.FailNextInstances(1, emulator.NoValidHostMessage)
		claim := newNodeClaim(nodeClass)
		Eventually(eventNotes(claim.Name, "InsufficientCapacity")).Should(ContainElement(SatisfyAll(
			ContainSubstring("went to error"), ContainSubstring("No valid host was found"))))
		Eventually(vmsNamed(claim.Name)).Should(BeZero(), "its VM is deleted")
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue(), "deleted well before the registration timeout")
	})

	It("deletes a NodeClaim whose VM goes to error for another reason, with the action log's message", func() {
		nodeClass := readyNodeClass()
		emu.FailNextInstances(1, "Build of instance aborted: image checksum mismatch")
		claim := newNodeClaim(nodeClass)
		Eventually(eventNotes(claim.Name, "LaunchFailed")).Should(ContainElement(ContainSubstring("image checksum mismatch")))
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue())
	})

	It("garbage collects a registered NodeClaim whose VM is gone, once past the grace period, and not before", func() {
		nodeClass := readyNodeClass()
		claim := newNodeClaim(nodeClass)
		Eventually(get(claim)).Should(conditionTrue(karpv1.ConditionTypeLaunched))
		claim = get(claim)(Default)
		registerNode(claim) // never Ready: its kubelet went with the VM
		Eventually(get(claim)).Should(conditionTrue(karpv1.ConditionTypeRegistered))

		By("deleting the VM behind Karpenter's back, as in the console")
		Expect(kc.DeleteInstance(ctx, strings.TrimPrefix(claim.Status.ProviderID, kcv1.ProviderIDPrefix))).To(Succeed())
		Eventually(vmStatus(claim.Status.ProviderID)).Should(Equal("gone"))

		collector := &nodeclaimgc.Collector{Client: k8sClient, CloudProvider: cloudProvider, Recorder: recorder}
		deleted, err := collector.Collect(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(BeEmpty(), "registered less than the grace period ago")

		collector.Clock = clocktesting.NewFakePassiveClock(time.Now().Add(nodeclaimgc.DefaultGrace + time.Second))
		deleted, err = collector.Collect(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(ConsistOf(claim.Name))
		Eventually(eventNotes(claim.Name, nodeclaimgc.EventInstanceGone)).Should(ContainElement(ContainSubstring("is gone from KakaoCloud")))
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue())
	})

	It("drains around pods that tolerate the disrupted taint, and holds a do-not-disrupt pod until it goes", func() {
		claim, node := initializedNodeClaim()
		running := func(name string, mutate func(*corev1.Pod)) *corev1.Pod {
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
				Spec: corev1.PodSpec{NodeName: node.Name, TerminationGracePeriodSeconds: ptr.To[int64](0),
					Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}},
					Containers:  []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			}
			mutate(pod)
			Expect(k8sClient.Create(ctx, pod)).To(Succeed())
			return pod
		}
		tolerant := running("tolerant-"+claim.Name, func(p *corev1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: karpv1.DisruptedNoScheduleTaint.Key, Operator: corev1.TolerationOpExists})
		})
		held := running("held-"+claim.Name, func(p *corev1.Pod) {
			p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
		})

		Expect(k8sClient.Delete(ctx, claim)).To(Succeed())
		Eventually(eventNotes(claim.Name, "Draining")).Should(ContainElement(SatisfyAll(
			ContainSubstring("default/"+held.Name), ContainSubstring(karpv1.DoNotDisruptAnnotationKey))))
		Consistently(vmStatus(claim.Status.ProviderID), "1s").Should(Equal(kakaocloud.InstanceStatusActive), "held while the do-not-disrupt pod runs")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(held), held)).To(Succeed(), "not evicted")

		By("the do-not-disrupt pod going by itself")
		Expect(k8sClient.Delete(ctx, held, client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(vmStatus(claim.Status.ProviderID)).Should(Equal("gone"))
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue())
		got := &corev1.Pod{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(tolerant), got)).To(Succeed(), "the pod tolerating the disrupted taint was not evicted")
		Expect(got.DeletionTimestamp).To(BeNil())
		Expect(k8sClient.Delete(ctx, got, client.GracePeriodSeconds(0))).To(Succeed())
	})

	It("deletes a NodeClaim that no instance type can satisfy, and says why", func() {
		nodeClass := readyNodeClass()
		claim := newNodeClaim(nodeClass, karpv1.NodeSelectorRequirementWithMinValues{
			Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-c"},
		})
		Eventually(eventNotes(claim.Name, "InsufficientCapacity")).Should(ContainElement(ContainSubstring("no available offering")))
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue())
	})

	It("deletes a NodeClaim and its VM when the node never registers", func() {
		nodeClass := readyNodeClass()
		claim := newNodeClaim(nodeClass)
		Eventually(get(claim)).Should(conditionTrue(karpv1.ConditionTypeLaunched))
		providerID := get(claim)(Default).Status.ProviderID
		Eventually(eventNotes(claim.Name, "NotLive")).Should(ContainElement(ContainSubstring("it was not registered within 3s")))
		Eventually(vmStatus(providerID)).Should(Equal("gone"))
		Eventually(isGone(claim, &karpv1.NodeClaim{})).Should(BeTrue())
	})
})
