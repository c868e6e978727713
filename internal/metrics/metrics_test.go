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

package metrics

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeClaimCreated(t *testing.T) {
	NodeClaimCreated(ReasonProvisioned, "default", false)
	NodeClaimCreated(ReasonProvisioned, "default", false)
	NodeClaimCreated("drifted", "default", true)
	for _, tc := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"provisioned", "default", "false"}, 2},
		{[]string{"drifted", "default", "true"}, 1},
		{[]string{"drifted", "default", "false"}, 0},
	} {
		m := &dto.Metric{}
		if err := NodeClaimsCreated.WithLabelValues(tc.labels...).Write(m); err != nil {
			t.Fatal(err)
		}
		if got := m.GetCounter().GetValue(); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.labels, got, tc.want)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"Ready": "ready", "MemoryPressure": "memory_pressure", "WhenEmptyOrUnderutilized": "when_empty_or_underutilized",
		"ABCReady": "abc_ready", "KernelDeadlock": "kernel_deadlock", "Balanced": "balanced", "NetworkUnavailable2": "network_unavailable2",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func TestTerminationMode(t *testing.T) {
	for _, tc := range []struct {
		gracePeriod *metav1.Duration
		want        string
	}{
		{nil, TerminationModeGraceful},
		{&metav1.Duration{}, TerminationModeForceful},
		{&metav1.Duration{Duration: time.Hour}, TerminationModeEventual},
	} {
		if got := TerminationMode(tc.gracePeriod); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.gracePeriod, got, tc.want)
		}
	}
}

func TestDisruptionRecord(t *testing.T) {
	d := Disruption{Reason: "underutilized", NodePool: "default", CapacityType: "on-demand", ConsolidationPolicy: "when_empty_or_underutilized", TerminationMode: TerminationModeGraceful, Pods: 3}
	d.Record()
	d.Record()
	for _, tc := range []struct {
		counter interface {
			WithLabelValues(...string) prometheus.Counter
		}
		want float64
	}{{NodeClaimsDisrupted, 2}, {PodsDisruptionInitiated, 6}} {
		m := &dto.Metric{}
		if err := tc.counter.WithLabelValues("underutilized", "default", "on-demand", "when_empty_or_underutilized", "graceful").Write(m); err != nil {
			t.Fatal(err)
		}
		if got := m.GetCounter().GetValue(); got != tc.want {
			t.Errorf("%v, want %v", got, tc.want)
		}
	}
}

func TestGaugeSetReplace(t *testing.T) {
	gauge := NewSetGauge("test_gauge_set", "A test gauge.", "node")
	set := &GaugeSet{gauges: []*SetGauge{gauge}}
	set.Replace([]GaugeValue{{gauge, prometheus.Labels{"node": "a"}, 1}, {gauge, prometheus.Labels{"node": "b"}, 2}})
	set.Replace([]GaugeValue{{gauge, prometheus.Labels{"node": "b"}, 3}})
	if n := testutil.CollectAndCount(set); n != 1 {
		t.Fatalf("%d series after the second set, want node b's only", n)
	}
	if got, ok := set.Value(gauge, prometheus.Labels{"node": "b"}); !ok || got != 3 {
		t.Errorf("node b = %v (published: %t), want the second set's 3", got, ok)
	}
	if _, ok := set.Value(gauge, prometheus.Labels{"node": "a"}); ok {
		t.Error("node a, not in the second set, is still published")
	}
	set.Replace(nil)
	if n := testutil.CollectAndCount(set); n != 0 {
		t.Errorf("%d series after an empty set, want none", n)
	}
}

// What a scrape reads of a set, through a registry that checks every series against the
// gauges' descriptions: labels in any order given, empty values and values holding "=" kept.
func TestGaugeSetExposition(t *testing.T) {
	nodes := NewSetGauge("test_gauge_set_nodes", "Nodes.", "node", "zone", "note")
	pools := NewSetGauge("test_gauge_set_pools", "Pools.", "pool")
	set := &GaugeSet{gauges: []*SetGauge{nodes, pools}}
	set.Replace([]GaugeValue{
		{nodes, prometheus.Labels{"zone": "", "note": "k=v=w", "node": "a"}, 1},
		{nodes, prometheus.Labels{"node": "b", "zone": "z1", "note": "x"}, 2.5},
		{pools, prometheus.Labels{"pool": "a"}, 3},
	})
	want := `# HELP test_gauge_set_nodes Nodes.
# TYPE test_gauge_set_nodes gauge
test_gauge_set_nodes{node="a",note="k=v=w",zone=""} 1
test_gauge_set_nodes{node="b",note="x",zone="z1"} 2.5
# HELP test_gauge_set_pools Pools.
# TYPE test_gauge_set_pools gauge
test_gauge_set_pools{pool="a"} 3
`
	expectExposition(t, set, want)
}

