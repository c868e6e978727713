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

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Lines as each controller logs them: ours (controller-runtime's zap) and upstream's
// (knative's), trimmed to the fields the table reads.
const controllerLogs = `{"level":"info","ts":"2026-12-06T02:46:21.649Z","msg":"created nodeclaim","NodeClaim":{"name":"a"}}
{"level":"info","ts":"2026-12-06T02:47:13.327Z","logger":"disruption","msg":"disrupting nodeclaim(s) via replace, terminating 1 nodes (2 pods) b","decision":"replace"}
{"level":"info","ts":"2026-12-06T02:47:14.691Z","logger":"disruption","msg":"created nodeclaim","decision":"replace","NodeClaim":{"name":"c"}}
goroutine 1 [running]:
{"level":"INFO","time":"2026-12-06T02:47:20.000Z","logger":"controller","message":"disrupting node(s)","controller":"disruption","decision":"delete"}
{"level":"INFO","time":"2026-12-06T02:47:21.000Z","logger":"controller","message":"created nodeclaim","controller":"disruption","NodeClaim":{"name":"d"}}
{"level":"INFO","time":"2026-12-06T02:47:22.000Z","logger":"controller","message":"created nodeclaim","controller":"provisioner","NodeClaim":{"name":"e"}}
{"level":"info","ts":"2026-12-06T02:50:00.000Z","msg":"created nodeclaim","NodeClaim":{"name":"f"}}
`

func TestActivity(t *testing.T) {
	file := filepath.Join(t.TempDir(), "001-operator.log")
	if err := os.WriteFile(file, []byte(controllerLogs), 0o600); err != nil {
		t.Fatal(err)
	}
	a, logged, err := readActivity(file)
	if err != nil || !logged {
		t.Fatalf("readActivity: %v, logged %v", err, logged)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, "2026-12-06T"+s+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name                         string
		start, end                   string
		moves, replaces, provisioned int
	}{
		{name: "the whole log", start: "02:00:00", end: "03:00:00", moves: 2, replaces: 1, provisioned: 3},
		{name: "the phase after the first NodeClaim, before the last", start: "02:47:00", end: "02:48:00", moves: 2, replaces: 1, provisioned: 1},
		{name: "no line in it", start: "02:48:00", end: "02:49:00"},
	} {
		moves, replaces, provisioned := a.during(at(tc.start), at(tc.end))
		if moves != tc.moves || replaces != tc.replaces || provisioned != tc.provisioned {
			t.Errorf("%s: %d commands, %d replacing, %d provisioned; want %d, %d, %d", tc.name, moves, replaces, provisioned, tc.moves, tc.replaces, tc.provisioned)
		}
	}

	if _, logged, err := readActivity(filepath.Join(t.TempDir(), "none.log")); err != nil || logged {
		t.Errorf("a log not kept: logged %v, err %v", logged, err)
	}
}

// The suite's basic spec as it ran: its scale-out step began at 13:55:38.5 and the report,
// 64.4 s long, was written at 13:57:13, 29 s after its time stopped (the profiler was taking a
// CPU profile).
func TestPhaseEnd(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, "2026-12-06T"+s+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	run := &specRun{steps: []time.Time{at("13:55:38.5"), at("13:57:13.1")}}
	for _, tc := range []struct {
		name   string
		report report
		want   time.Time
	}{
		{name: "written late: the end is the time after its step began",
			report: report{TotalTime: 64400 * time.Millisecond, Timestamp: at("13:57:13")}, want: at("13:56:42.9")},
		{name: "written at once",
			report: report{TotalTime: 60 * time.Second, Timestamp: at("13:58:13.2")}, want: at("13:58:13.1")},
		{name: "no step before its time began: the timestamp",
			report: report{TotalTime: 10 * time.Minute, Timestamp: at("13:57:00")}, want: at("13:57:00")},
	} {
		if got := run.phaseEnd(tc.report); !got.Equal(tc.want) {
			t.Errorf("%s: %s; want %s", tc.name, got.Format(time.StampMilli), tc.want.Format(time.StampMilli))
		}
	}
}

func TestSampleAt(t *testing.T) {
	base := time.Date(2026, 12, 6, 14, 8, 0, 0, time.UTC)
	samples := []nodeSample{{Time: base, Pods: 961}, {Time: base.Add(5 * time.Second), Pods: 1000}, {Time: base.Add(10 * time.Second), Pods: 870}}
	for _, tc := range []struct {
		name string
		p    phase
		want int // index of the sample, -1 for none
	}{
		{name: "a scale-out whose last pods were bound after the sample before its end: the next",
			p: phase{end: base.Add(4 * time.Second), report: report{TestType: "scale-out", TotalPods: 1000}}, want: 1},
		{name: "a scale-out ending before any sample: the first, if it has them all",
			p: phase{end: base.Add(-time.Second), report: report{TestType: "scale-out", TotalPods: 961}}, want: 0},
		{name: "a scale-out whose pods the next sample has not all either: the one before",
			p: phase{end: base.Add(6 * time.Second), report: report{TestType: "scale-out", TotalPods: 1001}}, want: 1},
		{name: "a consolidation: the last before its end",
			p: phase{end: base.Add(4 * time.Second), report: report{TestType: "consolidation", TotalPods: 1000}}, want: 0},
		{name: "nothing before its end", p: phase{end: base.Add(-time.Second), report: report{TestType: "consolidation"}}, want: -1},
	} {
		got, ok := sampleAt(samples, tc.p)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("%s: the sample of %s; want none", tc.name, got.Time.Format(time.Stamp))
		case tc.want >= 0 && (!ok || !got.Time.Equal(samples[tc.want].Time)):
			t.Errorf("%s: the sample of %s (found %v); want %s", tc.name, got.Time.Format(time.Stamp), ok, samples[tc.want].Time.Format(time.Stamp))
		}
	}
}

