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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

var _ = Describe("Scheduling", func() {
	It("counts the pods of a zone-spread app running on a node Karpenter does not manage, and launches for the new replicas in one round", func() {
		By("adding a node of the managed node group in kr-central-2-a, full with two pods of the app")
		group := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "node-group-a-1",
				Labels: map[string]string{corev1.LabelHostname: "node-group-a-1", corev1.LabelTopologyZone: "kr-central-2-a", "example.com/node-group": "system",
					corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64"},
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
			Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
			},
		}
		Expect(kube.Create(ctx, group)).To(Succeed())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(kube.Delete(ctx, group))).To(Succeed())
			Eventually(func() error { return kube.Get(ctx, client.ObjectKeyFromObject(group), &corev1.Node{}) }).ShouldNot(Succeed())
		})
		spread := func(p *corev1.PodSpec) {
			p.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "zonal"}}}}
		}
		var old []*corev1.Pod
		for i := range 2 {
			tpl := podTemplate("zonal", "1400m")
			tpl.Labels["role"] = "old"
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("zonal-old-%d", i), Namespace: namespace, Labels: tpl.Labels}, Spec: tpl.Spec}
			pod.Spec.NodeSelector = map[string]string{"example.com/node-group": "system"}
			spread(&pod.Spec)
			Expect(kube.Create(ctx, pod)).To(Succeed())
			old = append(old, pod)
		}
		deleteOld := func() {
			for _, p := range old {
				Expect(client.IgnoreNotFound(kube.Delete(ctx, p, client.GracePeriodSeconds(0)))).To(Succeed())
			}
		}
		Eventually(func(g Gomega) int { return running(podsOf("zonal")(g)) }).Should(Equal(2), "both pods run on the node group's node")

		By("scaling a deployment of the same app, spread over zones a and b, to 4")
		createPoolOf("zonal", func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}, {Name: "karpenter-subnet-b"}}
		}, func(p *karpv1.NodePool) {
			// Two-vCPU nodes hold one replica each: a node too many in a zone cannot hide a
			// wrong count.
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		tpl := podTemplate("zonal", "1")
		tpl.Labels["role"] = "new"
		// No node selector: the spread then counts the node group's node too (nodeAffinityPolicy
		// Honor), which has no room left for them.
		spread(&tpl.Spec)
		start := time.Now()
		d := createDeployment("zonal", 4, tpl)
		DeferCleanup(deleteOld) // first: the deployment's clean-up waits for every pod of the app
		Expect(d.Spec.Selector.MatchLabels).To(HaveKeyWithValue("role", "new"))

		// With the node group's two pods in a, six pods over two zones with skew 1 is three
		// in each: the new replicas need three places in b and one in a.
		Eventually(func(g Gomega) int { return running(podsOf("zonal")(g)) }).Should(Equal(6), "all replicas Running")
		fmt.Fprintf(GinkgoWriter, "all 4 new replicas Running %.1f s after the deployment was created\n", time.Since(start).Seconds())
		perZone := map[string]int{}
		nodeZone := map[string]string{}
		nodes := &corev1.NodeList{}
		Expect(kube.List(ctx, nodes)).To(Succeed())
		for _, n := range nodes.Items {
			nodeZone[n.Name] = n.Labels[corev1.LabelTopologyZone]
		}
		for _, p := range podsOf("zonal")(Default) {
			perZone[nodeZone[p.Spec.NodeName]]++
		}
		Expect(perZone).To(Equal(map[string]int{"kr-central-2-a": 3, "kr-central-2-b": 3}))

		claims := claimsOf("zonal")(Default)
		Expect(claims).NotTo(BeEmpty())
		first, last := claims[0].CreationTimestamp.Time, claims[0].CreationTimestamp.Time
		for _, c := range claims {
			first, last = minTime(first, c.CreationTimestamp.Time), maxTime(last, c.CreationTimestamp.Time)
		}
		fmt.Fprintf(GinkgoWriter, "%d NodeClaims: %v, created within %s\n", len(claims), instanceTypes(claims), last.Sub(first))
		// One provisioning pass creates all its NodeClaims at once; a second round would come
		// after the kube-scheduler found the first round's nodes wanting, seconds later.
		Expect(last.Sub(first)).To(BeNumerically("<=", 2*time.Second), "every NodeClaim comes from the first provisioning pass")
		Consistently(func(g Gomega) int { return len(claimsOf("zonal")(g)) }, "5s").Should(Equal(len(claims)), "no later round of launches")
	})
})

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
