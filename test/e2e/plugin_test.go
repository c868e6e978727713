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
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/plugin"
)

var _ = Describe("kubectl karpenter", func() {
	It("why pod names the NodePool limit a pending pod waits on", func() {
		createPool("plugin-limited", func(p *karpv1.NodePool) {
			p.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("1")}
		})
		createPoolPod("plugin-limited", "plugin-limited", "2")

		Eventually(func(g Gomega) {
			answer := &plugin.PodAnswer{}
			kubectlKarpenter(g, answer, "why", "pod", namespace+"/plugin-limited")
			g.Expect(answer.RefusedBy).To(ContainElement(HaveField("NodePool", "plugin-limited")))
			for _, r := range answer.RefusedBy {
				if r.NodePool == "plugin-limited" {
					g.Expect(r.Reason).To(Equal("would exceed limits cpu"))
				}
			}
		}).Should(Succeed())
		table := kubectlKarpenterTable(Default, "why", "pod", "plugin-limited", "-n", namespace)
		Expect(table).To(MatchRegexp(`plugin-limited\s+would exceed limits cpu`))
	})

	It("whatif of a KCNodeClass version change names exactly the nodes that drift when it is applied; why node names the PodDisruptionBudget and pod that hold one; why nodepool lists them", func() {
		createPoolOf("plugin-drift", func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.35"
		}, func(p *karpv1.NodePool) {
			// Two-CPU nodes hold one one-CPU pod each: two pods, two nodes.
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements, requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "2"))
		})
		createDeployment("plugin-drift", 2, poolPod("plugin-drift", "plugin-drift", "1"))
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "plugin-drift", Namespace: namespace},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: new(intstr.FromInt32(0)),
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "plugin-drift"}},
			},
		}
		Expect(kube.Create(ctx, pdb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pdb))).To(Succeed()) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("plugin-drift")(g))).To(Equal(2))
			g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(pdb), pdb)).To(Succeed())
			g.Expect(pdb.Status.ExpectedPods).To(BeEquivalentTo(2))
			g.Expect(pdb.Status.DisruptionsAllowed).To(BeZero())
		}).Should(Succeed())
		claims := claimNames(claimsOf("plugin-drift")(Default))
		Expect(claims).To(HaveLen(2))
		// Another class's node, which the change must not name.
		createPool("plugin-other", nil)
		createDeployment("plugin-other", 1, poolPod("plugin-other", "plugin-other", "1"))
		Eventually(func(g Gomega) int { return running(podsOf("plugin-other")(g)) }).Should(Equal(1))

		By("asking what the version change would drift, before applying it")
		nodeClass := &kcv1.KCNodeClass{}
		Expect(kube.Get(ctx, client.ObjectKey{Name: "plugin-drift"}, nodeClass)).To(Succeed())
		edited := &kcv1.KCNodeClass{TypeMeta: metav1.TypeMeta{APIVersion: kcv1.GroupVersion.String(), Kind: "KCNodeClass"},
			ObjectMeta: metav1.ObjectMeta{Name: nodeClass.Name}, Spec: *nodeClass.Spec.DeepCopy()}
		edited.Spec.Bootstrap.KubernetesVersion = "1.36"
		manifest, err := yaml.Marshal(edited)
		Expect(err).NotTo(HaveOccurred())
		file := filepath.Join(GinkgoT().TempDir(), "kcnodeclass.yaml")
		Expect(os.WriteFile(file, manifest, 0o600)).To(Succeed())
		whatif := &plugin.WhatIfAnswer{}
		kubectlKarpenter(Default, whatif, "whatif", "-f", file)
		var predicted []string
		for _, d := range whatif.Drifts {
			predicted = append(predicted, d.NodeClaim)
			Expect(d.Reason).To(Equal("KubernetesVersionDrift"))
		}
		slices.Sort(predicted)
		Expect(predicted).To(Equal(claims), "whatif names the class's two NodeClaims")

		By("applying it: exactly those drift")
		update(&kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "plugin-drift"}}, func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36"
		})
		driftedNow := func(g Gomega) []string {
			list := &karpv1.NodeClaimList{}
			g.Expect(kube.List(ctx, list)).To(Succeed())
			var drifted []string
			for _, c := range list.Items {
				if meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeDrifted) {
					drifted = append(drifted, c.Name)
				}
			}
			slices.Sort(drifted)
			return drifted
		}
		Eventually(driftedNow).Should(Equal(predicted))
		Consistently(driftedNow).Should(Equal(predicted), "no other NodeClaim drifts")

		By("asking why a drifted node stays: the PodDisruptionBudget and its pod")
		node := nodesOf("plugin-drift")(Default)[0]
		Eventually(func(g Gomega) {
			answer := &plugin.NodeAnswer{}
			kubectlKarpenter(g, answer, "why", "node", node.Name)
			g.Expect(answer.Verdict).To(MatchRegexp(`PodDisruptionBudget ` + namespace + `/plugin-drift allows no disruption of pod ` + namespace + `/plugin-drift-\S+ now`))
			g.Expect(answer.Drifted).To(HavePrefix("KubernetesVersionDrift"))
		}).Should(Succeed())

		By("asking about the NodePool: both drifted, the budget's nodes")
		pool := &plugin.NodePoolAnswer{}
		kubectlKarpenter(Default, pool, "why", "nodepool", "plugin-drift")
		Expect(pool.Drifted).To(Equal(claims))
		Expect(pool.Nodes).To(Equal(2))
		Expect(pool.Budgets).To(ContainElement(SatisfyAll(HaveField("Reason", "Drifted"), HaveField("Budget", ContainSubstring("budget 0")))))
	})
})

// kubectlKarpenter runs `kubectl karpenter ARGS -o json`, kubectl finding the plugin on its
// PATH, and decodes its answer into answer.
func kubectlKarpenter(g Gomega, answer any, args ...string) {
	out := runPlugin(g, append(args, "-o", "json")...)
	g.Expect(json.Unmarshal([]byte(out), answer)).To(Succeed(), out)
}

// kubectlKarpenterTable is kubectl karpenter's table for people.
func kubectlKarpenterTable(g Gomega, args ...string) string {
	return runPlugin(g, args...)
}

func runPlugin(g Gomega, args ...string) string {
	g.Expect(cluster.plugins).NotTo(BeEmpty(), "cluster.env names KUBECTL_PLUGINS")
	// The plugin's name comes first: kubectl looks for plugins only up to the first flag, and
	// hands the flags after it to the plugin.
	cmd := exec.Command(cluster.kubectl, append([]string{"karpenter", "--kubeconfig", cluster.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+cluster.plugins+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	g.Expect(cmd.Run()).To(Succeed(), "kubectl karpenter %s: %s", strings.Join(args, " "), errs.String())
	return out.String()
}
