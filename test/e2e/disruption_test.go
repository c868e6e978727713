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
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

var _ = Describe("Disruption", func() {
	It("removes every node of a deployment scaled to 0 by emptiness consolidation, and their VMs", func() {
		// Nine one-CPU pods need several nodes.
		createPool("consolidate", fourCPUNodes(karpv1.Disruption{
			ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmpty,
			ConsolidateAfter:    karpv1.MustParseNillableDuration("10s"),
			Budgets:             []karpv1.Budget{{Nodes: "100%"}},
		}))
		By("scaling inflate to 9 one-CPU pods")
		createDeployment("consolidate", 0, poolPod("consolidate", "consolidate", "1"))
		out, err := kubectl("-n", namespace, "scale", "deployment", "consolidate", "--replicas=9")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func(g Gomega) int { return running(podsOf("consolidate")(g)) }).Should(Equal(9))

		claims := claimsOf("consolidate")(Default)
		Expect(len(claims)).To(BeNumerically(">=", 3), "9 one-CPU pods on four-CPU nodes: %v", instanceTypes(claims))
		var vmsOfPool []string
		for _, c := range claims {
			vmsOfPool = append(vmsOfPool, strings.TrimPrefix(c.Status.ProviderID, kcv1.ProviderIDPrefix))
		}
		Expect(vmIDs(Default)).To(ContainElements(vmsOfPool))
		fmt.Fprintf(GinkgoWriter, "%d NodeClaims: %v\n", len(claims), instanceTypes(claims))

		By("scaling inflate to 0")
		out, err = kubectl("-n", namespace, "scale", "deployment", "consolidate", "--replicas=0")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(podsOf("consolidate")).Should(BeEmpty())

		Eventually(claimsOf("consolidate")).Should(BeEmpty(), "every NodeClaim removed")
		Eventually(nodesOf("consolidate")).Should(BeEmpty(), "every node removed")
		Eventually(vmIDs).Should(BeEmpty(), "no VM left in the emulator")
		Expect(kube.Get(ctx, client.ObjectKey{Name: "consolidate"}, &karpv1.NodePool{})).To(Succeed(), "the NodePool is still there: consolidation removed the nodes")
		for _, c := range claims {
			Eventually(eventNotes(c.Name, "DisruptionTerminating")).Should(ContainElement(ContainSubstring("Empty (emptiness)")),
				"NodeClaim %s was removed by emptiness", c.Name)
		}
	})

	It("replaces two drifted nodes strictly one after the other with budget nodes: 1 when kubernetesVersion goes from 1.35 to 1.36 (seed 003)", func() {
		createPoolOf("rolling", func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.35"
		}, func(p *karpv1.NodePool) {
			// Two-CPU nodes hold one one-CPU pod each: two pods, two nodes.
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements,
				requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
			p.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
		})
		By("running 2 one-CPU pods on two 1.35 nodes")
		createDeployment("rolling", 2, poolPod("rolling", "rolling", "1"))
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("rolling")(g))).To(Equal(2))
			claims := claimsOf("rolling")(g)
			g.Expect(claims).To(HaveLen(2))
			for _, c := range claims {
				g.Expect(initialized(c)).To(BeTrue(), "NodeClaim %s initialized", c.Name)
			}
		}).Should(Succeed())
		old := claimsOf("rolling")(Default)
		oldClaims := claimNames(old)
		oldNodeClaim := map[types.UID]string{} // node UID -> its NodeClaim
		for _, n := range nodesOf("rolling")(Default) {
			Expect(n.Status.NodeInfo.KubeletVersion).To(HavePrefix("v1.35."), "node %s", n.Name)
			for _, c := range old {
				if c.Status.ProviderID == n.Spec.ProviderID {
					oldNodeClaim[n.UID] = c.Name
				}
			}
		}
		Expect(oldNodeClaim).To(HaveLen(2), "each old NodeClaim has its node")
		By("seeing in the KCNodeClass that the control plane cannot be upgraded yet")
		Eventually(nodeClassUpgradeReadiness("rolling")).Should(SatisfyAll(
			HaveField("Versions", Equal([]kcv1.NodeVersionCount{{Version: "1.35", NodeClaims: 2}})),
			HaveField("Condition.Status", metav1.ConditionFalse),
			HaveField("Condition.Message", ContainSubstring("2 of 2 nodes are not on 1.36")),
		))

		// Node names come from the VMs' addresses and are reused by new VMs: the old nodes are
		// told apart by UID, and by the NodeClaim whose provider id they carry.
		By("sampling the pool while it rolls")
		var mu sync.Mutex
		firstDisrupted, gone := map[string]time.Time{}, map[string]time.Time{}
		maxDisrupted, maxDisruptedAt := 0, ""
		var running2 []time.Time // when both pods were Running
		stop := sampleEvery(100*time.Millisecond, func(now time.Time) {
			claims, nodes, pods := &karpv1.NodeClaimList{}, &corev1.NodeList{}, &corev1.PodList{}
			if kube.List(ctx, claims, client.MatchingLabels{karpv1.LabelNodePool: "rolling"}) != nil ||
				kube.List(ctx, nodes, client.MatchingLabels{karpv1.LabelNodePool: "rolling"}) != nil ||
				kube.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels{"app": "rolling"}) != nil {
				return
			}
			present, hit := map[string]bool{}, map[string]bool{}
			for _, c := range claims.Items {
				if !slices.Contains(oldClaims, c.Name) {
					continue
				}
				present[c.Name] = true
				if !c.DeletionTimestamp.IsZero() || meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeDisruptionReason) {
					hit[c.Name] = true
				}
			}
			for _, n := range nodes.Items {
				if name, ok := oldNodeClaim[n.UID]; ok {
					present[name] = true
					if disrupted(n) {
						hit[name] = true
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for name := range hit {
				if _, ok := firstDisrupted[name]; !ok {
					firstDisrupted[name] = now
				}
			}
			if len(hit) > maxDisrupted {
				maxDisrupted, maxDisruptedAt = len(hit), fmt.Sprintf("%s: %v", now.Format(time.StampMilli), hit)
			}
			for _, name := range oldClaims {
				if _, ok := gone[name]; !ok && !present[name] {
					gone[name] = now
				}
			}
			if running(pods.Items) == 2 {
				running2 = append(running2, now)
			}
		})
		DeferCleanup(stop)

		By("changing the KCNodeClass's kubernetesVersion to 1.36")
		update(&kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "rolling"}}, func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36"
		})
		for _, name := range oldClaims {
			Eventually(eventNotes(name, "DriftDetected")).Should(ContainElement(ContainSubstring("KubernetesVersionDrift")), "NodeClaim %s drifted", name)
		}

		Eventually(func(g Gomega) {
			claims := claimsOf("rolling")(g)
			g.Expect(claimNames(claims)).NotTo(ContainElement(BeElementOf(oldClaims)), "the old NodeClaims are gone")
			g.Expect(claims).To(HaveLen(2))
			for _, c := range claims {
				g.Expect(initialized(c)).To(BeTrue(), "NodeClaim %s initialized", c.Name)
			}
			nodes := nodesOf("rolling")(g)
			g.Expect(nodes).To(HaveLen(2))
			names := map[string]bool{}
			for _, n := range nodes {
				g.Expect(oldNodeClaim).NotTo(HaveKey(n.UID), "node %s is new", n.Name)
				g.Expect(ready(n)).To(BeTrue(), "node %s Ready", n.Name)
				g.Expect(disrupted(n)).To(BeFalse(), "node %s is not disrupted", n.Name)
				g.Expect(n.Status.NodeInfo.KubeletVersion).To(HavePrefix("v1.36."), "node %s", n.Name)
				names[n.Name] = true
			}
			pods := podsOf("rolling")(g)
			g.Expect(running(pods)).To(Equal(2))
			for _, p := range pods {
				g.Expect(names).To(HaveKey(p.Spec.NodeName), "pod %s runs on a new node", p.Name)
			}
		}, 8*time.Minute, time.Second).Should(Succeed())
		stop()
		Eventually(nodeClassUpgradeReadiness("rolling")).Should(SatisfyAll(
			HaveField("Versions", Equal([]kcv1.NodeVersionCount{{Version: "1.36", NodeClaims: 2}})),
			HaveField("Condition.Status", metav1.ConditionTrue),
		), "every node on the control plane's minor: the control plane may be upgraded")

		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(GinkgoWriter, "disrupted first at %v, gone at %v\n", firstDisrupted, gone)
		Expect(maxDisrupted).To(Equal(1), "at most one old node disrupted at a time (most seen: %s)", maxDisruptedAt)
		Expect(firstDisrupted).To(HaveLen(2), "both old nodes were seen disrupted")
		Expect(gone).To(HaveLen(2), "both old nodes were seen gone")
		first, second := oldClaims[0], oldClaims[1]
		if firstDisrupted[second].Before(firstDisrupted[first]) {
			first, second = second, first
		}
		Expect(firstDisrupted[second]).To(BeTemporally(">=", gone[first]),
			"%s was disrupted only once %s was gone", second, first)
		Expect(running2).To(ContainElement(BeTemporally(">", gone[first])), "both pods ran again after the first replacement")
		Expect(slices.ContainsFunc(running2, func(t time.Time) bool { return t.After(gone[first]) && t.Before(gone[second]) })).
			To(BeTrue(), "both pods ran between the first replacement and the second")
	})

	It("holds drift while a PodDisruptionBudget allows no disruption, and replaces the node once it is deleted", func() {
		createPool("guarded", nil)
		createDeployment("guarded", 1, poolPod("guarded", "guarded", "1"))
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: namespace},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: new(intstr.FromInt32(0)),
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}},
			},
		}
		Expect(kube.Create(ctx, pdb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pdb))).To(Succeed()) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("guarded")(g))).To(Equal(1))
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(pdb), pdb)).To(Succeed())
			g.Expect(pdb.Status.ObservedGeneration).To(Equal(pdb.Generation))
			g.Expect(pdb.Status.ExpectedPods).To(BeEquivalentTo(1))
			g.Expect(pdb.Status.DisruptionsAllowed).To(BeZero())
		}).Should(Succeed())
		claims := claimsOf("guarded")(Default)
		Expect(claims).To(HaveLen(1))
		claim := claims[0]
		nodes := nodesOf("guarded")(Default)
		Expect(nodes).To(HaveLen(1))
		node := nodes[0]

		By("changing the NodePool's template labels: the node drifts")
		update(&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "guarded"}}, func(p *karpv1.NodePool) {
			p.Spec.Template.Labels = map[string]string{"revision": "2"}
		})
		Eventually(func(g Gomega) {
			c := &karpv1.NodeClaim{}
			g.Expect(kube.Get(ctx, client.ObjectKey{Name: claim.Name}, c)).To(Succeed())
			drifted := meta.FindStatusCondition(c.Status.Conditions, karpv1.ConditionTypeDrifted)
			g.Expect(drifted).NotTo(BeNil())
			g.Expect(drifted.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(drifted.Reason).To(Equal("NodePoolDrifted"))
		}).Should(Succeed())

		blocked := ContainElement(MatchRegexp(`PodDisruptionBudget default/guarded allows no disruption of pod default/guarded-\S+ now`))
		Eventually(eventNotes(claim.Name, "DisruptionBlocked")).Should(blocked, "the NodeClaim's event names the PodDisruptionBudget")
		Eventually(eventNotes(node.Name, "DisruptionBlocked")).Should(blocked, "the node's event names the PodDisruptionBudget")
		By("checking that the node stays through several disruption passes")
		Consistently(func(g Gomega) {
			c := &karpv1.NodeClaim{}
			g.Expect(kube.Get(ctx, client.ObjectKey{Name: claim.Name}, c)).To(Succeed())
			g.Expect(c.DeletionTimestamp.IsZero()).To(BeTrue(), "NodeClaim not deleted")
			g.Expect(meta.FindStatusCondition(c.Status.Conditions, karpv1.ConditionTypeDisruptionReason)).To(BeNil(), "no disruption under way")
			g.Expect(claimsOf("guarded")(g)).To(HaveLen(1), "no replacement launched")
			n := &corev1.Node{}
			g.Expect(kube.Get(ctx, client.ObjectKey{Name: node.Name}, n)).To(Succeed())
			g.Expect(n.UID).To(Equal(node.UID))
			g.Expect(disrupted(*n)).To(BeFalse(), "node %s not tainted %s", n.Name, karpv1.DisruptedNoScheduleTaint.Key)
			g.Expect(running(podsOf("guarded")(g))).To(Equal(1))
		}, 25*time.Second, time.Second).Should(Succeed())

		By("deleting the PodDisruptionBudget")
		Expect(kube.Delete(ctx, pdb)).To(Succeed())
		Eventually(func(g Gomega) {
			claims := claimsOf("guarded")(g)
			g.Expect(claimNames(claims)).To(ConsistOf(Not(Equal(claim.Name))), "one NodeClaim, not the drifted one")
			g.Expect(initialized(claims[0])).To(BeTrue())
			nodes := nodesOf("guarded")(g)
			g.Expect(nodes).To(HaveLen(1))
			g.Expect(nodes[0].UID).NotTo(Equal(node.UID))
			g.Expect(nodes[0].Labels).To(HaveKeyWithValue("revision", "2"))
			pods := podsOf("guarded")(g)
			g.Expect(running(pods)).To(Equal(1))
			g.Expect(pods[0].Spec.NodeName).To(Equal(nodes[0].Name))
		}, 4*time.Minute).Should(Succeed())
	})

	It("replaces an expired node although its pod is annotated karpenter.sh/do-not-disrupt, once its terminationGracePeriod is up", func() {
		const expireAfter = 40 * time.Second
		createPool("expiring", func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration(expireAfter.String())
			// The drain holds a do-not-disrupt pod until this deadline, as upstream does.
			p.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 20 * time.Second}
		})
		template := poolPod("expiring", "expiring", "1")
		template.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
		createDeployment("expiring", 1, template)
		Eventually(func(g Gomega) { g.Expect(running(podsOf("expiring")(g))).To(Equal(1)) }).Should(Succeed())
		claims := claimsOf("expiring")(Default)
		Expect(claims).To(HaveLen(1))
		claim := claims[0]
		Expect(claim.Spec.ExpireAfter.Duration).To(HaveValue(Equal(expireAfter)))
		pod := podsOf("expiring")(Default)[0]
		nodes := nodesOf("expiring")(Default)
		Expect(nodes).To(HaveLen(1))
		node := nodes[0]

		By("waiting for expireAfter to elapse")
		Eventually(func(g Gomega) {
			g.Expect(claimNames(claimsOf("expiring")(g))).NotTo(ContainElement(claim.Name))
		}, expireAfter+3*time.Minute).Should(Succeed(), "the expired NodeClaim is deleted")
		Expect(time.Since(claim.CreationTimestamp.Time)).To(BeNumerically(">=", expireAfter), "not before expireAfter")
		Eventually(eventNotes(claim.Name, "Expired")).Should(ContainElement(ContainSubstring("expireAfter (40s) has elapsed")))

		Eventually(func(g Gomega) {
			claims := claimsOf("expiring")(g)
			g.Expect(claims).NotTo(BeEmpty(), "a new NodeClaim launched for the pod")
			nodes := map[string]types.UID{}
			for _, n := range nodesOf("expiring")(g) {
				nodes[n.Name] = n.UID
			}
			pods := podsOf("expiring")(g)
			g.Expect(running(pods)).To(Equal(1))
			g.Expect(pods[0].UID).NotTo(Equal(pod.UID), "the do-not-disrupt pod was evicted and replaced")
			g.Expect(pods[0].Annotations).To(HaveKeyWithValue(karpv1.DoNotDisruptAnnotationKey, "true"))
			g.Expect(nodes).To(HaveKey(pods[0].Spec.NodeName))
			g.Expect(nodes[pods[0].Spec.NodeName]).NotTo(Equal(node.UID), "the pod runs on a new node")
		}, 3*time.Minute).Should(Succeed())
	})
	It("launches one NodeClaim for the six pods of a deleted NodeClaim that a PodDisruptionBudget lets go one at a time, when the deletion starts, and gives its node the template's annotations", func() {
		// Eight-CPU nodes at first, so that the six pods share one node; then any size, so that
		// a node launched for one evicted pod at a time would be a small one for each.
		createPool("evacuate", func(p *karpv1.NodePool) {
			p.Spec.Template.Annotations = map[string]string{"example.com/owner": "payments"}
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "8"))
		})
		createDeployment("evacuate", 6, poolPod("evacuate", "evacuate", "1"))
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "evacuate", Namespace: namespace},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: new(intstr.FromInt32(1)),
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "evacuate"}},
			},
		}
		Expect(kube.Create(ctx, pdb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pdb))).To(Succeed()) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("evacuate")(g))).To(Equal(6))
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(pdb), pdb)).To(Succeed())
			g.Expect(pdb.Status.ObservedGeneration).To(Equal(pdb.Generation))
			g.Expect(pdb.Status.DisruptionsAllowed).To(BeEquivalentTo(1))
		}).Should(Succeed())
		claims := claimsOf("evacuate")(Default)
		Expect(claims).To(HaveLen(1), "six 1-CPU pods on one 8-CPU node")
		old := claims[0]
		nodes := nodesOf("evacuate")(Default)
		Expect(nodes).To(HaveLen(1))
		Expect(nodes[0].Annotations).To(HaveKeyWithValue("example.com/owner", "payments"), "the template's annotation is on the node")
		update(&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "evacuate"}}, func(p *karpv1.NodePool) {
			p.Spec.Template.Spec.Requirements = p.Spec.Template.Spec.Requirements[:1]
		})

		By("deleting the NodeClaim: one NodeClaim opens for all six pods before they go")
		var mu sync.Mutex
		launched := map[string]bool{}
		onOldAtLaunch := -1
		stop := sampleEvery(250*time.Millisecond, func(time.Time) {
			list := &karpv1.NodeClaimList{}
			pods := &corev1.PodList{}
			if kube.List(ctx, list, client.MatchingLabels{karpv1.LabelNodePool: "evacuate"}) != nil ||
				kube.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels{"app": "evacuate"}) != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range list.Items {
				if c.Name != old.Name && !launched[c.Name] {
					launched[c.Name] = true
					if onOldAtLaunch < 0 {
						onOldAtLaunch = 0
						for _, p := range pods.Items {
							if p.Spec.NodeName == old.Status.NodeName && p.DeletionTimestamp.IsZero() {
								onOldAtLaunch++
							}
						}
					}
				}
			}
		})
		DeferCleanup(stop)
		Expect(kube.Delete(ctx, &old)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(&old), &karpv1.NodeClaim{})).NotTo(Succeed(), "the old NodeClaim is gone")
			pods := podsOf("evacuate")(g)
			g.Expect(running(pods)).To(Equal(6))
			nodes := nodesOf("evacuate")(g)
			g.Expect(nodes).To(HaveLen(1))
			g.Expect(nodes[0].Name).NotTo(Equal(old.Status.NodeName))
			g.Expect(nodes[0].Annotations).To(HaveKeyWithValue("example.com/owner", "payments"))
		}, 4*time.Minute).Should(Succeed())
		stop()
		mu.Lock()
		defer mu.Unlock()
		Expect(launched).To(HaveLen(1), "one NodeClaim for the six pods, not one per evicted pod")
		Expect(onOldAtLaunch).To(BeNumerically(">=", 5), "it was opened when the deletion started, with at most one pod evicted")
	})
})
