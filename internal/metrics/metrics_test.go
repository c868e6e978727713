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
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "test_gauge_set"}, []string{"node"})
	set := &GaugeSet{}
	set.Replace([]GaugeValue{{gauge, prometheus.Labels{"node": "a"}, 1}, {gauge, prometheus.Labels{"node": "b"}, 2}})
	set.Replace([]GaugeValue{{gauge, prometheus.Labels{"node": "b"}, 3}})
	if n := testutil.CollectAndCount(gauge); n != 1 {
		t.Fatalf("%d series after the second set, want node b's only", n)
	}
	if got := testutil.ToFloat64(gauge.WithLabelValues("b")); got != 3 {
		t.Errorf("node b = %v, want the second set's 3", got)
	}
}

// The set keeps only each series' key and deletes a dropped series by the labels it reads
// back from the key: several labels, an empty value and a value holding "=" included.
func TestGaugeSetDeletesByItsKeys(t *testing.T) {
	nodes := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "test_gauge_set_nodes"}, []string{"node", "zone", "note"})
	pools := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "test_gauge_set_pools"}, []string{"node"})
	set := &GaugeSet{}
	odd := prometheus.Labels{"node": "a", "zone": "", "note": "k=v=w"}
	set.Replace([]GaugeValue{
		{nodes, odd, 1},
		{nodes, prometheus.Labels{"node": "b", "zone": "z1", "note": "x"}, 2},
		{pools, prometheus.Labels{"node": "a"}, 3}, // the same labels on another gauge
	})
	set.Replace([]GaugeValue{{nodes, prometheus.Labels{"node": "b", "zone": "z1", "note": "x"}, 4}})
	if n := testutil.CollectAndCount(nodes); n != 1 {
		t.Errorf("%d node series after the second set, want node b's only", n)
	}
	if n := testutil.CollectAndCount(pools); n != 0 {
		t.Errorf("%d pool series after the second set, want none", n)
	}
	set.Replace(nil)
	if n := testutil.CollectAndCount(nodes); n != 0 {
		t.Errorf("%d node series after an empty set, want none", n)
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
