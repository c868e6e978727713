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
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

// runningOn creates a Running, Ready pod on the node.
func runningOn(node *corev1.Node, opts ...func(*corev1.Pod)) *corev1.Pod {
	GinkgoHelper()
	pod := test.Pod(append([]func(*corev1.Pod){test.OnNode(node), test.GracePeriod(30)}, opts...)...)
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	ExpectApplied(env.Ctx, env.Client, pod)
	return ExpectExists(env.Ctx, env.Client, pod)
}

// deleting reports whether the pod is being deleted (or gone), as the API server has it.
func deleting(pod *corev1.Pod) bool {
	GinkgoHelper()
	current := &corev1.Pod{}
	if err := env.Client.Get(env.Ctx, client.ObjectKeyFromObject(pod), current); err != nil {
		return client.IgnoreNotFound(err) == nil
	}
	return !current.DeletionTimestamp.IsZero()
}

// terminationGracePeriod gives the NodeClaim a terminationGracePeriod.
func terminationGracePeriod(d time.Duration) func(*karpv1.NodeClaim) {
	return func(nodeClaim *karpv1.NodeClaim) {
		nodeClaim.Spec.TerminationGracePeriod = &metav1.Duration{Duration: d}
	}
}

// blockingBudget is a PodDisruptionBudget over the pods with the labels that allows no
// eviction, with the status the disruption controller would write.
func blockingBudget(labels map[string]string) *policyv1.PodDisruptionBudget {
	GinkgoHelper()
	pdb := test.PodDisruptionBudget(labels, 0)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1, DisruptionsAllowed: 0}
	ExpectApplied(env.Ctx, env.Client, pdb)
	return ExpectExists(env.Ctx, env.Client, pdb)
}

// withClaim mounts a PersistentVolumeClaim bound to the persistent volume.
func withClaim(claim, volume string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: p.Namespace},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				VolumeName:  volume,
			},
		}
		ExpectApplied(env.Ctx, env.Client, pvc)
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
		}})
	}
}

// attached is the VolumeAttachment the attach/detach controller makes for a volume on a node.
func attached(node *corev1.Node, volume string) *storagev1.VolumeAttachment {
	GinkgoHelper()
	attachment := &storagev1.VolumeAttachment{
		ObjectMeta: metav1.ObjectMeta{Name: "attach-" + volume},
		Spec: storagev1.VolumeAttachmentSpec{
			Attacher: "block.csi.kakaocloud.com", NodeName: node.Name,
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &volume},
		},
	}
	ExpectApplied(env.Ctx, env.Client, attachment)
	DeferCleanup(func() { Expect(client.IgnoreNotFound(env.Client.Delete(env.Ctx, attachment))).To(Succeed()) })
	return attachment
}

