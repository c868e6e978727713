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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

var _ = Describe("Static NodePools", func() {
	It("keeps spec.replicas nodes through kubectl scale, within limits.nodes, never consolidates them, and scales down its emptiest nodes first", func() {
		createPool("static", func(p *karpv1.NodePool) {
			p.Spec.Replicas = new(int64(2))
			p.Spec.Limits = karpv1.Limits{karpv1.ResourceNodes: resource.MustParse("3")}
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements,
				requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
			// Consolidation as eager as it gets: a dynamic NodePool's empty nodes would go at once.
			p.Spec.Disruption = karpv1.Disruption{
				ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter:    karpv1.MustParseNillableDuration("0s"),
				Budgets:             []karpv1.Budget{{Nodes: "100%"}},
			}
		})
		// Registered after createPool's cleanup, so it runs before: deleting the NodeClaims of a
		// static NodePool that still wants 2 would only have them replaced.
		DeferCleanup(func() {
			out, err := kubectl("scale", "nodepool", "static", "--replicas=0")
			Expect(err).NotTo(HaveOccurred(), out)
			Eventually(claimsOf("static")).Should(BeEmpty())
		})
		readyNodes := func(g Gomega) int {
			n := 0
			for _, node := range nodesOf("static")(g) {
				if ready(node) && node.DeletionTimestamp.IsZero() {
					n++
				}
			}
			return n
		}
		By("launching 2 nodes with no pod asking for them")
		Eventually(readyNodes).Should(Equal(2))
		Eventually(func(g Gomega) *int64 {
			pool := &karpv1.NodePool{}
			g.Expect(kube.Get(ctx, client.ObjectKey{Name: "static"}, pool)).To(Succeed())
			return pool.Status.Nodes
		}).Should(HaveValue(BeEquivalentTo(2)))
		By("keeping its empty nodes: consolidation leaves static NodePools alone")
		Consistently(func(g Gomega) []string { return claimNames(claimsOf("static")(g)) }, 25*time.Second).Should(HaveLen(2))

		By("kubectl scale nodepool static --replicas=5: limits.nodes stops it at 3")
		out, err := kubectl("scale", "nodepool", "static", "--replicas=5")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(readyNodes).Should(Equal(3))
		Eventually(eventNotes("static", "ScaleUpWaiting")).Should(ContainElement(ContainSubstring("3 of 5 replicas: limits.nodes (3) allows no more")))
		Consistently(func(g Gomega) []string { return claimNames(claimsOf("static")(g)) }, 10*time.Second).Should(HaveLen(3))

		By("running a pod on one of its nodes, then scaling to 1: the pod's node is the one kept")
		template := poolPod("static", "static", "1")
		createDeployment("static", 1, template)
		var pod corev1.Pod
		Eventually(func(g Gomega) {
			pods := podsOf("static")(g)
			g.Expect(running(pods)).To(Equal(1))
			pod = pods[0]
		}).Should(Succeed())
		out, err = kubectl("scale", "nodepool", "static", "--replicas=1")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(eventNotes("static", "ScaledDown")).Should(ContainElement(ContainSubstring("deleting 2 NodeClaims to come down to 1 replicas")))
		Eventually(func(g Gomega) []string {
			var names []string
			for _, node := range nodesOf("static")(g) {
				names = append(names, node.Name)
			}
			return names
		}).Should(ConsistOf(pod.Spec.NodeName))
		Eventually(claimsOf("static")).Should(HaveLen(1))
		pods := podsOf("static")(Default)
		Expect(pods).To(HaveLen(1))
		Expect(pods[0].UID).To(Equal(pod.UID), "the pod was not moved: its node is the one kept")
		Expect(running(pods)).To(Equal(1))
	})
})
