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

package provisioning_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/provisioning"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

func createNodeClassAndPool(name string, limits corev1.ResourceList, labels map[string]string) {
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}, {Name: "karpenter-subnet-b"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
			RootVolume:                 kcv1.RootVolume{SizeGiB: 50},
		},
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, nodeClass)).To(Succeed())
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{
				ObjectMeta: karpv1.ObjectMeta{Labels: labels},
				Spec: karpv1.NodeClaimTemplateSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
						{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a", "c2a"}},
					},
					NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: name},
					ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
				},
			},
			Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration("0s")},
			Limits:     karpv1.Limits(limits),
		},
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, np)).To(Succeed())
	EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), np)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(np.Status.Conditions, karpv1.ConditionTypeReady)).To(BeTrue())
	}).Should(Succeed())
}

// createPoolWithoutSubnet creates a KCNodeClass whose subnet does not exist, so that it is not
// ready, and a NodePool of it, both named name.
func createPoolWithoutSubnet(name string) *kcv1.KCNodeClass {
	GinkgoHelper()
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "no-such-subnet"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
		},
	}
	Expect(env.APIClient.Create(env.Ctx, nodeClass)).To(Succeed())
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a"}}},
			NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: name},
		}}},
	}
	Expect(env.APIClient.Create(env.Ctx, np)).To(Succeed())
	return nodeClass
}

// pendingPod creates a pod and marks it unschedulable, as the kube-scheduler would.
func pendingPod(name string, cpu string, nodeSelector map[string]string) *corev1.Pod {
	return pendingPodWith(name, nodeSelector, func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	})
}

// pendingPodWith creates a pending 1-CPU pod shaped by mutate.
func pendingPodWith(name string, nodeSelector map[string]string, mutate func(*corev1.Pod)) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			// No kubelet runs here to finish a graceful deletion.
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			NodeSelector:                  nodeSelector,
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
		},
	}
	mutate(pod)
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, pod)).To(Succeed())
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.Now()}}
	ExpectWithOffset(1, env.APIClient.Status().Update(env.Ctx, pod)).To(Succeed())
	return pod
}

func claimNames(claims []karpv1.NodeClaim) []string {
	names := make([]string, len(claims))
	for i, c := range claims {
		names[i] = c.Name
	}
	return names
}

func claimsOf(pool string) func(Gomega) []karpv1.NodeClaim {
	return func(g Gomega) []karpv1.NodeClaim {
		list := &karpv1.NodeClaimList{}
		g.Expect(env.APIClient.List(env.Ctx, list, client.MatchingLabels{karpv1.LabelNodePool: pool})).To(Succeed())
		return list.Items
	}
}

