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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Upstream Karpenter's kwok performance scenarios (test/suites/performance of
// kubernetes-sigs/karpenter) on the local cluster: the same deployments (900m/3100Mi pods and
// 3500m/28Gi pods), the same NodePool settings (no limits, WhenEmptyOrUnderutilized after 30 s,
// a budget of 100 %, instance types under 32 vCPUs) and the same scale changes. make perf runs
// them; make test-e2e leaves them out (label perf). Each phase is measured by perfMeter and
// printed as a row of the table the suite ends with (docs/benchmarks.md keeps it); what is
// asserted is that every constraint held and no VM was leaked or made twice, never a time.
var _ = Describe("Performance", Label("perf"), func() {
	It("scales out 1,000 pods of two sizes, then consolidates them to 700 (upstream's basic scenario)", func() {
		scaleOutAndConsolidate("basic", perfPod("small", "900m", "3100Mi"))
	})

	It("scales out 1,000 pods, half of them spread over hostnames (upstream's hostname spreading scenario), then consolidates them to 700", func() {
		scaleOutAndConsolidate("hostname spreading", withHostnameSpread(perfPod("spread", "900m", "3100Mi")))
	})

	It("replaces every node of 600 pods, half of them spread over hostnames, when the NodePool's template drifts (upstream's drift scenario)", func() {
		pool := perfPool("perf-drift")
		spread := createDeployment("spread", 300, withHostnameSpread(perfPod("spread", "900m", "3100Mi")))
		standard := createDeployment("standard", 300, perfPod("standard", "3500m", "28Gi"))
		apps := []*appsv1.Deployment{spread, standard}

		perfScaleOut("drift: scale-out, 600 pods", pool, apps, 600)
		perfDrift("drift: every node replaced, 600 pods", pool, apps)
		cleanUpPerf(pool, apps)
	})
})

// scaleOutAndConsolidate runs 500 pods of small and 500 of 3500m/28Gi, then 350 of each.
func scaleOutAndConsolidate(scenario string, small corev1.PodTemplateSpec) {
	GinkgoHelper()
	pool := perfPool("perf-" + strings.ReplaceAll(scenario, " ", "-"))
	apps := []*appsv1.Deployment{
		createDeployment(small.Labels["app"], 500, small),
		createDeployment("large", 500, perfPod("large", "3500m", "28Gi")),
	}
	perfScaleOut(scenario+": scale-out, 1,000 pods", pool, apps, 1000)
	perfConsolidate(scenario+": consolidation, 1,000 → 700 pods", pool, apps, 350)
	cleanUpPerf(pool, apps)
}

// perfPool is a KCNodeClass with a subnet in each zone and a NodePool as upstream's performance
// suite sets its own: no limits, consolidation of empty or underused nodes after 30 s with a
// budget of 100 %, instance types under 32 vCPUs of the three families.
func perfPool(name string) string {
	GinkgoHelper()
	createPoolOf(name, func(nodeClass *kcv1.KCNodeClass) {
		nodeClass.Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{
			{Name: "karpenter-subnet-a"}, {Name: "karpenter-subnet-b"}, {Name: "karpenter-subnet-c"},
		}
	}, func(p *karpv1.NodePool) {
		p.Spec.Limits = nil
		p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements,
			requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpLt, "32"))
		p.Spec.Disruption = karpv1.Disruption{
			ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
			ConsolidateAfter:    karpv1.MustParseNillableDuration("30s"),
			Budgets:             []karpv1.Budget{{Nodes: "100%"}},
		}
	})
	return name
}

// perfPod is a pause pod asking for cpu and memory.
func perfPod(app, cpu, memory string) corev1.PodTemplateSpec {
	template := podTemplate(app, cpu)
	template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = mustQuantity(memory)
	return template
}

// withHostnameSpread spreads the pods over nodes, at most one more on any node than on
// another (upstream's test.WithHostnameSpread).
func withHostnameSpread(template corev1.PodTemplateSpec) corev1.PodTemplateSpec {
	template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: template.Labels},
	}}
	return template
}

// perfScaleOut waits until the deployments' pods (want in all) are Running, and records the
// phase: from the last pod's creation to the last pod's readiness.
func perfScaleOut(scenario, pool string, apps []*appsv1.Deployment, want int) {
	GinkgoHelper()
	By(scenario)
	meter := startPerfMeter(pool)
	Eventually(func(g Gomega) {
		g.Expect(runningPods(g, apps)).To(Equal(want))
	}, 20*time.Minute, 2*time.Second).Should(Succeed(), "all %d pods Running", want)
	firstCreated, lastCreated, lastReady := podTimes(appPods(Default, apps))
	meter.finish(scenario, lastReady.Sub(lastCreated), fmt.Sprintf("last pod created → all Running; %.0f s from the first", lastReady.Sub(firstCreated).Seconds()))
}

