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

package packaging

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// alertRules are the rules of config/prometheus/alerts.yaml.
func alertRules(t *testing.T) []alertRule {
	t.Helper()
	var rules []alertRule
	for _, g := range kustomizeAlerts(t).Spec.Groups {
		rules = append(rules, g.Rules...)
	}
	return rules
}

// metricsOf returns the metric names an expression reads, with Prometheus' own parser.
func metricsOf(t *testing.T, expr string) []string {
	t.Helper()
	parsed, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		t.Fatalf("%q does not parse: %v", expr, err)
	}
	var names []string
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		if selector, ok := node.(*parser.VectorSelector); ok {
			names = append(names, selector.Name)
		}
		return nil
	})
	return names
}

// TestAlertRulesParse parses every alert expression with Prometheus' parser, and checks what
// Alertmanager routes and runbooks need: a severity, a summary, a runbook URL to
// docs/runbooks.md's section of the alert, and only the operator's metrics.
func TestAlertRulesParse(t *testing.T) {
	runbooks, err := os.ReadFile("../../docs/runbooks.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range alertRules(t) {
		names := metricsOf(t, rule.Expr)
		if len(names) == 0 {
			t.Errorf("%s reads no metric", rule.Alert)
		}
		for _, name := range names {
			if !strings.HasPrefix(name, "karpenter_") {
				t.Errorf("%s reads %s, not one of the operator's metrics", rule.Alert, name)
			}
		}
		if rule.Labels["severity"] == "" || rule.Annotations["summary"] == "" {
			t.Errorf("%s lacks a severity label or a summary", rule.Alert)
		}
		anchor := strings.ToLower(rule.Alert)
		if !strings.HasSuffix(rule.Annotations["runbook_url"], "#"+anchor) || !strings.Contains(strings.ToLower(string(runbooks)), "# "+anchor) {
			t.Errorf("%s: runbook_url %q must point at its section of docs/runbooks.md", rule.Alert, rule.Annotations["runbook_url"])
		}
	}
}

// TestE2EAlertMetricsAreServed runs against a local cluster (E2E_CLUSTER_DIR, as
// hack/test-e2e sets it after the end-to-end suite): with a KCNodeClass for the metrics to be
// about, every metric an alert reads must appear in a scrape of the running operator.
func TestE2EAlertMetricsAreServed(t *testing.T) {
	dir := os.Getenv("E2E_CLUSTER_DIR")
	if dir == "" {
		t.Skip("no local cluster: hack/test-e2e runs this with E2E_CLUSTER_DIR")
	}
	env := clusterEnv(t, dir)
	config, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	kube, err := client.New(config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The node class gauges have a series per KCNodeClass; the suite deleted its own.
	nodeClass := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.kakaocloud.com/v1", "kind": "KCNodeClass",
		"metadata": map[string]any{"name": "alerts-probe"},
		"spec": map[string]any{
			"bootstrap":                  map[string]any{"kubernetesVersion": "1.36"},
			"subnetSelectorTerms":        []any{map[string]any{"name": "karpenter-subnet-a"}},
			"securityGroupSelectorTerms": []any{map[string]any{"name": "karpenter-workers"}},
		},
	}}
	ctx := context.Background()
	if err := kube.Create(ctx, nodeClass); err != nil {
		t.Fatalf("creating KCNodeClass alerts-probe: %v", err)
	}
	t.Cleanup(func() { _ = kube.Delete(ctx, nodeClass) })

	var missing []string
	deadline := time.Now().Add(time.Minute)
	for {
		families := scrape(t, env["OPERATOR_METRICS_URL"])
		missing = nil
		for _, rule := range alertRules(t) {
			for _, name := range metricsOf(t, rule.Expr) {
				if _, ok := families[name]; !ok {
					missing = append(missing, rule.Alert+" reads "+name)
				}
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	for _, m := range missing {
		t.Errorf("%s, which the running operator does not serve", m)
	}
}

// scrape reads the operator's metrics in the Prometheus text format.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	textParser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := textParser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the scrape of %s: %v", url, err)
	}
	return families
}

// clusterEnv reads the KEY=VALUE lines of a local cluster's cluster.env.
func clusterEnv(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "cluster.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	env := map[string]string{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if k, v, ok := strings.Cut(scanner.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			env[k] = v
		}
	}
	return env
}
