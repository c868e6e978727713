/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package packaging

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
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

// TestE2EAlertMetricsAreServed scrapes the operator of a local cluster (E2E_CLUSTER_DIR, as
// hack/test-e2e sets it after the end-to-end suite) and checks that every metric an alert
// reads is one the running operator serves.
func TestE2EAlertMetricsAreServed(t *testing.T) {
	dir := os.Getenv("E2E_CLUSTER_DIR")
	if dir == "" {
		t.Skip("no local cluster: hack/test-e2e runs this with E2E_CLUSTER_DIR")
	}
	url := clusterEnv(t, dir)["OPERATOR_METRICS_URL"]
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
	for _, rule := range alertRules(t) {
		for _, name := range metricsOf(t, rule.Expr) {
			if _, ok := families[name]; !ok {
				t.Errorf("%s reads %s, which the running operator does not serve", rule.Alert, name)
			}
		}
	}
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
