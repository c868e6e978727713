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
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	corev1 "k8s.io/api/core/v1"
)

// The Grafana dashboards: config/grafana/dashboards is their one source (config/grafana's
// kustomization ships it); the chart cannot read outside its directory, so it ships a copy that
// make manifests writes. Both are checked, since each is what some users install.
var (
	dashboardSourceDir = filepath.Join(configDir, "grafana", "dashboards")
	dashboardChartDir  = filepath.Join(chartDir, "dashboards")
	dashboardDirs      = []string{dashboardSourceDir, dashboardChartDir}
)

// metricsDoc lists the metric families the operator serves, and those it does not serve yet.
const metricsDoc = "../../docs/metrics.md"

// minDashboardSchemaVersion is Grafana 10.4's dashboard schema: older Grafanas would migrate
// the JSON on load and show it as changed.
const minDashboardSchemaVersion = 39

// maxDashboardBytes keeps a dashboard's ConfigMap applicable with client-side kubectl apply
// -k config/grafana, which copies the whole object into its last-applied-configuration
// annotation, and the API server caps all of an object's annotations at 256 KiB.
const maxDashboardBytes = 200 << 10

// dashboardDatasource is the data source every panel and query variable must use: the
// dashboard's datasource variable, so that one dashboard works with whatever Prometheus
// data source a Grafana has, whatever its uid.
var dashboardDatasource = datasourceRef{Type: "prometheus", UID: "${datasource}"}

// grafanaDashboard is the part of a dashboard's JSON model the tests read.
type grafanaDashboard struct {
	UID           string           `json:"uid"`
	Title         string           `json:"title"`
	SchemaVersion int              `json:"schemaVersion"`
	Panels        []dashboardPanel `json:"panels"`
	Templating    struct {
		List []dashboardVariable `json:"list"`
	} `json:"templating"`
}

type dashboardPanel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *datasourceRef `json:"datasource"`
	Targets    []panelTarget  `json:"targets"`
	// A collapsed row holds its panels; an open row has none and its panels follow it.
	Panels []dashboardPanel `json:"panels"`
}