var _ = Describe("Termination", func() {
	It("taints the node and takes it out of load balancers before anything else", func() {
		nodeClaim, node := initializedNodeClaim()
		runningOn(node)
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		node = ExpectExists(env.Ctx, env.Client, node)
		Expect(node.Spec.Taints).To(ContainElement(karpv1.DisruptedNoScheduleTaint))
		Expect(node.Labels).To(HaveKeyWithValue(corev1.LabelNodeExcludeBalancers, "karpenter"))
	})

	It("evicts in graceful shutdown's order: non-critical, non-critical DaemonSet, critical, critical DaemonSet", func() {
		nodeClaim, node := initializedNodeClaim()
		critical := func(p *corev1.Pod) { p.Spec.PriorityClassName = "system-cluster-critical" }
		daemon := test.OwnedBy("apps/v1", "DaemonSet", "agent")
		tiers := []*corev1.Pod{
			runningOn(node),
			runningOn(node, daemon),
			runningOn(node, critical),
			runningOn(node, critical, daemon),
		}
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		for i, pod := range tiers {
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(deleting(pod)).To(BeTrue(), "tier %d is evicted", i)
			for _, later := range tiers[i+1:] {
				Expect(deleting(later)).To(BeFalse(), "later tiers wait for tier %d to go", i)
			}
			ExpectReconciled(env.Ctx, nodeClaims, nodeClaim) // still terminating: the next tier waits
			if i+1 < len(tiers) {
				Expect(deleting(tiers[i+1])).To(BeFalse())
			}
			ExpectEvent(env.Recorder, pod.Name, lifecycle.ReasonEvicted, "Evicted pod: Forceful Termination")
			kubeletStops(pod)
		}
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting), "drained: the VM goes")
	})

	It("leaves static pods, pods that tolerate the disrupted taint and finished pods", func() {
		nodeClaim, node := initializedNodeClaim()
		static := runningOn(node, test.OwnedBy("v1", "Node", node.Name), test.Annotated(corev1.MirrorPodAnnotationKey, "checksum"))
		tolerant := runningOn(node, func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: karpv1.DisruptedNoScheduleTaint.Key, Operator: corev1.TolerationOpExists}}
		})
		finished := runningOn(node)
		finished.Status.Phase = corev1.PodSucceeded
		ExpectApplied(env.Ctx, env.Client, finished)

		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		for _, pod := range []*corev1.Pod{static, tolerant, finished} {
			Expect(deleting(pod)).To(BeFalse(), "%s is left to go with the node", pod.Name)
		}
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting))
	})

	It("holds a do-not-disrupt pod until the terminationGracePeriod deadline, then deletes it with the time left", func() {
		nodeClaim, node := initializedNodeClaim(terminationGracePeriod(time.Minute))
		held := runningOn(node, test.Annotated(karpv1.DoNotDisruptAnnotationKey, "true"))
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(held)).To(BeFalse())
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonDraining, karpv1.DoNotDisruptAnnotationKey)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonTerminationGracePeriodExpiring, "All pods will be deleted by")
		ExpectEvent(env.Recorder, node.Name, lifecycle.ReasonTerminationGracePeriodExpiring, "All pods will be deleted by")
		Expect(ExpectExists(env.Ctx, env.Client, nodeClaim).Annotations).To(HaveKey(karpv1.NodeClaimTerminationTimestampAnnotationKey))

		env.Step(20 * time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(held)).To(BeFalse(), "its 30 s grace still fits before the deadline")

		env.Step(15 * time.Second) // 35 s in: 25 s left, less than its grace period
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		deleted := &corev1.Pod{}
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(held), deleted)).To(Succeed())
		Expect(deleted.DeletionTimestamp).NotTo(BeNil())
		Expect(*deleted.DeletionGracePeriodSeconds).To(BeNumerically("~", 25, 2), "granted what is left until the deadline")
		ExpectEvent(env.Recorder, held.Name, lifecycle.ReasonDisrupted, "bypasses the PDB of the pod and the do-not-disrupt annotation")
	})

	It("holds a pod whose do-not-disrupt duration is not over and evicts one whose is; a value that is no duration holds", func() {
		nodeClaim, node := initializedNodeClaim()
		startedAgo := func(d time.Duration) func(*corev1.Pod) {
			return func(p *corev1.Pod) { p.Status.StartTime = &metav1.Time{Time: env.Clock.Now().Add(-d)} }
		}
		fresh := runningOn(node, test.Annotated(karpv1.DoNotDisruptAnnotationKey, "1h"), startedAgo(10*time.Minute))
		old := runningOn(node, test.Annotated(karpv1.DoNotDisruptAnnotationKey, "1h"), startedAgo(2*time.Hour))
		typo := runningOn(node, test.Annotated(karpv1.DoNotDisruptAnnotationKey, "ture"), startedAgo(2*time.Hour))
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(old)).To(BeTrue(), "its hour is over")
		Expect(deleting(fresh)).To(BeFalse(), "50 minutes of its hour are left")
		Expect(deleting(typo)).To(BeFalse(), "a value that is neither true nor a duration protects, rather than being ignored")
	})

	It("deletes at once, with the time left, a pod whose grace period outlasts the whole terminationGracePeriod", func() {
		nodeClaim, node := initializedNodeClaim(terminationGracePeriod(time.Minute))
		slow := runningOn(node, test.GracePeriod(600))
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		deleted := &corev1.Pod{}
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(slow), deleted)).To(Succeed())
		Expect(*deleted.DeletionGracePeriodSeconds).To(BeNumerically("~", 60, 2))
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonDraining, "ahead of the terminationGracePeriod deadline")
	})

	It("waits on a PodDisruptionBudget and says so, and evicts once it allows", func() {
		nodeClaim, node := initializedNodeClaim()
		labels := map[string]string{"app": nodeClaim.Name}
		pod := runningOn(node, test.Labelled(labels))
		pdb := blockingBudget(labels)
		refused := test.MetricValue("karpenter_pods_eviction_requests_total", map[string]string{"code": "429"})
		accepted := test.MetricValue("karpenter_pods_eviction_requests_total", map[string]string{"code": "200"})
		drainedPods := test.MetricValue("karpenter_pods_drained_total", map[string]string{"reason": "Forceful Termination"})
		drainedNodes := test.MetricValue("karpenter_nodes_drained_total", map[string]string{"nodepool": "default"})
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(pod)).To(BeFalse())
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonDraining, "a PodDisruptionBudget does not allow it yet")
		ExpectEvent(env.Recorder, node.Name, lifecycle.ReasonFailedDraining, "violates a PodDisruptionBudget")
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).NotTo(Equal(kakaocloud.InstanceStatusDeleting), "the VM stays while the pod does")
		Expect(condition(nodeClaim, karpv1.ConditionTypeDrained)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionUnknown), HaveField("Reason", karpv1.ReasonDraining),
			HaveField("Message", ContainSubstring("a PodDisruptionBudget does not allow it yet"))))

		pdb.Status.DisruptionsAllowed = 1
		ExpectApplied(env.Ctx, env.Client, pdb)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(pod)).To(BeTrue())
		kubeletStops(ExpectExists(env.Ctx, env.Client, pod))
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeDrained)).To(SatisfyAll(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", karpv1.ReasonDrained)))
		Expect(condition(nodeClaim, karpv1.ConditionTypeVolumesDetached)).To(HaveField("Status", metav1.ConditionTrue))
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectMetric("karpenter_pods_eviction_requests_total", map[string]string{"code": "429"}, Equal(refused+1))
		ExpectMetric("karpenter_pods_eviction_requests_total", map[string]string{"code": "200"}, Equal(accepted+1))
		// Deleted by hand, not disrupted: a forceful termination, as upstream names it.
		ExpectMetric("karpenter_pods_drained_total", map[string]string{"reason": "Forceful Termination"}, Equal(drainedPods+1))
		ExpectMetric("karpenter_nodes_drained_total", map[string]string{"nodepool": "default"}, Equal(drainedNodes+1))
	})

	It("deletes the VM only once the volumes of its drained pods are detached, those of pods that stay aside", func() {
		nodeClaim, node := initializedNodeClaim()
		drained := runningOn(node, withClaim("data-"+nodeClaim.Name, "pv-drained-"+nodeClaim.Name))
		runningOn(node, withClaim("logs-"+nodeClaim.Name, "pv-staying-"+nodeClaim.Name), func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: karpv1.DisruptedNoScheduleTaint.Key, Operator: corev1.TolerationOpExists}}
		})
		attachedDrained := attached(node, "pv-drained-"+nodeClaim.Name)
		attached(node, "pv-staying-"+nodeClaim.Name)
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(drained)).To(BeTrue())
		kubeletStops(ExpectExists(env.Ctx, env.Client, drained))
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeDrained).Status).To(Equal(metav1.ConditionTrue))
		Expect(condition(nodeClaim, karpv1.ConditionTypeVolumesDetached)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionUnknown), HaveField("Reason", karpv1.ReasonAwaitingVolumeDetachment),
			HaveField("Message", "waiting for volumes pv-drained-"+nodeClaim.Name+" to detach before the VM is deleted")))
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonAwaitingVolumeDetachment, "pv-drained-"+nodeClaim.Name)
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).NotTo(Equal(kakaocloud.InstanceStatusDeleting), "the VM stays while a volume of a drained pod is attached")

		By("the attach/detach controller detaching the volume")
		ExpectDeleted(env.Ctx, env.Client, attachedDrained)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeVolumesDetached)).To(SatisfyAll(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", karpv1.ReasonVolumesDetached)))
		instance, _ = vm(nodeClaim)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting), "the volume of the pod that stays does not hold the VM")
	})

	It("stops waiting for volumes at the terminationGracePeriod deadline and says so", func() {
		nodeClaim, node := initializedNodeClaim(terminationGracePeriod(time.Minute))
		drained := runningOn(node, withClaim("data-"+nodeClaim.Name, "pv-late-"+nodeClaim.Name), test.GracePeriod(0))
		attached(node, "pv-late-"+nodeClaim.Name)
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		kubeletStops(drained)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeVolumesDetached).Status).To(Equal(metav1.ConditionUnknown))

		env.Step(time.Minute + time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeVolumesDetached)).To(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", karpv1.ReasonTerminationGracePeriodElapsed)))
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting))
	})

	It("deletes, at the terminationGracePeriod deadline, a pod a PodDisruptionBudget still protects", func() {
		nodeClaim, node := initializedNodeClaim(terminationGracePeriod(30 * time.Second))
		labels := map[string]string{"app": nodeClaim.Name}
		pod := runningOn(node, test.Labelled(labels), test.GracePeriod(0))
		blockingBudget(labels)
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(pod)).To(BeFalse())

		env.Step(31 * time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(deleting(pod)).To(BeTrue())
		ExpectEvent(env.Recorder, pod.Name, lifecycle.ReasonDisrupted, "granted 1 seconds")
	})

	It("stops waiting for a pod stuck terminating a minute past its deletion time", func() {
		nodeClaim, node := initializedNodeClaim()
		stuck := runningOn(node, test.GracePeriod(10), func(p *corev1.Pod) { p.Finalizers = []string{"example.com/never-done"} })
		DeferCleanup(func() {
			current := ExpectExists(env.Ctx, env.Client, stuck)
			controllerutil.RemoveFinalizer(current, "example.com/never-done")
			ExpectApplied(env.Ctx, env.Client, current)
			kubeletStops(current)
		})
		ExpectDeleted(env.Ctx, env.Client, stuck)
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonDraining, "to terminate")
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).NotTo(Equal(kakaocloud.InstanceStatusDeleting))

		env.Step(10*time.Second + time.Minute + 2*time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		instance, _ = vm(nodeClaim)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting), "no longer waiting for it")
	})

	It("deletes the VM, waits until it is gone, deletes the node, then lets the NodeClaim go, counted once", func() {
		nodeClaim, node := initializedNodeClaim()
		before := test.MetricValue("karpenter_nodeclaims_terminated_total", map[string]string{"nodepool": "default"})
		timed := map[string]float64{}
		for _, name := range []string{"karpenter_nodes_terminated_total", "karpenter_nodes_termination_duration_seconds", "karpenter_nodes_lifetime_duration_seconds",
			"karpenter_nodeclaims_instance_termination_duration_seconds", "karpenter_nodeclaims_termination_duration_seconds"} {
			timed[name] = test.MetricValue(name, map[string]string{"nodepool": "default"})
		}
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInstanceTerminating).Status).To(Equal(metav1.ConditionTrue))
		ExpectExists(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectExists(env.Ctx, env.Client, nodeClaim)

		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim, node)
		_, exists := vm(nodeClaim)
		Expect(exists).To(BeFalse())
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim) // a late pass finds nothing to count
		ExpectMetric("karpenter_nodeclaims_terminated_total", map[string]string{"nodepool": "default"}, Equal(before+1))
		for name, was := range timed {
			ExpectMetric(name, map[string]string{"nodepool": "default"}, Equal(was+1))
		}
	})

	It("waits out a VM deletion KakaoCloud throttled, capped, without failing the pass, then deletes it", func() {
		nodeClaim, _ := initializedNodeClaim()
		env.Emulator.InjectFault(emulator.OpDeleteInstance, emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: 5 * time.Minute})
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)

		result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(result.RequeueAfter).To(Equal(kakaocloud.DefaultMaxRetryAfter), "the 5 minutes asked for, capped")
		inst, exists := vm(nodeClaim)
		Expect(exists).To(BeTrue())
		Expect(inst.Status).NotTo(Equal(kakaocloud.InstanceStatusDeleting))

		env.Emulator.ClearFaults()
		env.Step(kakaocloud.DefaultMaxRetryAfter)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInstanceTerminating).Status).To(Equal(metav1.ConditionTrue))
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("keeps the NodeClaim, InstanceTerminating, while another finalizer holds its node", func() {
		nodeClaim, node := initializedNodeClaim()
		node = ExpectExists(env.Ctx, env.Client, node)
		node.Finalizers = append(node.Finalizers, "example.com/hold")
		Expect(env.Client.Update(env.Ctx, node)).To(Succeed())
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)

		_, exists := vm(nodeClaim)
		Expect(exists).To(BeFalse())
		node = ExpectExists(env.Ctx, env.Client, node)
		Expect(node.DeletionTimestamp).NotTo(BeNil())
		Expect(node.Finalizers).To(ConsistOf("example.com/hold"))
		nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeInstanceTerminating).Status).To(Equal(metav1.ConditionTrue))
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonAwaitingNodeDeletion, "held by finalizers example.com/hold")

		node.Finalizers = nil
		Expect(env.Client.Update(env.Ctx, node)).To(Succeed())
		ExpectNotFound(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("deletes only its own node, not a new VM's node that took the same name", func() {
		_, node := initializedNodeClaim()
		node = ExpectExists(env.Ctx, env.Client, node)
		stale := node.DeepCopy()
		// The VM went, its node was removed, and a new VM given the freed address registered
		// a node of the same name, before the copy termination holds was refreshed.
		node.Finalizers = nil
		Expect(env.Client.Update(env.Ctx, node)).To(Succeed())
		ExpectDeleted(env.Ctx, env.Client, node)
		ExpectNotFound(env.Ctx, env.Client, node)
		newcomer := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: stale.Name, Labels: map[string]string{corev1.LabelHostname: stale.Name}},
			Spec: corev1.NodeSpec{ProviderID: "kakaocloud://another-vm"}}
		ExpectApplied(env.Ctx, env.Client, newcomer)

		gone, err := controllers.Lifecycle.DeleteNode(env.Ctx, stale)
		Expect(err).NotTo(HaveOccurred())
		Expect(gone).To(BeTrue(), "the stale copy's node is gone: its name is another node's")
		Expect(ExpectExists(env.Ctx, env.Client, newcomer).Spec.ProviderID).To(Equal("kakaocloud://another-vm"))
	})

	It("lets a NodeClaim that never launched go at once", func() {
		nodeClaim := test.NodeClaim(nodeClass, func(nodeClaim *karpv1.NodeClaim) { nodeClaim.Finalizers = []string{karpv1.TerminationFinalizer} })
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectDeleted(env.Ctx, env.Client, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
		Expect(ptr.Deref(nodeClaim.Spec.TerminationGracePeriod, metav1.Duration{})).To(Equal(metav1.Duration{}))
	})
})
