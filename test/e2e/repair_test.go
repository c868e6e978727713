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
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

var _ = Describe("Node repair", func() {
	It("holds repair while more nodes than repair.maxUnhealthy are down, then replaces them one at a time within the Unhealthy budget, each replacement first, past their PodDisruptionBudget, not a node annotated do-not-repair", func() {
		// The toleration of a failed VM is 10 minutes by default; the spec runs the operator
		// with 10 s. The emulator's stand-in kubelet stops with the VM and turns the node's
		// Ready condition Unknown, as the node lifecycle controller would once the kubelet's
		// lease ran out.
		for _, pid := range operatorPIDs() {
			killOperator(pid)
		}
		startOperator(1, "--repair-instance-failed-toleration=10s")
		DeferCleanup(restoreOperator)

		createPool("repair", func(p *karpv1.NodePool) {
			// Four-CPU nodes hold one three-CPU pod each: three pods, three nodes.
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements,
				requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "4"))
			p.Spec.Disruption.Repair = &karpv1.Repair{MaxUnhealthy: "1"}
			p.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnhealthy}}}
		})
		By("running three three-CPU pods, one a node, under a PodDisruptionBudget that allows no eviction")
		createDeployment("repair", 3, poolPod("repair", "repair", "3"))
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "repair", Namespace: namespace},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: new(intstr.FromInt32(0)),
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "repair"}},
			},
		}
		Expect(kube.Create(ctx, pdb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pdb))).To(Succeed()) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("repair")(g))).To(Equal(3))
			g.Expect(claimsOf("repair")(g)).To(HaveLen(3))
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(pdb), pdb)).To(Succeed())
			g.Expect(pdb.Status.ObservedGeneration).To(Equal(pdb.Generation))
			g.Expect(pdb.Status.DisruptionsAllowed).To(BeZero())
		}).Should(Succeed())

		By("putting two of the three VMs in error, as a host failure would")
		claims := claimsOf("repair")(Default)
		failed := claims[:2]
		for _, c := range failed {
			emulatorAdmin("POST", "/instance-state", emulator.AdminInstanceState{
				ID: strings.TrimPrefix(c.Status.ProviderID, kcv1.ProviderIDPrefix), Status: kakaocloud.InstanceStatusError,
			})
		}
		By("seeing repair held: 2 of 3 nodes are unhealthy, more than repair.maxUnhealthy 1")
		for _, c := range failed {
			Eventually(eventNotes(c.Name, "NodeRepairBlocked"), 3*time.Minute).Should(ContainElement(
				ContainSubstring("2 of the 3 nodes of NodePool repair are unhealthy, more than its repair.maxUnhealthy (1, 1 nodes) allows")),
				"NodeClaim %s: repair held", c.Name)
		}
		// The tolerations are over by now (the blocked event comes once a node is unhealthy;
		// 10 s later it could be repaired): a repair that did not hold would delete them.
		Consistently(func(g Gomega) []string {
			var deleting []string
			for _, c := range claimsOf("repair")(g) {
				if !c.DeletionTimestamp.IsZero() {
					deleting = append(deleting, c.Name)
				}
			}
			return deleting
		}, 20*time.Second).Should(BeEmpty(), "no NodeClaim is deleted while repair is held")

		By("annotating the second failed node karpenter.sh/do-not-repair, then raising repair.maxUnhealthy to 2")
		vetoed := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: failed[1].Status.NodeName}}
		update(vetoed, func(n *corev1.Node) {
			metav1.SetMetaDataAnnotation(&n.ObjectMeta, karpv1.DoNotRepairAnnotationKey, "true")
		})
		// Sampled throughout: how many failed NodeClaims were deleting at once, and whether a
		// replacement was initialized when each began to go.
		var mu sync.Mutex
		mostDeleting := 0
		replacedFirst := map[string]bool{}
		stop := sampleEvery(250*time.Millisecond, func(time.Time) {
			list := &karpv1.NodeClaimList{}
			if kube.List(ctx, list, client.MatchingLabels{karpv1.LabelNodePool: "repair"}) != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			deleting, replacements := 0, 0
			for _, c := range list.Items {
				if !slices.Contains(claimNames(claims), c.Name) && initialized(c) {
					replacements++
				}
			}
			for _, c := range list.Items {
				if slices.Contains(claimNames(failed), c.Name) && !c.DeletionTimestamp.IsZero() {
					deleting++
					if _, seen := replacedFirst[c.Name]; !seen {
						// Each failed node has its own replacement: the first repair needs one,
						// the second two.
						replacedFirst[c.Name] = replacements >= len(replacedFirst)+1
					}
				}
			}
			mostDeleting = max(mostDeleting, deleting)
		})
		DeferCleanup(stop)
		pool := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "repair"}}
		update(pool, func(p *karpv1.NodePool) { p.Spec.Disruption.Repair.MaxUnhealthy = "2" })
		Eventually(eventNotes(failed[0].Name, "NodeRepair")).Should(ContainElement(SatisfyAll(
			ContainSubstring("KakaoCloud reports its VM error"),
			ContainSubstring("replacement(s) are launched and initialized first"),
			ContainSubstring("deleted without waiting on evictions, PodDisruptionBudgets"),
		)), "NodeClaim %s repaired", failed[0].Name)
		Eventually(eventNotes(failed[1].Name, "DisruptionBlocked")).Should(ContainElement(
			ContainSubstring("repair is blocked through the karpenter.sh/do-not-repair annotation")), "the annotation holds %s", failed[1].Name)
		Eventually(func(g Gomega) {
			names := claimNames(claimsOf("repair")(g))
			g.Expect(names).NotTo(ContainElement(failed[0].Name), "the repaired NodeClaim %s is gone", failed[0].Name)
			g.Expect(names).To(ContainElement(failed[1].Name), "the vetoed NodeClaim %s stays", failed[1].Name)
			g.Expect(running(podsOf("repair")(g))).To(BeNumerically(">=", 2))
		}).Should(Succeed())

		By("removing the annotation: the second node is repaired too")
		update(vetoed, func(n *corev1.Node) { delete(n.Annotations, karpv1.DoNotRepairAnnotationKey) })
		Eventually(func(g Gomega) {
			names := claimNames(claimsOf("repair")(g))
			g.Expect(names).To(HaveLen(3))
			for _, c := range failed {
				g.Expect(names).NotTo(ContainElement(c.Name), "the repaired NodeClaim %s is gone", c.Name)
			}
			g.Expect(running(podsOf("repair")(g))).To(Equal(3), "the pods run again, on new nodes")
			for _, n := range nodesOf("repair")(g) {
				g.Expect(ready(n)).To(BeTrue(), "node %s Ready", n.Name)
			}
		}, 3*time.Minute).Should(Succeed())
		stop()
		mu.Lock()
		Expect(mostDeleting).To(Equal(1), "the Unhealthy budget of 1 repairs one node at a time")
		Expect(replacedFirst).To(HaveLen(2))
		for name, first := range replacedFirst {
			Expect(first).To(BeTrue(), "a replacement of %s was initialized before it began to go", name)
		}
		mu.Unlock()
		Eventually(vmIDs).ShouldNot(ContainElements(
			strings.TrimPrefix(failed[0].Status.ProviderID, kcv1.ProviderIDPrefix),
			strings.TrimPrefix(failed[1].Status.ProviderID, kcv1.ProviderIDPrefix),
		), "the failed VMs are deleted")
		Expect(kube.Get(ctx, client.ObjectKeyFromObject(pdb), pdb)).To(Succeed(), "the PodDisruptionBudget was there throughout")
		Eventually(func(g Gomega) float64 {
			return operatorMetricSum(g, "karpenter_nodeclaims_unhealthy_disrupted_total", `nodepool="repair"`)
		}).Should(BeEquivalentTo(2))
		Eventually(func(g Gomega) float64 {
			return operatorMetricSum(g, "karpenter_nodeclaims_disrupted_total", `nodepool="repair",reason="unhealthy"`)
		}).Should(BeEquivalentTo(2))
	})
})

// operatorMetricSum adds up the operator's samples of the metric whose labels include label
// (as Prometheus prints it, e.g. `nodepool="default"`); 0 when there are none.
func operatorMetricSum(g Gomega, name, label string) float64 {
	g.Expect(cluster.operatorMetrics).NotTo(BeEmpty(), "cluster.env names OPERATOR_METRICS_URL")
	resp, err := http.Get(cluster.operatorMetrics)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	page, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	sum := 0.0
	for line := range strings.SplitSeq(string(page), "\n") {
		labels, rest, ok := strings.Cut(strings.TrimPrefix(line, name+"{"), "} ")
		if !ok || !strings.HasPrefix(line, name+"{") || !strings.Contains(labels, label) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		g.Expect(err).NotTo(HaveOccurred(), "sample %q", line)
		sum += v
	}
	return sum
}
