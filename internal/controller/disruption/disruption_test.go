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
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	nodeclaimdisruption "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/expiration"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

// createNodeClass creates a KCNodeClass of the given worker version and waits until it is
// ready.
func createNodeClass(name, version string) *kcv1.KCNodeClass {
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: version},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
			RootVolume:                 kcv1.RootVolume{SizeGiB: 50},
		},
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, nodeClass)).To(Succeed())
	EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClass), nodeClass)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)).To(BeTrue())
	}).Should(Succeed())
	return nodeClass
}

// createNodePool creates a NodePool of the node class of the same name (m2a instance types,
// labelled pool=<name>, consolidating at once) adjusted by mutate, and waits until it is ready
// and stamped with its template hash.
func createNodePool(name string, mutate func(*karpv1.NodePool)) *karpv1.NodePool {
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{
				ObjectMeta: karpv1.ObjectMeta{Labels: map[string]string{"pool": name}},
				Spec: karpv1.NodeClaimTemplateSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
						{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a"}},
					},
					NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: name},
					ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
				},
			},
			Disruption: karpv1.Disruption{
				ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter:    karpv1.MustParseNillableDuration("0s"),
				Budgets:             []karpv1.Budget{{Nodes: "100%"}},
			},
		},
	}
	if mutate != nil {
		mutate(np)
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, np)).To(Succeed())
	EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(np), np)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(np.Status.Conditions, karpv1.ConditionTypeReady)).To(BeTrue())
		g.Expect(np.Annotations).To(HaveKey(karpv1.NodePoolHashAnnotationKey))
	}).Should(Succeed())
	return np
}

// updatePool changes a NodePool, retrying on conflicts with its controller.
func updatePool(name string, mutate func(*karpv1.NodePool)) {
	EventuallyWithOffset(1, func() error {
		np := &karpv1.NodePool{}
		if err := env.APIClient.Get(env.Ctx, client.ObjectKey{Name: name}, np); err != nil {
			return err
		}
		mutate(np)
		return env.APIClient.Update(env.Ctx, np)
	}).Should(Succeed())
}

// launchNode creates a NodeClaim of the pool for one instance type, as provisioning would, and
// returns its name once its node is initialized.
func launchNode(pool string, instanceType string, expireAfter string) string {
	np := &karpv1.NodePool{}
	ExpectWithOffset(1, env.APIClient.Get(env.Ctx, client.ObjectKey{Name: pool}, np)).To(Succeed())
	labels := map[string]string{karpv1.LabelNodePool: pool}
	maps.Copy(labels, np.Spec.Template.Labels)
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: pool + "-",
			Labels:       labels,
			Annotations: map[string]string{
				karpv1.NodePoolHashAnnotationKey:        np.Annotations[karpv1.NodePoolHashAnnotationKey],
				karpv1.NodePoolHashVersionAnnotationKey: np.Annotations[karpv1.NodePoolHashVersionAnnotationKey],
			},
		},
		Spec: karpv1.NodeClaimSpec{
			Taints: np.Spec.Template.Spec.Taints,
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{pool}},
				{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{instanceType}},
			},
			Resources:    karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
			NodeClassRef: np.Spec.Template.Spec.NodeClassRef,
			ExpireAfter:  karpv1.MustParseNillableDuration(expireAfter),
			// As provisioning copies it from the template.
			TerminationGracePeriod: np.Spec.Template.Spec.TerminationGracePeriod,
		},
	}
	ExpectWithOffset(1, env.APIClient.Create(env.Ctx, nodeClaim)).To(Succeed())
	EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(nodeClaim), nodeClaim)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)).To(BeTrue())
	}).Should(Succeed())
	return nodeClaim.Name
}

func claimsOf(pool string) func(Gomega) []karpv1.NodeClaim {
	return func(g Gomega) []karpv1.NodeClaim {
		list := &karpv1.NodeClaimList{}
		g.Expect(env.APIClient.List(env.Ctx, list, client.MatchingLabels{karpv1.LabelNodePool: pool})).To(Succeed())
		return list.Items
	}
}

func names(claims []karpv1.NodeClaim) []string {
	out := make([]string, len(claims))
	for i, c := range claims {
		out[i] = c.Name
	}
	slices.Sort(out)
	return out
}