type panelTarget struct {
	RefID      string         `json:"refId"`
	Expr       string         `json:"expr"`
	Datasource *datasourceRef `json:"datasource"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type dashboardVariable struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Datasource *datasourceRef `json:"datasource"`
	// A string, or for a Prometheus query variable an object whose query field is the string.
	Query json.RawMessage `json:"query"`
}

// dashboardUID is what Grafana accepts as a dashboard uid.
var dashboardUID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// grafanaVariable matches the variable syntaxes Grafana substitutes in a query: $name,
// ${name} and ${name:format}.
var grafanaVariable = regexp.MustCompile(`\$(?:\{(\w+)(?::[^}]*)?\}|(\w+))`)

// grafanaBuiltins gives Grafana's built-in variables values of the kind Grafana substitutes:
// durations for the intervals and the range, numbers for their _s and _ms forms.
var grafanaBuiltins = map[string]string{
	"__interval":         "1m",
	"__interval_ms":      "60000",
	"__rate_interval":    "4m",
	"__rate_interval_ms": "240000",
	"__range":            "6h",
	"__range_s":          "21600",
	"__range_ms":         "21600000",
}

// The Prometheus data source's variable queries that hold PromQL: label_values(<selector>,
// <label>) and query_result(<expression>). label_values(<label>) and label_names() read no
// metric.
var (
	labelValuesQuery = regexp.MustCompile(`^\s*label_values\((.+),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$`)
	queryResultQuery = regexp.MustCompile(`^\s*query_result\((.+)\)\s*$`)
)

// dashboardChecker collects, for one dashboard, the metrics its queries read and what is
// wrong with it.
type dashboardChecker struct {
	variables map[string]string
	metrics   map[string][]string
	problems  []string
}

func (c *dashboardChecker) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// checkDashboard reads a dashboard's JSON model and returns it, the metric names its queries
// read (each with where it is read), and what is wrong with it: no uid or title, a schema
// older than minDashboardSchemaVersion, no datasource variable, a panel without targets or
// not on the datasource variable, an empty expression, one using a variable the dashboard does
// not define, one Prometheus' parser rejects, or one that reads no metric.
func checkDashboard(data []byte) (grafanaDashboard, map[string][]string, []string) {
	var dashboard grafanaDashboard
	if err := json.Unmarshal(data, &dashboard); err != nil {
		return dashboard, nil, []string{"not a dashboard's JSON model: " + err.Error()}
	}
	c := &dashboardChecker{variables: map[string]string{}, metrics: map[string][]string{}}
	if dashboard.UID == "" {
		c.problem("no uid")
	} else if !dashboardUID.MatchString(dashboard.UID) {
		c.problem("uid %q is not 1 to 40 letters, digits, - or _", dashboard.UID)
	}
	if strings.TrimSpace(dashboard.Title) == "" {
		c.problem("no title")
	}
	if dashboard.SchemaVersion < minDashboardSchemaVersion {
		c.problem("schemaVersion %d, want at least %d", dashboard.SchemaVersion, minDashboardSchemaVersion)
	}
	c.checkVariables(dashboard.Templating.List)
	if len(dashboard.Panels) == 0 {
		c.problem("no panels")
	}
	c.checkPanels(dashboard.Panels, map[int]string{})
	return dashboard, c.metrics, c.problems
}

// checkVariables defines the dashboard's variables for the queries (with a value of their
// kind), requires the datasource variable, and checks the query variables' PromQL.
func (c *dashboardChecker) checkVariables(variables []dashboardVariable) {
	for _, variable := range variables {
		c.variables[variable.Name] = "default"
		if variable.Type == "interval" {
			c.variables[variable.Name] = "5m"
		}
	}
	datasource := false
	for _, variable := range variables {
		query, err := variableQuery(variable.Query)
		if err != nil {
			c.problem("variable %s: %v", variable.Name, err)
			continue
		}
		switch variable.Type {
		case "datasource":
			datasource = datasource || variable.Name == "datasource" && query == dashboardDatasource.Type
		case "query":
			if variable.Datasource == nil || *variable.Datasource != dashboardDatasource {
				c.problem("variable %s: datasource %+v, want %+v", variable.Name, variable.Datasource, dashboardDatasource)
			}
			if expr, ok := variablePromQL(query); ok {
				c.checkQuery("variable "+variable.Name, expr)
			}
		}
	}
	if !datasource {
		c.problem(`no variable "datasource" of type datasource for query prometheus, which every panel uses as ${datasource}`)
	}
}

// variableQuery returns a variable's query, a string or the query of a Prometheus variable's
// query object.
func variableQuery(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var query string
	if err := json.Unmarshal(raw, &query); err == nil {
		return query, nil
	}
	var object struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &object); err != nil {
		return "", fmt.Errorf("query %s is neither a string nor an object with a query", raw)
	}
	return object.Query, nil
}

// variablePromQL returns the PromQL of a Prometheus variable query, if it has any.
func variablePromQL(query string) (string, bool) {
	for _, pattern := range []*regexp.Regexp{labelValuesQuery, queryResultQuery} {
		if match := pattern.FindStringSubmatch(query); match != nil {
			return match[1], true
		}
	}
	return "", false
}

// checkPanels checks panels and the panels of collapsed rows, and that panel ids, which
// Grafana links and edits panels by, are unique in the dashboard.
func (c *dashboardChecker) checkPanels(panels []dashboardPanel, ids map[int]string) {
	for _, panel := range panels {
		where := fmt.Sprintf("panel %d %q", panel.ID, panel.Title)
		if panel.ID == 0 {
			c.problem("%s has no id", where)
		} else if other, taken := ids[panel.ID]; taken {
			c.problem("%s has the id of panel %q", where, other)
		}
		ids[panel.ID] = panel.Title
		if panel.Type == "row" {
			if len(panel.Targets) > 0 {
				c.problem("row %s has targets", where)
			}
			c.checkPanels(panel.Panels, ids)
			continue
		}
		if strings.TrimSpace(panel.Title) == "" {
			c.problem("%s has no title", where)
		}
		if panel.Datasource == nil || *panel.Datasource != dashboardDatasource {
			c.problem("%s: datasource %+v, want %+v", where, panel.Datasource, dashboardDatasource)
		}
		if len(panel.Targets) == 0 {
			c.problem("%s has no targets", where)
		}
		for _, target := range panel.Targets {
			at := where + " target " + target.RefID
			if target.Datasource != nil && *target.Datasource != dashboardDatasource {
				c.problem("%s: datasource %+v, want %+v", at, target.Datasource, dashboardDatasource)
			}
			c.checkQuery(at, target.Expr)
		}
	}
}

// checkQuery substitutes the variables of an expression, parses it with Prometheus' parser
// and records the metrics it reads.
func (c *dashboardChecker) checkQuery(where, expr string) {
	if strings.TrimSpace(expr) == "" {
		c.problem("%s: empty expr", where)
		return
	}
	substituted, err := substituteVariables(expr, c.variables)
	if err != nil {
		c.problem("%s: %q %v", where, expr, err)
		return
	}
	names, err := metricNames(substituted)
	if err != nil {
		c.problem("%s: %v", where, err)
		return
	}
	if len(names) == 0 {
		c.problem("%s: %q reads no metric", where, expr)
	}
	for _, name := range names {
		c.metrics[name] = append(c.metrics[name], where)
	}
}

// substituteVariables replaces Grafana's built-in variables and the dashboard's own with
// values Grafana could give them, and fails on any other: Grafana would leave it in the
// query, which Prometheus then rejects.
func substituteVariables(expr string, variables map[string]string) (string, error) {
	var unknown []string
	substituted := grafanaVariable.ReplaceAllStringFunc(expr, func(reference string) string {
		match := grafanaVariable.FindStringSubmatch(reference)
		name := match[1] + match[2]
		if value, ok := grafanaBuiltins[name]; ok {
			return value
		}
		if value, ok := variables[name]; ok {
			return value
		}
		unknown = append(unknown, "$"+name)
		return reference
	})
	if len(unknown) > 0 {
		return "", fmt.Errorf("uses %s, neither Grafana's built-in variables nor the dashboard's", strings.Join(unknown, ", "))
	}
	return substituted, nil
}

// metricNames parses an expression with Prometheus' parser and returns the metric name of
// every vector selector in it, those under range selectors and subqueries included.
func metricNames(expr string) ([]string, error) {
	parsed, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, fmt.Errorf("%q does not parse: %w", expr, err)
	}
	var names []string
	var unnamed error
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		selector, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := selector.Name
		for _, matcher := range selector.LabelMatchers {
			if name == "" && matcher.Name == model.MetricNameLabel && matcher.Type == labels.MatchEqual {
				name = matcher.Value
			}
		}
		if name == "" {
			// A regular expression on __name__ could read any family: none can be checked.
			unnamed = fmt.Errorf("%q: selector %s names no single metric", expr, selector)
			return nil
		}
		names = append(names, name)
		return nil
	})
	return names, unnamed
}

// duplicateUIDs returns a line for every uid that more than one dashboard has: Grafana keeps
// one of them and drops the others.
func duplicateUIDs(uids map[string]string) []string {
	files := map[string][]string{}
	for file, uid := range uids {
		files[uid] = append(files[uid], file)
	}
	var duplicates []string
	for uid, names := range files {
		if len(names) > 1 {
			slices.Sort(names)
			duplicates = append(duplicates, fmt.Sprintf("uid %q is the uid of %s", uid, strings.Join(names, ", ")))
		}
	}
	slices.Sort(duplicates)
	return duplicates
}

// readDashboardFiles reads the dashboards (*.json) of a directory, by file name.
func readDashboardFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no dashboards (*.json) in %s", dir)
	}
	files := map[string][]byte{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(path)] = data
	}
	return files
}

// sortedKeys returns a map's keys in order, for stable test output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

// TestDashboardsAreValid checks every dashboard of both copies with checkDashboard, its size,
// and that no two dashboards share a uid.
func TestDashboardsAreValid(t *testing.T) {
	for _, dir := range dashboardDirs {
		files := readDashboardFiles(t, dir)
		uids := map[string]string{}
		for _, name := range sortedKeys(files) {
			t.Run(strings.TrimPrefix(filepath.Join(dir, name), repositoryRoot+"/"), func(t *testing.T) {
				dashboard, metrics, problems := checkDashboard(files[name])
				for _, problem := range problems {
					t.Error(problem)
				}
				if len(metrics) == 0 {
					t.Error("the dashboard reads no metric")
				}
				if size := len(files[name]); size > maxDashboardBytes {
					t.Errorf("%d bytes, more than %d: kubectl apply could not store its last-applied-configuration annotation", size, maxDashboardBytes)
				}
				uids[name] = dashboard.UID
			})
		}
		for _, duplicate := range duplicateUIDs(uids) {
			t.Errorf("%s: %s", dir, duplicate)
		}
	}
}

// TestDashboardCopiesAreIdentical checks that the chart's dashboards/ holds exactly
// config/grafana/dashboards, byte for byte.
func TestDashboardCopiesAreIdentical(t *testing.T) {
	list := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, entry := range entries {
			names = append(names, entry.Name())
		}
		return names
	}
	source, copied := list(dashboardSourceDir), list(dashboardChartDir)
	if !slices.Equal(source, copied) {
		t.Fatalf("the chart's dashboards/ holds %v, config/grafana/dashboards %v: run make manifests", copied, source)
	}
	for _, name := range source {
		want, err := os.ReadFile(filepath.Join(dashboardSourceDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dashboardChartDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the chart's dashboards/%s differs from config/grafana/dashboards/%s: run make manifests", name, name)
		}
	}
}

// The headings of docs/metrics.md whose tables list the families the operator serves.
var servedHeadings = []string{"## Served", "## Of this provider"}

// backticked finds the `quoted` names of a table cell.
var backticked = regexp.MustCompile("`([^`]+)`")

// servedFamilies reads the families (backticked, first column) of the tables under the
// level-2 headings that start with one of servedHeadings, with their type where the table
// has a type column ("" otherwise). Everything under other headings (Not served yet, Not
// applicable) does not count.
func servedFamilies(markdown string) map[string]string {
	families := map[string]string{}
	counted, inTable, typeColumn := false, false, -1
	for line := range strings.SplitSeq(markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		if level := len(trimmed) - len(strings.TrimLeft(trimmed, "#")); level > 0 && level <= 2 {
			counted = level == 2 && slices.ContainsFunc(servedHeadings, func(heading string) bool { return strings.HasPrefix(trimmed, heading) })
			inTable = false
			continue
		}
		if !strings.HasPrefix(trimmed, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(strings.Trim(trimmed, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if !inTable {
			// A table's first row names its columns.
			inTable, typeColumn = true, slices.Index(cells, "type")
			continue
		}
		if strings.Trim(cells[0], ":-") == "" || !counted {
			continue
		}
		kind := ""
		if typeColumn >= 0 && typeColumn < len(cells) {
			kind = strings.ToLower(cells[typeColumn])
		}
		for _, match := range backticked.FindAllStringSubmatch(cells[0], -1) {
			families[match[1]] = kind
		}
	}
	return families
}

// documentedFamily reports whether docs/metrics.md lists a metric name as served: as a
// family, or as the _bucket series of a histogram or the _sum or _count series of a
// histogram or summary. A name like karpenter_cluster_state_node_count is tried whole first,
// since only the documented type says whether _count is a suffix.
func documentedFamily(name string, served map[string]string) bool {
	if _, ok := served[name]; ok {
		return true
	}
	for suffix, types := range map[string][]string{
		"_bucket": {"histogram", ""},
		"_sum":    {"histogram", "summary", ""},
		"_count":  {"histogram", "summary", ""},
	} {
		family, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		if kind, ok := served[family]; ok && slices.Contains(types, kind) {
			return true
		}
	}
	return false
}

// TestDashboardMetricsAreServed checks that every metric a dashboard reads is of a family
// docs/metrics.md lists as served, so that no panel stays empty against the operator: a
// family under "Not served yet" fails until the operator serves it and the page says so.
func TestDashboardMetricsAreServed(t *testing.T) {
	doc, err := os.ReadFile(metricsDoc)
	if err != nil {
		t.Fatal(err)
	}
	served := servedFamilies(string(doc))
	if len(served) == 0 {
		t.Fatalf("no served family found in %s: did its headings change?", metricsDoc)
	}
	missing := map[string][]string{}
	for _, dir := range dashboardDirs {
		for name, data := range readDashboardFiles(t, dir) {
			_, metrics, _ := checkDashboard(data)
			for metric := range metrics {
				if documentedFamily(metric, served) {
					continue
				}
				// Only a histogram has _bucket series; _count and _sum may be part of a
				// gauge's or counter's own name.
				family := strings.TrimSuffix(metric, "_bucket")
				if !slices.Contains(missing[family], name) {
					missing[family] = append(missing[family], name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return
	}
	var lines []string
	for _, family := range sortedKeys(missing) {
		slices.Sort(missing[family])
		lines = append(lines, fmt.Sprintf("  %s (%s)", family, strings.Join(missing[family], ", ")))
	}
	t.Errorf("%d metric families the dashboards read are not listed as served in docs/metrics.md (the tables under %q):\n%s",
		len(missing), servedHeadings, strings.Join(lines, "\n"))
}

// TestServedFamiliesReadsTheServedTables checks the reading of docs/metrics.md on a page of
// its shape: the tables of the served headings count, with their types, prose and the other
// headings' tables do not.
func TestServedFamiliesReadsTheServedTables(t *testing.T) {
	const page = "# Metrics\n\nSee `karpenter_in_prose`.\n\n" +
		"## Served, as upstream serves them\n\n| family | type | labels |\n|---|---|---|\n" +
		"| `karpenter_a_total` | counter | `reason` |\n| `karpenter_b_seconds` | histogram | |\n\n" +
		"## Served with a difference\n\n| family | difference |\n|---|---|\n| `karpenter_c_seconds` | a summary |\n\n" +
		"## Of this provider\n\n| family | type | labels |\n| :-- | --- | --- |\n| `karpenter_kakaocloud_d` | gauge | |\n\n" +
		"## Not served yet\n\nThese: `karpenter_e`.\n\n" +
		"## Not applicable\n\n| upstream family | why |\n|---|---|\n| `karpenter_f`, `karpenter_g` | none here |\n"
	want := map[string]string{
		"karpenter_a_total":      "counter",
		"karpenter_b_seconds":    "histogram",
		"karpenter_c_seconds":    "",
		"karpenter_kakaocloud_d": "gauge",
	}
	got := servedFamilies(page)
	if !maps.Equal(got, want) {
		t.Errorf("servedFamilies = %v, want %v", got, want)
	}
	for name, documented := range map[string]bool{
		"karpenter_a_total":          true,
		"karpenter_b_seconds_bucket": true,
		"karpenter_b_seconds_count":  true,
		"karpenter_c_seconds_bucket": true,
		"karpenter_c_seconds_sum":    true,
		"karpenter_a_total_count":    false,
		"karpenter_kakaocloud_d_sum": false,
		"karpenter_e":                false,
		"karpenter_f":                false,
		"karpenter_in_prose":         false,
	} {
		if documentedFamily(name, got) != documented {
			t.Errorf("documentedFamily(%s) = %v, want %v", name, !documented, documented)
		}
	}
}

// validDashboard is a dashboard with everything checkDashboard requires, for
// TestDashboardChecksCatchBrokenDashboards to break one thing at a time.
func validDashboard() map[string]any {
	datasource := map[string]any{"type": "prometheus", "uid": "${datasource}"}
	return map[string]any{
		"uid":           "test-dashboard",
		"title":         "Test",
		"schemaVersion": 39,
		"templating": map[string]any{"list": []any{
			map[string]any{"name": "datasource", "type": "datasource", "query": "prometheus"},
			map[string]any{"name": "nodepool", "type": "query", "datasource": datasource,
				"query": map[string]any{"query": "label_values(karpenter_nodepools_usage, nodepool)"}},
		}},
		"panels": []any{
			map[string]any{"id": 1, "type": "row", "title": "Row", "panels": []any{}},
			map[string]any{"id": 2, "type": "timeseries", "title": "Usage", "datasource": datasource, "targets": []any{
				map[string]any{"refId": "A", "datasource": datasource,
					"expr": `sum by (nodepool) (rate(karpenter_nodeclaims_created_total{nodepool=~"$nodepool"}[$__rate_interval]))`},
			}},
		},
	}
}

// TestDashboardChecksCatchBrokenDashboards checks that the checks of the dashboards fail
// where they must: each case breaks one thing of a valid dashboard.
func TestDashboardChecksCatchBrokenDashboards(t *testing.T) {
	panel := func(dashboard map[string]any) map[string]any { return dashboard["panels"].([]any)[1].(map[string]any) }
	target := func(dashboard map[string]any) map[string]any {
		return panel(dashboard)["targets"].([]any)[0].(map[string]any)
	}
	cases := map[string]struct {
		breakIt func(map[string]any)
		want    string
	}{
		"valid":                {func(map[string]any) {}, ""},
		"empty expr":           {func(d map[string]any) { target(d)["expr"] = " " }, "empty expr"},
		"no expr":              {func(d map[string]any) { delete(target(d), "expr") }, "empty expr"},
		"panel without target": {func(d map[string]any) { panel(d)["targets"] = []any{} }, "has no targets"},
		"no uid":               {func(d map[string]any) { delete(d, "uid") }, "no uid"},
		"no title":             {func(d map[string]any) { d["title"] = "" }, "no title"},
		"uid too long":         {func(d map[string]any) { d["uid"] = strings.Repeat("u", 41) }, "is not 1 to 40"},
		"old schema":           {func(d map[string]any) { d["schemaVersion"] = 38 }, "schemaVersion 38"},
		"not PromQL":           {func(d map[string]any) { target(d)["expr"] = "sum by (nodepool (up)" }, "does not parse"},
		"unknown variable":     {func(d map[string]any) { target(d)["expr"] = `up{zone="$zone"}` }, "$zone"},
		"fixed data source": {func(d map[string]any) {
			panel(d)["datasource"] = map[string]any{"type": "prometheus", "uid": "P1809F7CD0C75ACF3"}
		}, "datasource"},
		"no datasource variable": {func(d map[string]any) {
			d["templating"].(map[string]any)["list"] = d["templating"].(map[string]any)["list"].([]any)[1:]
		}, `no variable "datasource"`},
		"variable query not PromQL": {func(d map[string]any) {
			d["templating"].(map[string]any)["list"].([]any)[1].(map[string]any)["query"] = "label_values(karpenter_nodepools_usage{, nodepool)"
		}, "variable nodepool"},
		"duplicate panel id": {func(d map[string]any) { panel(d)["id"] = 1 }, "has the id of panel"},
		"no metric name":     {func(d map[string]any) { target(d)["expr"] = `sum({__name__=~"karpenter_.+"})` }, "names no single metric"},
	}
	for _, name := range sortedKeys(cases) {
		t.Run(name, func(t *testing.T) {
			dashboard := validDashboard()
			cases[name].breakIt(dashboard)
			data, err := json.Marshal(dashboard)
			if err != nil {
				t.Fatal(err)
			}
			_, _, problems := checkDashboard(data)
			want := cases[name].want
			if want == "" {
				if len(problems) > 0 {
					t.Errorf("problems %q in a valid dashboard", problems)
				}
				return
			}
			if !slices.ContainsFunc(problems, func(problem string) bool { return strings.Contains(problem, want) }) {
				t.Errorf("problems %q, want one mentioning %q", problems, want)
			}
		})
	}
	if got := duplicateUIDs(map[string]string{"a.json": "same", "b.json": "same", "c.json": "other"}); len(got) != 1 || !strings.Contains(got[0], "a.json, b.json") {
		t.Errorf("duplicateUIDs = %q, want one line naming a.json and b.json", got)
	}
	if got := duplicateUIDs(map[string]string{"a.json": "one", "b.json": "two"}); len(got) != 0 {
		t.Errorf("duplicateUIDs = %q for distinct uids, want none", got)
	}
}

// dashboardConfigMaps decodes the ConfigMaps of a manifest by name.
func dashboardConfigMaps(t *testing.T, objects manifest) map[string]corev1.ConfigMap {
	t.Helper()
	configMaps := map[string]corev1.ConfigMap{}
	for _, object := range objects.ofKind("ConfigMap") {
		var configMap corev1.ConfigMap
		objects.decode(t, "ConfigMap", object.Name, &configMap)
		configMaps[object.Name] = configMap
	}
	return configMaps
}

// checkDashboardConfigMaps checks that there is one ConfigMap per dashboard file, named
// <prefix><file name without karpenter- and .json>, in namespace, with the labels, and with
// the file, byte for byte and valid JSON, as its one key.
func checkDashboardConfigMaps(t *testing.T, configMaps map[string]corev1.ConfigMap, files map[string][]byte, prefix, namespace string, wantLabels map[string]string) {
	t.Helper()
	if len(configMaps) != len(files) {
		t.Errorf("%d ConfigMaps %v, want one for each of the %d dashboards", len(configMaps), sortedKeys(configMaps), len(files))
	}
	for _, file := range sortedKeys(files) {
		name := prefix + strings.TrimPrefix(strings.TrimSuffix(file, ".json"), "karpenter-")
		configMap, ok := configMaps[name]
		if !ok {
			t.Errorf("no ConfigMap %s for %s among %v", name, file, sortedKeys(configMaps))
			continue
		}
		if configMap.Namespace != namespace {
			t.Errorf("ConfigMap %s in namespace %q, want %q", name, configMap.Namespace, namespace)
		}
		for key, value := range wantLabels {
			if got, ok := configMap.Labels[key]; !ok || got != value {
				t.Errorf("ConfigMap %s labels %v, want %s: %q", name, configMap.Labels, key, value)
			}
		}
		if len(configMap.Data) != 1 || len(configMap.BinaryData) != 0 {
			t.Errorf("ConfigMap %s has keys %v, want the one key %s", name, sortedKeys(configMap.Data), file)
		}
		data := configMap.Data[file]
		if !json.Valid([]byte(data)) {
			t.Errorf("ConfigMap %s key %s is not valid JSON", name, file)
		}
		if data != string(files[file]) {
			t.Errorf("ConfigMap %s key %s is not the file %s byte for byte", name, file, file)
		}
	}
}

// TestChartGrafanaDashboards renders the chart: no dashboard by default, one ConfigMap per
// dashboard with the sidecar's label when enabled, and the label, extra labels, annotations
// and namespace the values give.
func TestChartGrafanaDashboards(t *testing.T) {
	files := readDashboardFiles(t, dashboardChartDir)
	sidecarLabel := map[string]string{"grafana_dashboard": "1"}

	t.Run("default", func(t *testing.T) {
		if configMaps := mustRender(t, nil).Objects.ofKind("ConfigMap"); len(configMaps) != 0 {
			t.Errorf("%d ConfigMaps with the default values, want none", len(configMaps))
		}
	})
	t.Run("false as a string", func(t *testing.T) {
		rendered, err := renderValues(t, map[string]any{
			"controller":        map[string]any{"clusterName": testClusterName},
			"grafanaDashboards": map[string]any{"enabled": "false"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if configMaps := rendered.Objects.ofKind("ConfigMap"); len(configMaps) != 0 {
			t.Errorf("%d ConfigMaps with --set-string grafanaDashboards.enabled=false, want none", len(configMaps))
		}
	})
	t.Run("enabled", func(t *testing.T) {
		rendered := mustRender(t, []string{"grafanaDashboards.enabled=true"})
		configMaps := dashboardConfigMaps(t, rendered.Objects)
		withChartLabels := map[string]string{"grafana_dashboard": "1", "app.kubernetes.io/name": podNameLabel, "app.kubernetes.io/instance": releaseName}
		checkDashboardConfigMaps(t, configMaps, files, releaseName+"-dashboard-", releaseNamespace, withChartLabels)
		for name, configMap := range configMaps {
			if len(configMap.Annotations) != 0 {
				t.Errorf("ConfigMap %s annotations %v, want none by default", name, configMap.Annotations)
			}
		}
	})
	t.Run("label, annotations and namespace", func(t *testing.T) {
		rendered := mustRender(t, []string{
			"grafanaDashboards.enabled=true",
			"grafanaDashboards.label=grafana_dashboard_karpenter",
			"grafanaDashboards.labelValue=yes",
			"grafanaDashboards.additionalLabels.team=platform",
			// The sidecar's label wins over an extra label of the same key.
			"grafanaDashboards.additionalLabels.grafana_dashboard_karpenter=no",
			"grafanaDashboards.annotations.grafana_folder=Karpenter",
			"grafanaDashboards.namespace=monitoring",
		})
		configMaps := dashboardConfigMaps(t, rendered.Objects)
		checkDashboardConfigMaps(t, configMaps, files, releaseName+"-dashboard-", "monitoring",
			map[string]string{"grafana_dashboard_karpenter": "yes", "team": "platform"})
		for name, configMap := range configMaps {
			if _, ok := configMap.Labels["grafana_dashboard"]; ok {
				t.Errorf("ConfigMap %s still has the default label: %v", name, configMap.Labels)
			}
			if configMap.Annotations["grafana_folder"] != "Karpenter" {
				t.Errorf("ConfigMap %s annotations %v, want grafana_folder: Karpenter", name, configMap.Annotations)
			}
		}
	})
	t.Run("a number as the label value", func(t *testing.T) {
		// --set gives 1 as a number; a label value must be a string.
		rendered := mustRender(t, []string{"grafanaDashboards.enabled=true", "grafanaDashboards.labelValue=1"})
		checkDashboardConfigMaps(t, dashboardConfigMaps(t, rendered.Objects), files, releaseName+"-dashboard-", releaseNamespace, sidecarLabel)
	})
	t.Run("not a boolean", func(t *testing.T) {
		_, err := render(t, []string{"controller.clusterName=" + testClusterName, "grafanaDashboards.enabled=yes"})
		if err == nil || !strings.Contains(err.Error(), "grafanaDashboards.enabled must be true or false") {
			t.Errorf("rendering with grafanaDashboards.enabled=yes: error %v, want one naming the allowed values", err)
		}
	})
}

// TestKustomizeGrafanaDashboards builds config/grafana: one ConfigMap per dashboard of
// config/grafana/dashboards with the sidecar's default label, without a name hash suffix.
func TestKustomizeGrafanaDashboards(t *testing.T) {
	configMaps := dashboardConfigMaps(t, kustomizeBuild(t, "grafana"))
	checkDashboardConfigMaps(t, configMaps, readDashboardFiles(t, dashboardSourceDir), "karpenter-kakaocloud-dashboard-", operatorNamespace,
		map[string]string{"grafana_dashboard": "1"})
}