var _ = Describe("Provisioning", func() {
	It("turns pending pods into just enough NodeClaims, VMs, nodes, and pods bound to them", func() {
		createNodeClassAndPool("default", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}, map[string]string{"team": "checkout"})
		var pods []*corev1.Pod
		for i := range 6 {
			pods = append(pods, pendingPod(fmt.Sprintf("inflate-%d", i), "1", nil))
		}

		Eventually(claimsOf("default")).ShouldNot(BeEmpty())
		// The pods stay pending until their nodes exist; a batch after that must not launch
		// again for them.
		time.Sleep(time.Second) // let the first batch finish
		launched := len(claimsOf("default")(Default))
		Consistently(func(g Gomega) int {
			for _, p := range pods {
				current := &corev1.Pod{}
				g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(p), current)).To(Succeed())
				current.Status.Conditions[0].Message = "retriggered " + time.Now().String()
				g.Expect(env.APIClient.Status().Update(env.Ctx, current)).To(Succeed())
			}
			return len(claimsOf("default")(g))
		}, "3s", "500ms").Should(Equal(launched))

		claims := claimsOf("default")(Default)
		// Each pod is told which NodeClaim it waits for, as upstream's Nominated event does,
		// on the NodeClaim's creation and on the passes that find it in flight.
		for _, p := range pods {
			Expect(env.Recorder.Notes(p.Name, provisioning.ReasonNominated)).To(ContainElement(
				MatchRegexp(`^Pod should schedule on: nodeclaim/(%s)$`, strings.Join(claimNames(claims), "|"))), "pod %s", p.Name)
		}
		allocatable := resource.Quantity{}
		for _, c := range claims {
			Expect(c.Spec.Requirements).To(ContainElement(HaveField("Key", karpv1.LabelInstanceType)))
			Expect(c.Labels).To(HaveKeyWithValue("team", "checkout"))
			Eventually(func(g Gomega) {
				g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(&c), &c)).To(Succeed())
				g.Expect(meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeLaunched)).To(BeTrue())
			}).Should(Succeed())
			allocatable.Add(*c.Status.Allocatable.Cpu())
		}
		Expect(allocatable.Cmp(resource.MustParse("6"))).To(BeNumerically(">=", 0), "the NodeClaims hold the 6 CPUs")
		Expect(len(claims)).To(BeNumerically("<=", 2), "6 CPUs need no more than 2 nodes")
		Expect(env.Emulator.Instances()).To(HaveLen(len(claims)))

		By("acting as the kubelets and the kube-scheduler")
		free := map[string]int64{}
		for _, c := range claims {
			node := &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "node-" + c.Name},
				Spec:       corev1.NodeSpec{ProviderID: c.Status.ProviderID, Taints: []corev1.Taint{karpv1.UnregisteredNoExecuteTaint}},
			}
			Expect(env.APIClient.Create(env.Ctx, node)).To(Succeed())
			// The controller syncs the node at the same time: retry on conflicts.
			Eventually(func() error {
				if err := env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(node), node); err != nil {
					return err
				}
				node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
				node.Status.Allocatable = c.Status.Allocatable
				if err := env.APIClient.Status().Update(env.Ctx, node); err != nil {
					return err
				}
				// The node lifecycle controller lifts the not-ready taint the API server added.
				var kept []corev1.Taint
				for _, t := range node.Spec.Taints {
					if t.Key != corev1.TaintNodeNotReady {
						kept = append(kept, t)
					}
				}
				node.Spec.Taints = kept
				return env.APIClient.Update(env.Ctx, node)
			}).Should(Succeed())
			free[node.Name] = c.Status.Allocatable.Cpu().MilliValue()
		}
		for _, p := range pods {
			for name, milli := range free {
				if milli >= 1000 {
					Expect(env.APIClient.SubResource("binding").Create(env.Ctx, p, &corev1.Binding{Target: corev1.ObjectReference{Kind: "Node", Name: name}})).To(Succeed())
					free[name] = milli - 1000
					break
				}
			}
		}
		for _, p := range pods {
			Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s bound", p.Name)
		}
		for _, c := range claims {
			Eventually(func(g Gomega) {
				g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(&c), &c)).To(Succeed())
				initialized := meta.FindStatusCondition(c.Status.Conditions, karpv1.ConditionTypeInitialized)
				g.Expect(initialized).NotTo(BeNil())
				g.Expect(initialized.Status).To(Equal(metav1.ConditionTrue), initialized.Message)
			}).Should(Succeed())
		}

		By("emptying the pool as the product documents say: kubectl delete nodeclaims -l karpenter.sh/nodepool=default")
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: "default"})).To(Succeed())
		Eventually(claimsOf("default")).Should(BeEmpty())
		Eventually(func() []kakaocloud.Instance {
			var live []kakaocloud.Instance
			for _, i := range env.Emulator.Instances() {
				if i.Status != kakaocloud.InstanceStatusDeleting {
					live = append(live, i)
				}
			}
			return live
		}).Should(BeEmpty(), "no VM is left running")
		nodes := &corev1.NodeList{}
		Expect(env.APIClient.List(env.Ctx, nodes)).To(Succeed())
		Expect(nodes.Items).To(BeEmpty())
		for _, p := range pods {
			Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(p), &corev1.Pod{})).NotTo(Succeed(), "pod %s was evicted", p.Name)
		}
	})

	It("says which subnets' zones rule out a pod that asks for another zone", func() {
		// The pool's KCNodeClass has subnets in kr-central-2-a and -b only.
		createNodeClassAndPool("zonal", nil, nil)
		pod := pendingPod("zone-c-pod", "1", map[string]string{karpv1.LabelNodePool: "zonal", corev1.LabelTopologyZone: "kr-central-2-c"})
		Eventually(env.Recorder.NotesOf(pod.Name, "FailedScheduling")).Should(ContainElement(ContainSubstring("nodepool zonal: the subnets of its KCNodeClass zonal are in zones [kr-central-2-a kr-central-2-b], none of which the pod allows")))
		Expect(env.APIClient.Delete(env.Ctx, pod)).To(Succeed())
	})

	It("launches nothing from a NodePool whose cpu limit is 0, and says so on the pod", func() {
		createNodeClassAndPool("frozen", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}, nil)
		pod := pendingPod("frozen-pod", "1", map[string]string{karpv1.LabelNodePool: "frozen"})
		Eventually(env.Recorder.NotesOf(pod.Name, "FailedScheduling")).Should(ContainElement(ContainSubstring("nodepool frozen: would exceed limits cpu")))
		Consistently(claimsOf("frozen"), "2s").Should(BeEmpty())
	})

	It("counts every NodeClaim, launched or not, against limits.nodes", func() {
		createNodeClassAndPool("two-nodes", corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("2")}, nil)
		// Each pod repels the others from its node: each needs a node of its own.
		apart := map[string]string{"app": "two-nodes"}
		var pods []*corev1.Pod
		for i := range 3 {
			pods = append(pods, pendingPodWith(fmt.Sprintf("apart-%d", i), map[string]string{karpv1.LabelNodePool: "two-nodes"}, func(p *corev1.Pod) {
				p.Labels = apart
				p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: apart},
				}}}}
			}))
		}
		Eventually(claimsOf("two-nodes")).Should(HaveLen(2))
		Eventually(func() []string {
			var notes []string
			for _, pod := range pods {
				notes = append(notes, env.Recorder.Notes(pod.Name, "FailedScheduling")...)
			}
			return notes
		}).Should(ContainElement(ContainSubstring("nodepool two-nodes: would exceed limits nodes")))
		Consistently(claimsOf("two-nodes"), "2s").Should(HaveLen(2))
		for _, pod := range pods {
			Expect(env.APIClient.Delete(env.Ctx, pod)).To(Succeed())
		}
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: "two-nodes"})).To(Succeed())
		Eventually(claimsOf("two-nodes")).Should(BeEmpty())
	})

	It("provisions for a custom label only on a NodePool that defines it, and names the label to a pod no NodePool defines it for", func() {
		createNodeClassAndPool("teams", nil, map[string]string{"example.com/team": "payments"})
		defined := pendingPod("team-payments", "1", map[string]string{"example.com/team": "payments"})
		undefined := pendingPod("team-undefined", "1", map[string]string{"example.com/owner": "nobody"})

		// The template label is defined: the pod gets a NodeClaim of that pool, labelled so.
		Eventually(func(g Gomega) map[string]string {
			claims := claimsOf("teams")(g)
			g.Expect(claims).To(HaveLen(1))
			return claims[0].Labels
		}).Should(HaveKeyWithValue("example.com/team", "payments"))
		// No NodePool defines example.com/owner: no NodeClaim, and the pod is told why, per pool.
		Eventually(env.Recorder.NotesOf(undefined.Name, "FailedScheduling")).Should(ContainElement(
			ContainSubstring("nodepool teams: incompatible requirements, label example.com/owner is not defined by the nodepool")))
		Consistently(func(g Gomega) int {
			list := &karpv1.NodeClaimList{}
			g.Expect(env.APIClient.List(env.Ctx, list)).To(Succeed())
			n := 0
			for _, c := range list.Items {
				if _, ok := c.Labels["example.com/owner"]; ok {
					n++
				}
			}
			return n
		}, "2s").Should(BeZero())

		Expect(env.APIClient.Delete(env.Ctx, defined)).To(Succeed())
		Expect(env.APIClient.Delete(env.Ctx, undefined)).To(Succeed())
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: "teams"})).To(Succeed())
		Eventually(claimsOf("teams")).Should(BeEmpty())
	})

	It("spreads pods over the zones of its subnets and follows a bound volume to its zone", func() {
		createNodeClassAndPool("spread", nil, nil) // subnets in kr-central-2-a and -b
		selector := map[string]string{karpv1.LabelNodePool: "spread"}
		var pods []*corev1.Pod
		for i := range 2 {
			pods = append(pods, pendingPodWith(fmt.Sprintf("spread-%d", i), selector, func(p *corev1.Pod) {
				p.Labels = map[string]string{"app": "spread"}
				p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
				}}
			}))
		}
		spreadClaims := sets.New[string]()
		Eventually(func(g Gomega) []string {
			var zones []string
			spreadClaims.Clear()
			for _, c := range claimsOf("spread")(g) {
				zones = append(zones, c.Labels[corev1.LabelTopologyZone])
				spreadClaims.Insert(c.Name)
			}
			slices.Sort(zones)
			return zones
		}).Should(Equal([]string{"kr-central-2-a", "kr-central-2-b"}))

		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "data-b"},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "block.csi.example.com", VolumeHandle: "vol-b"}},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-b"}}},
				}}}},
			},
		}
		Expect(env.APIClient.Create(env.Ctx, pv)).To(Succeed())
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: pv.Name, StorageClassName: new(""),
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
			},
		}
		Expect(env.APIClient.Create(env.Ctx, pvc)).To(Succeed())
		pods = append(pods, pendingPodWith("with-volume", selector, func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
			// Kept off the spread pods' nodes: the pod needs its own NodeClaim, which the
			// volume puts in b.
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
			}}}}
		}))
		Eventually(func(g Gomega) []string {
			var zones []string
			for _, c := range claimsOf("spread")(g) {
				if !spreadClaims.Has(c.Name) {
					zones = append(zones, c.Labels[corev1.LabelTopologyZone])
				}
			}
			return zones
		}).Should(Equal([]string{"kr-central-2-b"}))

		for _, p := range pods {
			Expect(env.APIClient.Delete(env.Ctx, p)).To(Succeed())
		}
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: "spread"})).To(Succeed())
		Eventually(claimsOf("spread")).Should(BeEmpty())
	})

	It("spreads the nodes of pods that ask for no zone over the KCNodeClass's zones, at the cost of one zone", func() {
		createNodeClassAndPool("zones", nil, nil) // subnets in kr-central-2-a and -b
		// 4-vCPU nodes hold three of the 1-CPU pods: ten NodeClaims, launched side by side.
		selector := map[string]string{karpv1.LabelNodePool: "zones", kcv1.LabelInstanceCPU: "4"}
		var pods []*corev1.Pod
		for i := range 30 {
			pods = append(pods, pendingPod(fmt.Sprintf("zones-%d", i), "1", selector))
		}
		Eventually(func(g Gomega) {
			claims := claimsOf("zones")(g)
			g.Expect(claims).To(HaveLen(10))
			zones, types := map[string]int{}, sets.New[string]()
			for _, c := range claims {
				zones[c.Labels[corev1.LabelTopologyZone]]++
				types.Insert(c.Labels[corev1.LabelInstanceTypeStable])
			}
			g.Expect(zones).To(Equal(map[string]int{"kr-central-2-a": 5, "kr-central-2-b": 5}))
			// One instance type, the cheapest of the 4-vCPU ones in either zone: no higher cost.
			g.Expect(sets.List(types)).To(Equal([]string{"c2a.xlarge"}))
		}).Should(Succeed())

		for _, p := range pods {
			Expect(env.APIClient.Delete(env.Ctx, p)).To(Succeed())
		}
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: "zones"})).To(Succeed())
		Eventually(claimsOf("zones")).Should(BeEmpty())
	})

	It("names a NodePool whose KCNodeClass is not ready on the pods it cannot take", func() {
		createPoolWithoutSubnet("broken")
		pod := pendingPod("broken-pod", "1", map[string]string{karpv1.LabelNodePool: "broken"})
		Eventually(env.Recorder.NotesOf(pod.Name, "FailedScheduling")).Should(ContainElement(MatchRegexp(`nodepool broken: not ready: .*KCNodeClass "broken"`)))
		Consistently(claimsOf("broken"), "1s").Should(BeEmpty())
		Expect(env.APIClient.Delete(env.Ctx, pod)).To(Succeed())
	})

	It("provisions again for a pod that stays pending, without the pod changing, once its NodePool is ready", func() {
		nodeClass := createPoolWithoutSubnet("late")
		pod := pendingPod("late-pod", "1", map[string]string{karpv1.LabelNodePool: "late"})
		Eventually(env.Recorder.NotesOf(pod.Name, "FailedScheduling")).Should(ContainElement(ContainSubstring("nodepool late: not ready")))
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		version := pod.ResourceVersion

		By("fixing the KCNodeClass: the NodePool turns ready, and nothing touches the pod")
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
		nodeClass.Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}}
		Expect(env.APIClient.Update(env.Ctx, nodeClass)).To(Succeed())
		Eventually(claimsOf("late"), 2*provisioning.RetryPendingAfter+5*time.Second).Should(HaveLen(1), "the pending pod is provisioned for again")
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		Expect(pod.ResourceVersion).To(Equal(version), "the pod did not change")

		Expect(env.APIClient.Delete(env.Ctx, pod)).To(Succeed())
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: "late"})).To(Succeed())
		Eventually(claimsOf("late")).Should(BeEmpty())
	})
})