func getClaim(name string) (*karpv1.NodeClaim, error) {
	nodeClaim := &karpv1.NodeClaim{}
	return nodeClaim, env.APIClient.Get(env.Ctx, client.ObjectKey{Name: name}, nodeClaim)
}

// gone succeeds once the NodeClaims no longer exist.
func gone(claims ...string) func(Gomega) {
	return func(g Gomega) {
		for _, name := range claims {
			_, err := getClaim(name)
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "nodeclaim %s still exists", name)
		}
	}
}

// untouched succeeds while the NodeClaims exist, are not being deleted and their nodes are
// not tainted for disruption.
func untouched(claims ...string) func(Gomega) {
	return func(g Gomega) {
		for _, name := range claims {
			nodeClaim, err := getClaim(name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(nodeClaim.DeletionTimestamp).To(BeNil(), "nodeclaim %s is being deleted", name)
			node := &corev1.Node{}
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKey{Name: nodeClaim.Status.NodeName}, node)).To(Succeed())
			g.Expect(node.Spec.Taints).NotTo(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)), "node of %s is tainted", name)
		}
	}
}

// podsOf returns the pods of a deployment and the nodes they are bound to ("" when pending).
func podsOf(app string) func(Gomega) map[string]string {
	return func(g Gomega) map[string]string {
		list := &corev1.PodList{}
		g.Expect(env.APIClient.List(env.Ctx, list, client.InNamespace("default"), client.MatchingLabels{"app": app})).To(Succeed())
		out := map[string]string{}
		for _, p := range list.Items {
			if p.DeletionTimestamp.IsZero() {
				out[p.Name] = p.Spec.NodeName
			}
		}
		return out
	}
}

// allBound succeeds once the deployment has n pods, all bound, to nodes of the given
// NodeClaims when any are given.
func allBound(app string, n int, onClaims ...string) func(Gomega) {
	return func(g Gomega) {
		pods := podsOf(app)(g)
		g.Expect(pods).To(HaveLen(n))
		for pod, node := range pods {
			g.Expect(node).NotTo(BeEmpty(), "pod %s is pending", pod)
			if len(onClaims) > 0 {
				g.Expect(onClaims).To(ContainElement(node[len("node-"):]), "pod %s is on %s", pod, node)
			}
		}
	}
}

// twoNodesWithPods launches two nodes of the pool (whose budgets must block disruption while
// this runs) and a deployment of one pod on each.
func twoNodesWithPods(pool, instanceType, expireAfter, app, cpu string, opts ...func(*corev1.Pod)) (string, string) {
	a := launchNode(pool, instanceType, expireAfter)
	b := launchNode(pool, instanceType, expireAfter)
	actors.deploy(app, 2, podTemplate(cpu, append([]func(*corev1.Pod){onPool(pool)}, opts...)...))
	EventuallyWithOffset(1, allBound(app, 2, a, b)).Should(Succeed())
	EventuallyWithOffset(1, func(g Gomega) {
		nodes := sets.New[string]()
		for _, node := range podsOf(app)(g) {
			nodes.Insert(node)
		}
		g.Expect(nodes.Len()).To(Equal(2), "one pod on each node")
	}).Should(Succeed())
	return a, b
}

var blockAll = []karpv1.Budget{{Nodes: "0"}}