// A sample counts its nodes by offering; the samples before that listed each node, and both
// are priced.
func TestPrice(t *testing.T) {
	types := comparedInstanceTypes()
	var counted, listed nodeSample
	for _, line := range []struct {
		into *nodeSample
		json string
	}{
		{&counted, `{"nodes":[{"instanceType":"r2a.4xlarge","zone":"kr-central-2-a","capacityType":"on-demand","count":3},{"instanceType":"r2a-2xlarge","zone":"kr-central-2-b","capacityType":"on-demand","count":1}]}`},
		{&listed, `{"nodes":[{"name":"a","instanceType":"r2a.4xlarge","zone":"kr-central-2-a","capacityType":"on-demand"},{"name":"b","instanceType":"r2a.4xlarge","zone":"kr-central-2-b","capacityType":"on-demand"},{"name":"c","instanceType":"r2a.4xlarge","zone":"kr-central-2-c","capacityType":"on-demand"},{"name":"d","instanceType":"r2a-2xlarge","zone":"kr-central-2-b","capacityType":"on-demand"}]}`},
	} {
		if err := json.Unmarshal([]byte(line.json), line.into); err != nil {
			t.Fatal(err)
		}
	}
	one := func(name string) float64 {
		for _, it := range types {
			if it.Name == name {
				if of, ok := it.Offerings.Available().Cheapest(); ok {
					return of.Price
				}
			}
		}
		t.Fatalf("no offering of %s", name)
		return 0
	}
	want := 3*one("r2a.4xlarge") + one("r2a.2xlarge")
	for name, s := range map[string]nodeSample{"counted": counted, "listed": listed} {
		if got, ok := price(s, types); !ok || got != want {
			t.Errorf("%s: %v (priced %v); want %v", name, got, ok, want)
		}
	}
}

// A phase's writes run from the counts read before the phase before it ended to those read
// before it ends; reads and samples without counts are left out.
func TestCountRequests(t *testing.T) {
	base := time.Date(2026, 12, 6, 19, 5, 40, 0, time.UTC)
	samples := []nodeSample{
		{Time: base.Add(-2 * time.Second)},
		{Time: base, APIRequests: map[string]float64{"PATCH 200": 100, "PATCH 409": 10, "GET 200": 5}},
		{Time: base.Add(70 * time.Second), APIRequests: map[string]float64{"PATCH 200": 3100, "PATCH 409": 1600, "POST 201": 1600, "GET 200": 20}},
		{Time: base.Add(75 * time.Second), APIRequests: map[string]float64{"PATCH 200": 3150, "PATCH 409": 1650, "POST 201": 1610, "GET 200": 25}},
		{Time: base.Add(600 * time.Second), APIRequests: map[string]float64{"PATCH 200": 7500, "PATCH 409": 2330, "POST 201": 2800, "PUT 409": 10, "DELETE 200": 300}},
	}
	phases := []phase{
		{name: "before any count", end: base.Add(-time.Second)},
		{name: "scale-out", end: base.Add(72 * time.Second)},
		{name: "consolidation", end: base.Add(700 * time.Second)},
	}
	countRequests(phases, samples)
	for i, want := range []struct {
		writes, refused float64
		requested       bool
	}{
		{0, 0, false},
		{3000 + 1590 + 1600, 1590, true},
		{(7500 - 3100) + (2330 - 1600) + (2800 - 1600) + 10 + 300, (2330 - 1600) + 10, true},
	} {
		p := phases[i]
		if p.writes != want.writes || p.refused != want.refused || p.requested != want.requested {
			t.Errorf("%s: %v writes, %v refused (counted %v); want %v, %v (%v)", p.name, p.writes, p.refused, p.requested, want.writes, want.refused, want.requested)
		}
	}
}