// A label pair is kept once per set, whichever series have it; that is what the set is for.
func TestGaugeSetSharesLabelPairs(t *testing.T) {
	requests := NewSetGauge("test_gauge_set_requests", "Requests.", "node", "zone", "resource_type")
	limits := NewSetGauge("test_gauge_set_limits", "Limits.", "node", "zone", "resource_type")
	set := &GaugeSet{gauges: []*SetGauge{requests, limits}}
	var values []GaugeValue
	for _, gauge := range []*SetGauge{requests, limits} {
		for _, resource := range []string{"cpu", "memory"} {
			values = append(values, GaugeValue{gauge, prometheus.Labels{"node": "a", "zone": "z1", "resource_type": resource}, 1})
		}
	}
	set.Replace(values)
	pairs := map[*dto.LabelPair]bool{}
	for _, metric := range set.series {
		for _, pair := range metric.(*gaugeSample).labels {
			pairs[pair] = true
		}
	}
	if len(pairs) != 4 {
		t.Errorf("%d label pairs kept for 4 series with 4 distinct pairs among them, want 4", len(pairs))
	}
}

func TestGaugeSetRefusesOtherLabels(t *testing.T) {
	gauge := NewSetGauge("test_gauge_set_refuses", "Refuses.", "node")
	set := &GaugeSet{gauges: []*SetGauge{gauge}}
	for _, labels := range []prometheus.Labels{{"pool": "a"}, {"node": "a", "pool": "a"}, {}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("labels %v accepted for a gauge labelled by node", labels)
				}
			}()
			set.Replace([]GaugeValue{{gauge, labels, 1}})
		}()
	}
}

func TestPublishBuildInfo(t *testing.T) {
	PublishBuildInfo()
	if n := testutil.CollectAndCount(buildInfo); n != 1 {
		t.Fatalf("%d build info series, want 1", n)
	}
	version, commit := BuildVersion()
	if got := testutil.ToFloat64(buildInfo.WithLabelValues(version, runtime.Version(), runtime.GOARCH, commit)); got != 1 {
		t.Errorf("build info = %v, want 1", got)
	}
}

// A CompactGaugeVec's series are set, read and deleted by their label values in the gauge's
// order, a scrape reads them with their labels sorted, and a label pair goes with the last
// series holding it.
func TestCompactGaugeVec(t *testing.T) {
	gauge := NewCompactGauge("test_compact_gauge", "Compact.", "name", "type", "status")
	gauge.Set(1, "a", "Ready", "True")
	gauge.Set(2, "a", "Launched", "True")
	gauge.Set(3, "b", "Ready", "False")
	gauge.Set(4, "a", "Ready", "True")
	if got, ok := gauge.Value("a", "Ready", "True"); !ok || got != 4 {
		t.Errorf("a Ready = %v (published: %t), want the last value set, 4", got, ok)
	}
	want := `# HELP test_compact_gauge Compact.
# TYPE test_compact_gauge gauge
test_compact_gauge{name="a",status="True",type="Launched"} 2
test_compact_gauge{name="a",status="True",type="Ready"} 4
test_compact_gauge{name="b",status="False",type="Ready"} 3
`
	expectExposition(t, gauge, want)
	if len(gauge.pairs) != 6 {
		t.Errorf("%d label pairs kept for the pairs name a and b, type Ready and Launched, status True and False, want 6", len(gauge.pairs))
	}
	if !gauge.Delete("a", "Launched", "True") || gauge.Delete("a", "Launched", "True") {
		t.Error("Delete does not tell whether there was a series")
	}
	if _, ok := gauge.pairs[[2]string{"type", "Launched"}]; ok {
		t.Error("the pair type=Launched is kept after its last series went")
	}
	if _, ok := gauge.pairs[[2]string{"name", "a"}]; !ok {
		t.Error("the pair name=a went while a series holds it")
	}
	gauge.Delete("a", "Ready", "True")
	gauge.Delete("b", "Ready", "False")
	if len(gauge.pairs) != 0 {
		t.Errorf("%d label pairs kept with no series", len(gauge.pairs))
	}
	gauge.Set(5, "c", "Ready", "True")
	gauge.Reset()
	if n := testutil.CollectAndCount(gauge); n != 0 || len(gauge.pairs) != 0 {
		t.Errorf("%d series and %d pairs after Reset, want none", n, len(gauge.pairs))
	}
	defer func() {
		if recover() == nil {
			t.Error("two label values accepted for a gauge of three labels")
		}
	}()
	gauge.Set(1, "a", "Ready")
}

// expectExposition checks what a scrape reads of the collector, through a registry that checks
// every series against the collector's descriptions.
func expectExposition(t *testing.T, collector prometheus.Collector, want string) {
	t.Helper()
	registry := prometheus.NewPedanticRegistry()
	registry.MustRegister(collector)
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
