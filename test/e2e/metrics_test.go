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
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

var _ = Describe("Metrics", func() {
	It("serves every family of docs/metrics.md with its labels after a scale-up, an emptiness consolidation and a drift", func() {
		documented, exempt := documentedFamilies("../../docs/metrics.md")
		Expect(len(documented)).To(BeNumerically(">", 90), "families read from docs/metrics.md")
		Expect(len(exempt)).To(BeNumerically(">", 10), "families docs/metrics.md says appear only after an event")
		createPoolOf("metrics", func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.35"
		}, fourCPUNodes(karpv1.Disruption{
			ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmpty,
			ConsolidateAfter:    karpv1.MustParseNillableDuration("10s"),
			Budgets:             []karpv1.Budget{{Nodes: "100%"}},
		}))

		By("scaling up: three one-CPU pods fill one four-CPU node, and wait for it")
		createDeployment("metrics-stays", 3, poolPod("metrics", "metrics-stays", "1"))
		Eventually(func(g Gomega) {
			families := operatorFamilies(g)
			for _, name := range []string{"karpenter_pods_unbound_time_seconds", "karpenter_pods_unstarted_time_seconds"} {
				g.Expect(families).To(HaveKey(name), "while pods wait")
			}
		}).Should(Succeed())
		Eventually(func(g Gomega) int { return running(podsOf("metrics-stays")(g)) }).Should(Equal(3))

		By("scaling up again onto a second node, then away: emptiness removes it")
		second := createDeployment("metrics-goes", 3, poolPod("metrics", "metrics-goes", "1"))
		Eventually(func(g Gomega) int { return running(podsOf("metrics-goes")(g)) }).Should(Equal(3))
		Eventually(claimsOf("metrics")).Should(HaveLen(2))
		Expect(kube.Delete(ctx, second)).To(Succeed())
		Eventually(claimsOf("metrics")).Should(HaveLen(1), "the empty node consolidated")

		By("drifting the node left: kubernetesVersion 1.35 to 1.36")
		old := claimNames(claimsOf("metrics")(Default))
		update(&kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "metrics"}}, func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Spec.Bootstrap.KubernetesVersion = "1.36"
		})
		Eventually(func(g Gomega) {
			claims := claimsOf("metrics")(g)
			g.Expect(claimNames(claims)).NotTo(ContainElement(BeElementOf(old)))
			g.Expect(claims).To(HaveLen(1))
			g.Expect(initialized(claims[0])).To(BeTrue())
			g.Expect(running(podsOf("metrics-stays")(g))).To(Equal(3))
		}).Should(Succeed())

		By("scraping the operator: every family, with its labels")
		// The node and cluster gauges are published every 5 s.
		Eventually(func(g Gomega) {
			families := operatorFamilies(g)
			var missing, unlabelled []string
			for name, labels := range documented {
				if exempt[name] {
					continue
				}
				family, ok := families[name]
				if !ok {
					missing = append(missing, name)
					continue
				}
				for _, m := range family.GetMetric() {
					if got := labelNames(m); !isSubset(labels, got) {
						unlabelled = append(unlabelled, fmt.Sprintf("%s: labels %v, documented %v", name, got, labels))
						break
					}
				}
			}
			slices.Sort(missing)
			g.Expect(missing).To(BeEmpty(), "families docs/metrics.md lists that the operator does not serve")
			g.Expect(unlabelled).To(BeEmpty())
		}).Should(Succeed())

		By("reading the values the scenario moved")
		families := operatorFamilies(Default)
		for _, moved := range []struct {
			name   string
			labels map[string]string
		}{
			{"karpenter_nodeclaims_created_total", map[string]string{"nodepool": "metrics", "reason": "provisioned"}},
			{"karpenter_nodeclaims_created_total", map[string]string{"nodepool": "metrics", "reason": "drifted"}},
			{"karpenter_nodeclaims_disrupted_total", map[string]string{"nodepool": "metrics", "reason": "empty", "consolidation_policy": "when_empty"}},
			{"karpenter_nodeclaims_disrupted_total", map[string]string{"nodepool": "metrics", "reason": "drifted"}},
			{"karpenter_pods_disruption_initiated_total", map[string]string{"nodepool": "metrics", "reason": "drifted"}},
			{"karpenter_voluntary_disruption_decisions_by_nodepool_total", map[string]string{"nodepool": "metrics", "reason": "empty"}},
			{"karpenter_voluntary_disruption_decisions_by_nodepool_total", map[string]string{"nodepool": "metrics", "reason": "drifted", "decision": "replace"}},
			{"karpenter_kakaocloud_consolidation_savings_total", map[string]string{"nodepool": "metrics"}},
			{"karpenter_nodeclaims_terminated_total", map[string]string{"nodepool": "metrics"}},
			{"karpenter_nodeclaims_termination_duration_seconds", map[string]string{"nodepool": "metrics"}},
			{"karpenter_nodeclaims_instance_termination_duration_seconds", map[string]string{"nodepool": "metrics"}},
			{"karpenter_nodes_created_total", map[string]string{"nodepool": "metrics"}},
			{"karpenter_nodes_terminated_total", map[string]string{"nodepool": "metrics"}},
			{"karpenter_nodes_drained_total", map[string]string{"nodepool": "metrics"}},
			{"karpenter_nodes_lifetime_duration_seconds", map[string]string{"nodepool": "metrics"}},
			{"karpenter_pods_eviction_requests_total", map[string]string{"code": "200"}},
			{"karpenter_pods_startup_duration_seconds", nil},
			{"karpenter_pods_bound_duration_seconds", nil},
			{"karpenter_pods_provisioning_startup_duration_seconds", nil},
			{"karpenter_scheduler_scheduling_duration_seconds", map[string]string{"controller": "provisioner"}},
			{"karpenter_scheduler_scheduling_duration_seconds", map[string]string{"controller": "disruption"}},
			{"karpenter_cloudprovider_duration_seconds", map[string]string{"controller": "nodeclaim.lifecycle", "method": "Create"}},
			{"karpenter_nodes_allocatable", map[string]string{"nodepool": "metrics", "resource_type": "cpu", "managed": "true"}},
			{"karpenter_nodes_total_pod_requests", map[string]string{"nodepool": "metrics", "resource_type": "cpu"}},
			{"karpenter_cluster_utilization_percent", map[string]string{"resource_type": "cpu"}},
			{"karpenter_cluster_state_node_count", nil},
			{"karpenter_cluster_state_synced", nil},
			{"karpenter_build_info", nil},
			{"karpenter_pods_state", map[string]string{"nodepool": "metrics", "phase": "Running", "ready": "true", "managed": "true"}},
			{"operator_nodeclaim_status_condition_transitions_total", map[string]string{"karpenter_sh_nodepool": "metrics", "type": "Initialized", "status": "True"}},
			{"operator_nodeclaim_termination_duration_seconds", map[string]string{"karpenter_sh_nodepool": "metrics"}},
			{"operator_node_termination_duration_seconds", map[string]string{"karpenter_sh_nodepool": "metrics"}},
		} {
			Expect(test.FamilyValue(families[moved.name], moved.labels)).To(BeNumerically(">", 0), "%s%v", moved.name, moved.labels)
		}
	})
})