// perfConsolidate scales each deployment to replicas and waits until consolidation has
// settled: every pod Running, no node tainted or NodeClaim deleting, and the node count
// unchanged for perfQuiet. The phase lasts from the scale-down to the last node's removal.
func perfConsolidate(scenario, pool string, apps []*appsv1.Deployment, replicas int32) {
	GinkgoHelper()
	By(scenario)
	meter := startPerfMeter(pool)
	start := time.Now()
	for _, d := range apps {
		update(d, func(d *appsv1.Deployment) { d.Spec.Replicas = new(replicas) })
	}
	lastChange := waitSettled(pool, apps, len(apps)*int(replicas), nil)
	meter.finish(scenario, lastChange.Sub(start), "scale-down → last node removed")
}

// perfDrift changes an annotation of the NodePool's template, which drifts every node, and
// waits until none of the nodes there were before is left and consolidation has settled.
func perfDrift(scenario, pool string, apps []*appsv1.Deployment) {
	GinkgoHelper()
	By(scenario)
	before := sets.New[string]()
	for _, n := range nodesOf(pool)(Default) {
		before.Insert(string(n.UID))
	}
	want := runningPods(Default, apps)
	meter := startPerfMeter(pool)
	start := time.Now()
	update(&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: pool}}, func(p *karpv1.NodePool) {
		p.Spec.Template.Annotations = map[string]string{"perf.karpenter.kakaocloud.com/drift": start.Format(time.RFC3339Nano)}
	})
	lastChange := waitSettled(pool, apps, want, before)
	meter.finish(scenario, lastChange.Sub(start), "template changed → last old node removed")
}

// cleanUpPerf deletes the deployments and the pool's NodeClaims with room for hundreds of
// nodes to drain, before the spec's cleanups check that they are gone.
func cleanUpPerf(pool string, apps []*appsv1.Deployment) {
	GinkgoHelper()
	for _, d := range apps {
		Expect(kube.Delete(ctx, d)).To(Succeed())
	}
	Eventually(func(g Gomega) { g.Expect(appPods(g, apps)).To(BeEmpty()) }, 10*time.Minute, 2*time.Second).Should(Succeed())
	Expect(kube.DeleteAllOf(ctx, &karpv1.NodeClaim{}, clientMatchingPool(pool))).To(Succeed())
	Eventually(claimsOf(pool), 15*time.Minute, 2*time.Second).Should(BeEmpty(), "NodeClaims of %s deleted", pool)
	Eventually(nodesOf(pool), 5*time.Minute, 2*time.Second).Should(BeEmpty(), "nodes of %s deleted", pool)
	Eventually(func(g Gomega) []string { return vmIDs(g) }, 5*time.Minute, 2*time.Second).Should(BeEmpty(), "every VM deleted")
}

// perfQuiet is how long consolidation must have changed nothing before it counts as settled:
// consolidateAfter (30 s), the validation delay (15 s) and two disruption passes, with room.
const perfQuiet = 90 * time.Second

// waitSettled waits until the deployments' want pods are Running, no node of the pool is
// tainted karpenter.sh/disrupted or being deleted, no NodeClaim is being deleted, none of the
// nodes in old (UIDs) is left, and the pool's nodes have not changed for perfQuiet; it returns when
// they last changed.
func waitSettled(pool string, apps []*appsv1.Deployment, want int, old sets.Set[string]) time.Time {
	GinkgoHelper()
	lastChange := time.Now()
	var seen sets.Set[string]
	Eventually(func(g Gomega) {
		// By UID: a node's name is its VM's hostname, which a new VM given a freed address
		// takes again.
		names := sets.New[string]()
		for _, n := range nodesOf(pool)(g) {
			names.Insert(string(n.UID))
			g.Expect(disrupted(n)).To(BeFalse(), "node %s is being disrupted", n.Name)
		}
		if seen == nil || !seen.Equal(names) {
			seen, lastChange = names, time.Now()
		}
		for _, c := range claimsOf(pool)(g) {
			g.Expect(c.DeletionTimestamp.IsZero()).To(BeTrue(), "NodeClaim %s is being deleted", c.Name)
		}
		g.Expect(sets.List(names.Intersection(old))).To(BeEmpty(), "nodes from before the change")
		g.Expect(runningPods(g, apps)).To(Equal(want))
		g.Expect(time.Since(lastChange)).To(BeNumerically(">=", perfQuiet), "the nodes changed %s ago", time.Since(lastChange).Round(time.Second))
	}, 45*time.Minute, 2*time.Second).Should(Succeed())
	return lastChange
}