var _ = Describe("Disruption", func() {
	AfterEach(func() {
		actors.reset()
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &corev1.Pod{}, client.InNamespace("default"), client.GracePeriodSeconds(0))).To(Succeed())
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &policyv1.PodDisruptionBudget{}, client.InNamespace("default"))).To(Succeed())
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{})).To(Succeed())
		Eventually(func(g Gomega) {
			claims := &karpv1.NodeClaimList{}
			g.Expect(env.APIClient.List(env.Ctx, claims)).To(Succeed())
			g.Expect(claims.Items).To(BeEmpty())
			nodes := &corev1.NodeList{}
			g.Expect(env.APIClient.List(env.Ctx, nodes)).To(Succeed())
			g.Expect(nodes.Items).To(BeEmpty())
		}).Should(Succeed())
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &karpv1.NodePool{})).To(Succeed())
		Expect(env.APIClient.DeleteAllOf(env.Ctx, &kcv1.KCNodeClass{})).To(Succeed())
		Eventually(func(g Gomega) {
			classes := &kcv1.KCNodeClassList{}
			g.Expect(env.APIClient.List(env.Ctx, classes)).To(Succeed())
			g.Expect(classes.Items).To(BeEmpty())
		}).Should(Succeed())
	})

	It(`replaces drifted nodes strictly one after the other under a budget of nodes: "1" when kubernetesVersion changes, pods rescheduled each time (seed 003)`, func() {
		createNodeClass("checkout", "1.35")
		createNodePool("checkout", func(np *karpv1.NodePool) {
			np.Spec.Template.Labels = map[string]string{"team": "checkout", "env": "dev"}
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}}
			np.Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a.large"}},
			}
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
			np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
		})
		checkout := func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{"team": "checkout"}
			tolerating("dedicated", "CheckoutApp")(p)
		}
		actors.deploy("checkout", 3, podTemplate("700m", checkout))
		actors.deploy("checkout-redis", 1, podTemplate("300m", checkout))

		By("provisioning two v1.35 nodes for the checkout pods")
		Eventually(func(g Gomega) {
			g.Expect(claimsOf("checkout")(g)).To(HaveLen(2))
			allBound("checkout", 3)(g)
			allBound("checkout-redis", 1)(g)
		}).Should(Succeed())
		old := names(claimsOf("checkout")(Default))
		for _, name := range old {
			nodeClaim, err := getClaim(name)
			Expect(err).NotTo(HaveOccurred())
			Expect(nodeClaim.Annotations).To(HaveKeyWithValue(kcv1.AnnotationKubernetesVersion, "1.35"))
			Expect(nodeClaim.Labels).To(HaveKeyWithValue("team", "checkout"))
		}

		By("watching that no more than one old node is disrupted at any time")
		var mu sync.Mutex
		maxDisrupted, sampling := 0, true
		go func() {
			defer GinkgoRecover()
			for {
				mu.Lock()
				if !sampling {
					mu.Unlock()
					return
				}
				mu.Unlock()
				disrupted := 0
				for _, name := range old {
					nodeClaim, err := getClaim(name)
					if err != nil {
						continue // gone: its disruption is over
					}
					node := &corev1.Node{}
					tainted := nodeClaim.Status.NodeName != "" && env.APIClient.Get(env.Ctx, client.ObjectKey{Name: nodeClaim.Status.NodeName}, node) == nil &&
						slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == karpv1.DisruptedNoScheduleTaint.Key })
					instanceGone := meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInstanceTerminating)
					if (tainted || !nodeClaim.DeletionTimestamp.IsZero()) && !instanceGone {
						disrupted++
					}
				}
				mu.Lock()
				maxDisrupted = max(maxDisrupted, disrupted)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
		DeferCleanup(func() { mu.Lock(); sampling = false; mu.Unlock() })

		By("upgrading the KCNodeClass to 1.36")
		Eventually(func() error {
			nodeClass := &kcv1.KCNodeClass{}
			if err := env.APIClient.Get(env.Ctx, client.ObjectKey{Name: "checkout"}, nodeClass); err != nil {
				return err
			}
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36"
			return env.APIClient.Update(env.Ctx, nodeClass)
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			for _, name := range old {
				nodeClaim, err := getClaim(name)
				if apierrors.IsNotFound(err) {
					continue
				}
				g.Expect(err).NotTo(HaveOccurred())
				drifted := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted)
				g.Expect(drifted).NotTo(BeNil())
				g.Expect(drifted.Reason).To(Equal("KubernetesVersionDrift"))
				g.Expect(drifted.Message).To(ContainSubstring("launched for Kubernetes 1.35; KCNodeClass checkout now asks for 1.36"))
			}
		}).Should(Succeed())

		By("replacing the first node, then the second")
		var first string
		Eventually(func(g Gomega) {
			for _, name := range old {
				if _, err := getClaim(name); apierrors.IsNotFound(err) {
					first = name
				}
			}
			g.Expect(first).NotTo(BeEmpty())
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			allBound("checkout", 3)(g)
			allBound("checkout-redis", 1)(g)
			for _, node := range podsOf("checkout")(g) {
				g.Expect(node).NotTo(Equal("node-"+first), "pods left the first drifted node")
			}
		}).Should(Succeed())
		Eventually(gone(old...), 90*time.Second).Should(Succeed())

		By("leaving every checkout pod on a v1.36 node")
		// A pod pending for a moment while a drifted node drains may have provisioning open a
		// NodeClaim that carries its version only once launched, or goes as unneeded.
		var current []string
		Eventually(func(g Gomega) {
			claims := claimsOf("checkout")(g)
			g.Expect(claims).NotTo(BeEmpty())
			current = nil
			for _, c := range claims {
				g.Expect(c.Annotations).To(HaveKeyWithValue(kcv1.AnnotationKubernetesVersion, "1.36"))
				g.Expect(c.Labels).To(HaveKeyWithValue("team", "checkout"))
				current = append(current, c.Name)
			}
		}).Should(Succeed())
		Eventually(allBound("checkout", 3, current...)).Should(Succeed())
		Eventually(allBound("checkout-redis", 1, current...)).Should(Succeed())
		mu.Lock()
		Expect(maxDisrupted).To(Equal(1), "the two drifted nodes were disrupted one at a time")
		mu.Unlock()
		for _, name := range old {
			Expect(env.Recorder.Notes(name, nodeclaimdisruption.EventDriftDetected)).To(ContainElement(ContainSubstring("KubernetesVersionDrift")))
			Expect(env.Recorder.Notes(name, disruption.EventDisruptionTerminating)).To(ContainElement(ContainSubstring("now that its replacement")))
		}
		Expect(test.MetricValue("karpenter_nodeclaims_disrupted_total", map[string]string{"nodepool": "checkout", "reason": "drifted"})).To(BeNumerically(">=", 2))
	})

	It("holds drift and consolidation of nodes whose pods a PodDisruptionBudget allows no disruption of, and says so", func() {
		createNodeClass("pdb", "1.36")
		createNodePool("pdb", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = blockAll })
		a, b := twoNodesWithPods("pdb", "m2a.xlarge", "720h", "web", "500m")
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		}
		Expect(env.APIClient.Create(env.Ctx, pdb)).To(Succeed())
		// No kube-controller-manager runs here: write the status its disruption controller would.
		pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2}
		Expect(env.APIClient.Status().Update(env.Ctx, pdb)).To(Succeed())

		By("letting consolidation at the two underused nodes")
		updatePool("pdb", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })
		for _, name := range []string{a, b} {
			Eventually(env.Recorder.NotesOf(name, disruption.EventDisruptionBlocked)).Should(ContainElement(MatchRegexp(`PodDisruptionBudget default/web allows no disruption of pod default/web-\d+ now`)))
		}
		Consistently(untouched(a, b), "3s").Should(Succeed())
		Eventually(func(g Gomega) int64 {
			np := &karpv1.NodePool{}
			g.Expect(env.APIClient.Get(env.Ctx, client.ObjectKey{Name: "pdb"}, np)).To(Succeed())
			return np.Status.DisruptionBlocked
		}).Should(BeEquivalentTo(2), "the NodePool counts the nodes held")

		By("drifting them: still held")
		updatePool("pdb", func(np *karpv1.NodePool) { np.Spec.Template.Labels["pool"] = "pdb-v2" })
		Eventually(func(g Gomega) {
			for _, name := range []string{a, b} {
				nodeClaim, err := getClaim(name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted)).To(BeTrue())
			}
		}).Should(Succeed())
		Consistently(untouched(a, b), "3s").Should(Succeed())

		By("removing the PodDisruptionBudget: the nodes are replaced")
		Expect(env.APIClient.Delete(env.Ctx, pdb)).To(Succeed())
		Eventually(gone(a, b)).Should(Succeed())
		Eventually(allBound("web", 2)).Should(Succeed())
	})

	It("lets karpenter.sh/do-not-disrupt hold consolidation but not expiry, whose drain waits for such pods until terminationGracePeriod", func() {
		createNodeClass("dnd", "1.36")
		createNodePool("dnd", func(np *karpv1.NodePool) {
			np.Spec.Disruption.Budgets = blockAll
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 5 * time.Second}
		})
		a, b := twoNodesWithPods("dnd", "m2a.xlarge", "30s", "batch", "500m", annotated(karpv1.DoNotDisruptAnnotationKey, "true"))
		updatePool("dnd", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })

		By("holding consolidation of the underused nodes, with an event naming the pod")
		for _, name := range []string{a, b} {
			Eventually(env.Recorder.NotesOf(name, disruption.EventDisruptionBlocked)).Should(ContainElement(MatchRegexp(`pod default/batch-\d+ is annotated karpenter.sh/do-not-disrupt`)))
		}
		Consistently(untouched(a, b), "3s").Should(Succeed())

		By("expiring them anyway after expireAfter, pods rescheduled on new nodes")
		Eventually(gone(a, b)).Should(Succeed())
		for _, name := range []string{a, b} {
			Expect(env.Recorder.Notes(name, expiration.EventExpired)).To(ContainElement(ContainSubstring("expireAfter (30s) has elapsed")))
		}
		Eventually(allBound("batch", 2)).Should(Succeed())
		Expect(test.MetricValue("karpenter_nodeclaims_disrupted_total", map[string]string{"nodepool": "dnd", "reason": "expired"})).To(BeNumerically(">=", 2))
	})

	It("holds consolidation while a do-not-disrupt duration runs and tells the pods until when, then consolidates", func() {
		createNodeClass("dnd-for", "1.36")
		createNodePool("dnd-for", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = blockAll })
		a, b := twoNodesWithPods("dnd-for", "m2a.xlarge", "720h", "warming", "500m", annotated(karpv1.DoNotDisruptAnnotationKey, "8s"))
		pods := podsOf("warming")(Default)
		Expect(pods).To(HaveLen(2))
		// One start time for both pods: a status time is stored to the second, and two pods
		// started either side of a second boundary would free their nodes a second apart, one
		// node consolidated alone and the other replaced later, beyond this spec's wait.
		started := metav1.Now()
		for name := range pods {
			// What the kubelet reports once it starts the pod: the duration counts from then.
			pod := &corev1.Pod{}
			Expect(env.APIClient.Get(env.Ctx, client.ObjectKey{Namespace: "default", Name: name}, pod)).To(Succeed())
			pod.Status.Phase, pod.Status.StartTime = corev1.PodRunning, started.DeepCopy()
			Expect(env.APIClient.Status().Update(env.Ctx, pod)).To(Succeed())
		}
		updatePool("dnd-for", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })

		for pod := range pods {
			Eventually(env.Recorder.NotesOf(pod, disruption.EventDoNotDisruptUntil)).Should(ContainElement(
				HavePrefix("karpenter.sh/do-not-disrupt=8s holds this pod's node from voluntary disruption until ")))
		}
		By("consolidating once the 8 s are over, the pods told")
		Eventually(gone(a, b), 30*time.Second).Should(Succeed())
		for pod := range pods {
			Expect(env.Recorder.Notes(pod, disruption.EventDoNotDisruptGracePeriodElapsed)).To(ContainElement(ContainSubstring("the pod no longer holds its node")))
		}
	})

	It("never removes a node with pods under WhenEmpty, and removes it once it is empty", func() {
		createNodeClass("empty", "1.36")
		createNodePool("empty", func(np *karpv1.NodePool) {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
			np.Spec.Disruption.Budgets = blockAll
		})
		a, b := twoNodesWithPods("empty", "m2a.xlarge", "720h", "web", "500m")
		updatePool("empty", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })
		Consistently(untouched(a, b), "5s").Should(Succeed())

		By("scaling the pods away: the empty nodes go")
		actors.scale("web", 0)
		Eventually(gone(a, b)).Should(Succeed())
		Expect(claimsOf("empty")(Default)).To(BeEmpty(), "nothing replaced them")
	})

	It("replaces two half-empty nodes with one cheaper node under WhenEmptyOrUnderutilized", func() {
		createNodeClass("merge", "1.36")
		createNodePool("merge", func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements[0].Values = []string{"m2a", "c2a"}
			np.Spec.Disruption.Budgets = blockAll
		})
		a, b := twoNodesWithPods("merge", "m2a.xlarge", "720h", "web", "1500m")
		before := test.MetricValue("karpenter_voluntary_disruption_decisions_total", map[string]string{"decision": "replace", "reason": "underutilized", "consolidation_type": "multi"})
		byPool := test.MetricValue("karpenter_voluntary_disruption_decisions_by_nodepool_total", map[string]string{"nodepool": "merge", "decision": "replace", "reason": "underutilized", "consolidation_type": "multi"})
		saved := test.MetricValue("karpenter_kakaocloud_consolidation_savings_total", map[string]string{"nodepool": "merge"})
		updatePool("merge", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })

		Eventually(gone(a, b)).Should(Succeed())
		claims := claimsOf("merge")(Default)
		Expect(claims).To(HaveLen(1))
		Expect(claims[0].Labels).To(HaveKeyWithValue(karpv1.LabelInstanceType, "c2a.xlarge"), "the cheapest type for 3 CPUs, cheaper than one m2a.xlarge")
		Eventually(allBound("web", 2, claims[0].Name)).Should(Succeed())
		Expect(test.MetricValue("karpenter_voluntary_disruption_decisions_total", map[string]string{"decision": "replace", "reason": "underutilized", "consolidation_type": "multi"})).To(Equal(before + 1))
		Expect(test.MetricValue("karpenter_voluntary_disruption_decisions_by_nodepool_total", map[string]string{"nodepool": "merge", "decision": "replace", "reason": "underutilized", "consolidation_type": "multi"})).To(Equal(byPool + 1))
		Expect(test.MetricValue("karpenter_kakaocloud_consolidation_savings_total", map[string]string{"nodepool": "merge"})).To(BeNumerically(">", saved), "two m2a.xlarge cost more than one c2a.xlarge")
		Expect(test.MetricValue("karpenter_voluntary_disruption_decision_evaluation_duration_seconds", map[string]string{"reason": "underutilized", "consolidation_type": "multi"})).To(BeNumerically(">", 0))
	})

	It("makes a Balanced move whose savings are worth its disruption, with its score in the nodes' events", func() {
		createNodeClass("balanced", "1.36")
		createNodePool("balanced", func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements[0].Values = []string{"m2a", "c2a"}
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyBalanced
			np.Spec.Disruption.Budgets = blockAll
		})
		a, b := twoNodesWithPods("balanced", "m2a.xlarge", "720h", "web", "1500m")
		updatePool("balanced", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })

		// Two nodes of one pod each become one cheaper node: more than half of the NodePool's
		// cost saved for all of its (small) disruption.
		for _, name := range []string{a, b} {
			Eventually(env.Recorder.NotesOf(name, disruption.EventConsolidationApproved)).Should(ContainElement(
				MatchRegexp(`^Balanced consolidation approves removing this node: score [0-9.]+ \(NodePool balanced's Balanced policy needs 0\.50, k=2\)`)))
		}
		Eventually(gone(a, b)).Should(Succeed())
		Expect(test.MetricValue("karpenter_consolidation_moves_total", map[string]string{"decision": "approved", "nodepool": "balanced", "policy": "Balanced"})).To(BeNumerically(">=", 1))
	})

	It("holds drift outside a budget's maintenance window and replaces inside it", func() {
		now := time.Now().UTC()
		cronAt := func(t time.Time) string { return fmt.Sprintf("%d %d * * *", t.Minute(), t.Hour()) }
		createNodeClass("window", "1.36")
		createNodePool("window", func(np *karpv1.NodePool) {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
			// Disruption is blocked for 23h a day from an hour ago: the one-hour maintenance
			// window opens in 22h.
			np.Spec.Disruption.Budgets = []karpv1.Budget{
				{Nodes: "100%"},
				{Nodes: "0", Schedule: new(cronAt(now.Add(-time.Hour))), Duration: &metav1.Duration{Duration: 23 * time.Hour}},
			}
		})
		a := launchNode("window", "m2a.large", "720h") // the active block keeps it while it is empty
		actors.deploy("web", 1, podTemplate("500m", onPool("window")))
		Eventually(allBound("web", 1, a)).Should(Succeed())

		updatePool("window", func(np *karpv1.NodePool) { np.Spec.Template.Labels["pool"] = "window-v2" })
		Eventually(func(g Gomega) {
			nodeClaim, err := getClaim(a)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted)).To(BeTrue())
		}).Should(Succeed())
		Eventually(env.Recorder.NotesOf("window", disruption.EventDisruptionBlocked)).Should(ContainElement(
			ContainSubstring(`no Drifted disruptions allowed: budget 1 (nodes: "0", schedule "` + cronAt(now.Add(-time.Hour)) + `" for 23h0m0s) allows 0 of 1 nodes`)))
		Consistently(untouched(a), "3s").Should(Succeed())

		By("moving the window so that it is open now")
		updatePool("window", func(np *karpv1.NodePool) {
			np.Spec.Disruption.Budgets[1].Schedule = new(cronAt(time.Now().UTC().Add(2 * time.Minute)))
		})
		Eventually(gone(a)).Should(Succeed())
		Eventually(allBound("web", 1)).Should(Succeed())
	})

	It("removes a karpenter.sh/disrupted taint an earlier leader left, on a new leader's first pass", func() {
		createNodeClass("stale-taint", "1.36")
		createNodePool("stale-taint", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = blockAll })
		name := launchNode("stale-taint", "m2a.large", "720h")
		nodeClaim, err := getClaim(name)
		Expect(err).NotTo(HaveOccurred())
		node := &corev1.Node{}
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKey{Name: nodeClaim.Status.NodeName}, node)).To(Succeed())
		stored := node.DeepCopy()
		node.Spec.Taints = append(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
		Expect(env.APIClient.Patch(env.Ctx, node, client.MergeFrom(stored))).To(Succeed())

		// The suite's loop has passed before and waits StaleTaintGrace; a new leader's loop,
		// whose first pass this is, knows the taint cannot be its own.
		Eventually(func(g Gomega) []corev1.Taint {
			cached := &corev1.Node{}
			g.Expect(env.Manager.GetClient().Get(env.Ctx, client.ObjectKeyFromObject(node), cached)).To(Succeed())
			return cached.Spec.Taints
		}).Should(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)), "the loop's cache shows the taint")
		Expect(env.Controllers().Disruption.Pass(env.Ctx)).To(Succeed())
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(node), node)).To(Succeed())
		Expect(node.Spec.Taints).NotTo(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)), "the first pass removes the taint")
	})

	It("taints a command's nodes from the copies it was decided on, keeping what changed on them since", func() {
		create := func(name string) *corev1.Node {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: test.RandomName(name)}}
			Expect(env.APIClient.Create(env.Ctx, node)).To(Succeed())
			return node.DeepCopy()
		}
		otherTaint := corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoSchedule}
		current := create("copy-current")
		changed := create("copy-changed")
		untainted := create("copy-untainted")

		By("changing two nodes after the copies were read: a label and a taint on one, the disrupted taint taken off the other")
		stale := changed.DeepCopy()
		changed.Labels = map[string]string{"example.com/changed": "true"}
		changed.Spec.Taints = []corev1.Taint{otherTaint}
		Expect(env.APIClient.Update(env.Ctx, changed)).To(Succeed())
		untainted.Spec.Taints = []corev1.Taint{karpv1.DisruptedNoScheduleTaint}
		Expect(env.APIClient.Update(env.Ctx, untainted)).To(Succeed())
		believed := untainted.DeepCopy() // the copy says tainted, the API server will not
		untainted.Spec.Taints = nil
		Expect(env.APIClient.Update(env.Ctx, untainted)).To(Succeed())

		Expect(disruption.TaintNodes(env.Ctx, env.APIClient, env.APIClient, current, stale, believed)).To(Succeed())
		for _, node := range []*corev1.Node{current, changed, untainted} {
			Expect(env.APIClient.Get(env.Ctx, client.ObjectKeyFromObject(node), node)).To(Succeed())
			Expect(node.Spec.Taints).To(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)), node.Name)
		}
		Expect(changed.Spec.Taints).To(ContainElement(otherTaint), "the taint added after the copy was read stays")
		Expect(changed.Labels).To(HaveKeyWithValue("example.com/changed", "true"))
		Expect(untainted.Spec.Taints).To(HaveLen(1), "a copy that needs no change is not believed: the node is tainted once")
		for _, node := range []*corev1.Node{current, changed, untainted} {
			Expect(env.APIClient.Delete(env.Ctx, node)).To(Succeed())
		}
	})

	It("rolls a command back when its replacement fails to come up, and tries again", func() {
		createNodeClass("rollback", "1.36")
		createNodePool("rollback", func(np *karpv1.NodePool) {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
			np.Spec.Disruption.Budgets = blockAll
		})
		a := launchNode("rollback", "m2a.large", "720h")
		actors.deploy("web", 1, podTemplate("500m", onPool("rollback")))
		Eventually(allBound("web", 1, a)).Should(Succeed())
		updatePool("rollback", func(np *karpv1.NodePool) { np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}} })
		failures := test.MetricValue("karpenter_voluntary_disruption_queue_failures_total", map[string]string{"reason": "drifted"})

		By("drifting the node while new VMs never boot")
		actors.unbooted.Store(true)
		updatePool("rollback", func(np *karpv1.NodePool) { np.Spec.Template.Labels["pool"] = "rollback-v2" })
		var replacement string
		Eventually(func(g Gomega) {
			for _, c := range claimsOf("rollback")(g) {
				if c.Name != a {
					replacement = c.Name
				}
			}
			g.Expect(replacement).NotTo(BeEmpty())
		}).Should(Succeed())
		nodeClaim, err := getClaim(a)
		Expect(err).NotTo(HaveOccurred())
		node := &corev1.Node{}
		Expect(env.APIClient.Get(env.Ctx, client.ObjectKey{Name: nodeClaim.Status.NodeName}, node)).To(Succeed())
		Expect(node.Spec.Taints).To(ContainElement(HaveField("Key", karpv1.DisruptedNoScheduleTaint.Key)), "tainted before its replacement launches")
		Expect(meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason)).To(HaveField("Reason", "Drifted"))
		Eventually(env.Recorder.NotesOf(replacement, disruption.EventDisruptionWaitingReadiness)).Should(ContainElement("Waiting on readiness to continue disruption"),
			"the replacement says what the command waits for")

		By("failing the replacement (as liveness deletes a NodeClaim whose node never registers)")
		Expect(env.APIClient.Delete(env.Ctx, &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: replacement}})).To(Succeed())
		Eventually(env.Recorder.NotesOf(a, disruption.EventDisruptionFailed)).Should(ContainElement(ContainSubstring("abandoned and rolled back: replacement nodeclaim " + replacement)))
		Expect(test.MetricValue("karpenter_voluntary_disruption_queue_failures_total", map[string]string{"reason": "drifted"})).To(BeNumerically(">", failures))
		nodeClaim, err = getClaim(a)
		Expect(err).NotTo(HaveOccurred())
		Expect(nodeClaim.DeletionTimestamp).To(BeNil(), "the node stays when its replacement failed")
		allBound("web", 1, a)(Default) // its pod never moved

		By("letting VMs boot again: the next attempt replaces it")
		actors.unbooted.Store(false)
		Eventually(gone(a)).Should(Succeed())
		Eventually(allBound("web", 1)).Should(Succeed())
	})

	It("drifts the nodes of a NodePool whose template label changes, and replaces them", func() {
		createNodeClass("labels", "1.36")
		createNodePool("labels", func(np *karpv1.NodePool) {
			np.Spec.Template.Labels["team"] = "checkout"
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
		})
		actors.deploy("web", 1, podTemplate("500m", onPool("labels")))
		Eventually(func(g Gomega) {
			g.Expect(claimsOf("labels")(g)).To(HaveLen(1))
			allBound("web", 1)(g)
		}).Should(Succeed())
		old := claimsOf("labels")(Default)[0].Name

		updatePool("labels", func(np *karpv1.NodePool) { np.Spec.Template.Labels["team"] = "payments" })
		Eventually(env.Recorder.NotesOf(old, nodeclaimdisruption.EventDriftDetected)).Should(ContainElement(ContainSubstring("NodePoolDrifted: NodePool labels's template changed")))
		Eventually(gone(old)).Should(Succeed())
		claims := claimsOf("labels")(Default)
		Expect(claims).To(HaveLen(1))
		Expect(claims[0].Labels).To(HaveKeyWithValue("team", "payments"))
		Eventually(allBound("web", 1, claims[0].Name)).Should(Succeed())
	})
})