// operatorFamilies scrapes the operator's metrics.
func operatorFamilies(g Gomega) map[string]*dto.MetricFamily {
	g.Expect(cluster.operatorMetrics).NotTo(BeEmpty(), "cluster.env names OPERATOR_METRICS_URL")
	resp, err := http.Get(cluster.operatorMetrics)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	return families
}

func labelNames(m *dto.Metric) []string {
	var names []string
	for _, pair := range m.GetLabel() {
		names = append(names, pair.GetName())
	}
	return names
}

func isSubset(want, got []string) bool {
	for _, name := range want {
		if !slices.Contains(got, name) {
			return false
		}
	}
	return true
}

var backticked = regexp.MustCompile("`([^`]+)`")

// documentedFamilies reads docs/metrics.md: the families of the tables under the headings of
// served families (Served..., Of this provider, Status conditions) with the label names their
// labels column gives, and the families under Present only after, which a scrape may lack.
func documentedFamilies(path string) (documented map[string][]string, exempt map[string]bool) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	documented, exempt = map[string][]string{}, map[string]bool{}
	references := map[string][]string{}
	section, inTable, labelsColumn := "", false, -1
	for line := range strings.SplitSeq(string(data), "\n") {
		if heading, ok := strings.CutPrefix(line, "## "); ok {
			section, inTable = heading, false
			continue
		}
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !inTable {
			// A table's first row names its columns.
			inTable, labelsColumn = true, slices.IndexFunc(cells, func(c string) bool { return strings.TrimSpace(c) == "labels" })
			continue
		}
		if strings.Trim(strings.TrimSpace(cells[0]), ":-") == "" {
			continue
		}
		names := backticked.FindAllStringSubmatch(cells[0], -1)
		switch {
		case section == "Present only after":
			for _, name := range names {
				exempt[name[1]] = true
			}
		case strings.HasPrefix(section, "Served") || section == "Of this provider" || strings.HasPrefix(section, "Status conditions"):
			if len(names) == 0 || labelsColumn < 0 || labelsColumn >= len(cells) {
				continue
			}
			labels, ref := documentedLabels(cells[labelsColumn])
			documented[names[0][1]] = labels
			if ref != "" {
				references[names[0][1]] = append(references[names[0][1]], ref)
			}
		}
	}
	for name, refs := range references {
		for _, ref := range refs {
			Expect(documented).To(HaveKey(ref), "%s's labels are those of %s", name, ref)
			documented[name] = append(documented[name], documented[ref]...)
		}
	}
	return documented, exempt
}

// documentedLabels reads a labels cell: a comma-separated list whose parts each start with a
// backticked label name (its values may follow in parentheses), say "as `family`" for another
// family's labels, or name several labels in words with each backticked.
func documentedLabels(cell string) (labels []string, reference string) {
	depth, start := 0, 0
	var parts []string
	for i, r := range cell {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, cell[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, cell[start:])
	for _, part := range parts {
		part = strings.TrimPrefix(strings.TrimSpace(part), "and ")
		name := backticked.FindStringSubmatch(part)
		switch {
		case name == nil:
		case strings.HasPrefix(part, "as `"):
			reference = name[1]
		case strings.HasPrefix(part, "`"):
			labels = append(labels, name[1])
		default:
			for _, each := range backticked.FindAllStringSubmatch(part, -1) {
				labels = append(labels, each[1])
			}
		}
	}
	return labels, reference
}
