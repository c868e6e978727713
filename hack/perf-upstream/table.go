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
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
)

// report is what the table reads of upstream's PerformanceReport (test/suites/performance).
type report struct {
	TestType      string        `json:"test_type"`
	TotalPods     int           `json:"total_pods"`
	TotalNodes    int           `json:"total_nodes"`
	TotalTime     time.Duration `json:"total_time"`
	PodsDisrupted int           `json:"pods_disrupted"`
	Rounds        int           `json:"rounds"`
	Timestamp     time.Time     `json:"timestamp"`
	P95HeapMB     float64       `json:"karpenter_p95_heap_mb"`
	MaxHeapMB     float64       `json:"karpenter_max_heap_mb"`
	MaxMemoryMB   float64       `json:"karpenter_max_memory_mb"`
	AvgCPUCores   float64       `json:"karpenter_avg_cpu_cores"`
	Samples       int           `json:"metrics_sample_count"`
}

// The runner's sample of the provisioned nodes (hack/conformance-upstream/samples.go).
type nodeSample struct {
	Time time.Time `json:"time"`
	// Nodes counts the nodes by offering; an entry without a count is one node (the samples
	// listed each node before they counted them).
	Nodes []struct {
		InstanceType string `json:"instanceType"`
		Zone         string `json:"zone"`
		CapacityType string `json:"capacityType"`
		Count        int    `json:"count"`
	} `json:"nodes"`
	Pods           int       `json:"pods"`
	CPU            float64   `json:"cpu"`
	MemoryGiB      float64   `json:"memoryGiB"`
	LastPodCreated time.Time `json:"lastPodCreated"`
	// APIRequests are the controller's requests to the API server so far, by "METHOD code";
	// absent when its metrics were not read.
	APIRequests map[string]float64 `json:"apiRequests"`
}

// phase is one report of a spec (upstream's scale-out, consolidation or drift), with the cost
// of the nodes a sample found at its end (sampleAt), and the lower bound of their pods.
type phase struct {
	name   string
	report report
	// end is when the phase's time stopped. Its report is written later: the suite first stops
	// its profiler, which waits for a CPU profile being taken (up to 20 s), so the report's
	// timestamp can be that much after the end, by chance of the profiler's ticks.
	end    time.Time
	cost   float64
	bound  float64
	priced bool
	// afterLastPod is the time from the last pod's creation to the phase's end.
	afterLastPod time.Duration
	// moves and replaces count the disruption commands the controller started between the
	// report before this one and this one, and those of them that launched a replacement;
	// provisioned counts the NodeClaims provisioning created. Known when the controller's log
	// was kept.
	moves, replaces, provisioned int
	logged                       bool
	// writes counts the controller's writes to the API server (creates, updates, patches and
	// deletes) from the end of the phase before to this one's, refused those of them the API
	// server refused with Conflict; known when its metrics were read.
	writes, refused float64
	requested       bool
}

// specRun is one spec of one run: its outcome, its phases in the order they ended, and when
// each of its steps (Ginkgo's By) began.
type specRun struct {
	text    string
	outcome string
	phases  []phase
	steps   []time.Time
}

// phaseEnd is when p's time stopped: its time after the step it was measured in began, the
// last step that began before the time could have started. Without such a step, the report's
// timestamp.
func (r *specRun) phaseEnd(p report) time.Time {
	latestStart := p.Timestamp.Add(-p.TotalTime)
	var step time.Time
	for _, t := range r.steps {
		if !t.After(latestStart) {
			step = t
		}
	}
	if step.IsZero() {
		return p.Timestamp
	}
	return step.Add(p.TotalTime)
}

// readRun reads the performance suite's specs of a run's results folder.
func readRun(dir string, instanceTypes []*cloudprovider.InstanceType) (map[string]*specRun, error) {
	reports, err := filepath.Glob(filepath.Join(dir, "performance", "[0-9][0-9][0-9].json"))
	if err != nil {
		return nil, err
	}
	if len(reports) == 0 {
		return nil, fmt.Errorf("%s: no spec of the performance suite ran", dir)
	}
	runs := map[string]*specRun{}
	for _, file := range reports {
		base := strings.TrimSuffix(file, ".json")
		run, err := readSpec(file)
		if err != nil {
			return nil, err
		}
		samples, err := readSamples(base + "-nodes.jsonl")
		if err != nil {
			return nil, err
		}
		activity, logged, err := readActivity(base + "-operator.log")
		if err != nil {
			return nil, err
		}
		phaseFiles, err := filepath.Glob(filepath.Join(base+"-reports", "*_performance_report.json"))
		if err != nil {
			return nil, err
		}
		for _, pf := range phaseFiles {
			data, err := os.ReadFile(pf)
			if err != nil {
				return nil, err
			}
			p := phase{name: strings.TrimSuffix(filepath.Base(pf), "_performance_report.json")}
			if err := json.Unmarshal(data, &p.report); err != nil {
				return nil, fmt.Errorf("%s: %w", pf, err)
			}
			p.end = run.phaseEnd(p.report)
			if s, ok := sampleAt(samples, p); ok {
				p.cost, p.priced = price(s, instanceTypes)
				p.bound = workload.LowerBound(instanceTypes, s.CPU, s.MemoryGiB)
				if !s.LastPodCreated.IsZero() {
					p.afterLastPod = p.end.Sub(s.LastPodCreated)
				}
			}
			run.phases = append(run.phases, p)
		}
		slices.SortFunc(run.phases, func(a, b phase) int { return a.end.Compare(b.end) })
		countRequests(run.phases, samples)
		if logged {
			// A phase's log lines are those after the end of the phase before it: what the
			// controller does between two phases is the start of the next one.
			var start time.Time
			for i := range run.phases {
				p := &run.phases[i]
				p.logged = true
				p.moves, p.replaces, p.provisioned = activity.during(start, p.end)
				start = p.end
			}
		}
		runs[run.text] = run
	}
	return runs, nil
}

// readSpec reads the spec's text, outcome and steps from the runner's Ginkgo report of it.
func readSpec(file string) (*specRun, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt || s.State == types.SpecStateSkipped && s.Failure.Message == "" {
				continue
			}
			run := &specRun{text: s.FullText(), outcome: fmt.Sprintf("%s in %s", s.State, s.RunTime.Round(time.Second))}
			for _, event := range s.SpecEvents {
				if event.SpecEventType == types.SpecEventByStart {
					run.steps = append(run.steps, event.TimelineLocation.Time)
				}
			}
			return run, nil
		}
	}
	return nil, fmt.Errorf("%s: no spec ran", file)
}

func readSamples(file string) ([]nodeSample, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var samples []nodeSample
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 64<<20)
	for scanner.Scan() {
		var s nodeSample
		if err := json.Unmarshal(scanner.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		samples = append(samples, s)
	}
	return samples, scanner.Err()
}

// logLine is what the table reads of a line of the controller's JSON log: ours names its
// fields as controller-runtime's zap logger does, upstream's as knative's.
type logLine struct {
	Msg        string    `json:"msg"`
	Message    string    `json:"message"`
	TS         time.Time `json:"ts"`
	Time       time.Time `json:"time"`
	Logger     string    `json:"logger"`
	Controller string    `json:"controller"`
	Decision   string    `json:"decision"`
}

// An event of the controller's log the table counts: a disruption command started (kind
// "delete" or "replace", its decision) or a NodeClaim provisioning created ("provisioned").
type logEvent struct {
	at   time.Time
	kind string
}

type activity []logEvent

// readActivity reads the disruption commands and provisioning's NodeClaims from the
// controller's log; false when the log was not kept. Both controllers log a command as
// "disrupting ..." with its decision, and every NodeClaim as "created nodeclaim", naming the
// disruption controller for a replacement.
func readActivity(file string) (activity, bool, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = f.Close() }()
	var out activity
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 64<<20)
	for scanner.Scan() {
		var l logLine
		if json.Unmarshal(scanner.Bytes(), &l) != nil {
			continue // a line that is not JSON (a panic's trace, say) counts for nothing
		}
		msg, at := cmp.Or(l.Msg, l.Message), l.TS
		if at.IsZero() {
			at = l.Time
		}
		switch {
		case strings.HasPrefix(msg, "disrupting ") && l.Decision != "":
			out = append(out, logEvent{at: at, kind: l.Decision})
		case msg == "created nodeclaim" && l.Logger != "disruption" && l.Controller != "disruption":
			out = append(out, logEvent{at: at, kind: "provisioned"})
		}
	}
	return out, true, scanner.Err()
}

// during counts the commands, the replacing ones among them, and provisioning's NodeClaims
// from start to end.
func (a activity) during(start, end time.Time) (moves, replaces, provisioned int) {
	for _, e := range a {
		if e.at.Before(start) || e.at.After(end) {
			continue
		}
		switch e.kind {
		case "provisioned":
			provisioned++
		case "replace":
			moves, replaces = moves+1, replaces+1
		default:
			moves++
		}
	}
	return moves, replaces, provisioned
}

// countRequests counts each phase's writes to the API server: from the controller's counts
// the last sample of the phase before read (the first sample's, for the first phase) to those
// the last sample of this one read, to within the 5 s the counts are read apart.
func countRequests(phases []phase, samples []nodeSample) {
	var read []nodeSample
	for _, s := range samples {
		if s.APIRequests != nil {
			read = append(read, s)
		}
	}
	if len(read) == 0 {
		return
	}
	from := read[0].APIRequests
	for i := range phases {
		p := &phases[i]
		j := -1
		for j+1 < len(read) && !read[j+1].Time.After(p.end) {
			j++
		}
		if j < 0 {
			continue
		}
		to := read[j].APIRequests
		for key, n := range to {
			method, code, _ := strings.Cut(key, " ")
			if !slices.Contains([]string{"POST", "PUT", "PATCH", "DELETE"}, method) {
				continue
			}
			p.writes += n - from[key]
			if code == "409" {
				p.refused += n - from[key]
			}
		}
		p.requested = true
		from = to
	}
}

// sampleAt is the cluster at a phase's end: the last sample taken at or before it. A
// scale-out ends when all its pods run, so they were all bound then: when that sample was taken
// before the last of them were, the next one (which has them all) is the nearer.
func sampleAt(samples []nodeSample, p phase) (nodeSample, bool) {
	i := -1
	for i+1 < len(samples) && !samples[i+1].Time.After(p.end) {
		i++
	}
	if p.report.TestType == "scale-out" && i+1 < len(samples) && (i < 0 || samples[i].Pods < p.report.TotalPods) &&
		samples[i+1].Pods >= p.report.TotalPods {
		return samples[i+1], true
	}
	if i < 0 {
		return nodeSample{}, false
	}
	return samples[i], true
}

// price is what the sampled nodes cost at the compared instance types' prices; false when a
// node's offering is not among them.
func price(s nodeSample, instanceTypes []*cloudprovider.InstanceType) (float64, bool) {
	byName := map[string]*cloudprovider.InstanceType{}
	for _, it := range instanceTypes {
		byName[it.Name], byName[kwokName(it.Name)] = it, it
	}
	total := 0.0
	for _, n := range s.Nodes {
		p, ok := byName[n.InstanceType].PriceOf(map[string]string{karpv1.LabelTopologyZone: n.Zone, karpv1.LabelCapacityType: n.CapacityType})
		if !ok {
			return 0, false
		}
		total += p * float64(max(n.Count, 1))
	}
	return total, true
}

// table compares the runs spec by spec, in the order of the spec texts.
func table(oursDir, upstreamDir string, instanceTypes []*cloudprovider.InstanceType) (string, error) {
	ours, err := readRun(oursDir, instanceTypes)
	if err != nil {
		return "", err
	}
	upstream, err := readRun(upstreamDir, instanceTypes)
	if err != nil {
		return "", err
	}
	texts := maps.Clone(ours)
	maps.Copy(texts, upstream)
	var b strings.Builder
	b.WriteString("Ratio: ours / upstream's; below 1 is ours lower (every figure here is better lower). Goals: time to all pods Running at most 0.5, peak heap at most 0.5, nodes and cost at most 1.\n")
	for _, text := range slices.Sorted(maps.Keys(texts)) {
		writeScenario(&b, text, ours[text], upstream[text])
	}
	return b.String(), nil
}

// A row of a scenario's table: a figure of a phase, how to print it, and the goal on the ratio
// (0: none).
type measure struct {
	name  string
	value func(phase) (float64, bool)
	unit  func(float64) string
	goal  func(phase) float64
}

func always(v float64) func(phase) float64 { return func(phase) float64 { return v } }

var measures = []measure{
	{name: "time", value: func(p phase) (float64, bool) { return p.report.TotalTime.Seconds(), true },
		unit: func(v float64) string { return fmt.Sprintf("%.1f s", v) },
		goal: func(p phase) float64 {
			if p.report.TestType == "scale-out" {
				return 0.5
			}
			return 0
		}},
	{name: "time after the last pod was created", value: func(p phase) (float64, bool) {
		return p.afterLastPod.Seconds(), p.report.TestType == "scale-out" && p.afterLastPod > 0
	}, unit: func(v float64) string { return fmt.Sprintf("%.1f s", v) }, goal: always(0)},
	{name: "controller heap, max", value: func(p phase) (float64, bool) { return p.report.MaxHeapMB, p.report.Samples > 0 },
		unit: megabytes, goal: always(0.5)},
	{name: "controller heap, P95", value: func(p phase) (float64, bool) { return p.report.P95HeapMB, p.report.Samples > 0 },
		unit: megabytes, goal: always(0)},
	{name: "controller memory (RSS), max", value: func(p phase) (float64, bool) { return p.report.MaxMemoryMB, p.report.Samples > 0 },
		unit: megabytes, goal: always(0)},
	{name: "controller CPU, mean", value: func(p phase) (float64, bool) { return p.report.AvgCPUCores, p.report.Samples > 0 },
		unit: func(v float64) string { return fmt.Sprintf("%.3f cores", v) }, goal: always(0)},
	{name: "nodes", value: func(p phase) (float64, bool) { return float64(p.report.TotalNodes), true },
		unit: count, goal: always(1)},
	{name: "cost", value: func(p phase) (float64, bool) { return p.cost, p.priced },
		unit: func(v float64) string { return fmt.Sprintf("%.2f", v) }, goal: always(1)},
	{name: "cost / lower bound", value: func(p phase) (float64, bool) { return p.cost / p.bound, p.priced && p.bound > 0 },
		unit: func(v float64) string { return fmt.Sprintf("%.3f", v) }, goal: always(0)},
	{name: "disruption commands", value: func(p phase) (float64, bool) { return float64(p.moves), p.logged },
		unit: count, goal: always(0)},
	{name: "disruption commands with a replacement", value: func(p phase) (float64, bool) { return float64(p.replaces), p.logged },
		unit: count, goal: always(0)},
	{name: "NodeClaims provisioning created", value: func(p phase) (float64, bool) { return float64(p.provisioned), p.logged },
		unit: count, goal: always(0)},
	{name: "controller's writes to the API server", value: func(p phase) (float64, bool) { return p.writes, p.requested },
		unit: count, goal: always(0)},
	{name: "of them refused with Conflict", value: func(p phase) (float64, bool) { return p.refused, p.requested },
		unit: count, goal: always(0)},
}

func count(v float64) string { return fmt.Sprintf("%.0f", v) }

func megabytes(v float64) string { return fmt.Sprintf("%.1f MB", v) }

// timeMeaning says what a phase's time is, by upstream's report type.
var timeMeaning = map[string]string{
	"scale-out":     "time to all pods Running",
	"consolidation": "time to the consolidated end state",
	"drift":         "time to the drifted end state",
}

func writeScenario(b *strings.Builder, text string, ours, upstream *specRun) {
	fmt.Fprintf(b, "\n### %s\n\n", text)
	fmt.Fprintf(b, "ours: %s; upstream's: %s\n\n", outcomeOf(ours), outcomeOf(upstream))
	b.WriteString("| phase | figure | ours | upstream's | ratio | goal |\n|---|---|---|---|---|---|\n")
	for _, name := range phaseNames(ours, upstream) {
		o, oOK := phaseOf(ours, name)
		u, uOK := phaseOf(upstream, name)
		extra := ""
		if oOK && uOK {
			extra = fmt.Sprintf(" (%d / %d pods", o.report.TotalPods, u.report.TotalPods)
			if o.report.Rounds+u.report.Rounds > 0 {
				extra += fmt.Sprintf(", %d / %d rounds", o.report.Rounds, u.report.Rounds)
			}
			extra += fmt.Sprintf(", %d / %d pods disrupted)", o.report.PodsDisrupted, u.report.PodsDisrupted)
		}
		for _, m := range measures {
			label := m.name
			if m.name == "time" {
				label = timeMeaning[typeOf(o, u)] + extra
				if label == extra {
					label = "time" + extra
				}
			}
			ov, oHas := valueOf(m, o, oOK)
			uv, uHas := valueOf(m, u, uOK)
			cells := []string{name, label, cell(m, ov, oHas), cell(m, uv, uHas), "—", ""}
			if oHas && uHas && uv > 0 {
				ratio := ov / uv
				cells[4] = fmt.Sprintf("%.2f", ratio)
				if goal := m.goal(o); goal > 0 {
					cells[5] = fmt.Sprintf("≤ %.1f: met", goal)
					if ratio > goal {
						cells[5] = fmt.Sprintf("≤ %.1f: missed", goal)
					}
				}
			}
			fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
		}
	}
}

func outcomeOf(r *specRun) string {
	if r == nil {
		return "not run"
	}
	return r.outcome
}

// phaseNames are the phases either run reported, in the order they ended.
func phaseNames(runs ...*specRun) []string {
	var names []string
	for _, r := range runs {
		if r == nil {
			continue
		}
		for _, p := range r.phases {
			if !slices.Contains(names, p.name) {
				names = append(names, p.name)
			}
		}
	}
	return names
}

func phaseOf(r *specRun, name string) (phase, bool) {
	if r == nil {
		return phase{}, false
	}
	for _, p := range r.phases {
		if p.name == name {
			return p, true
		}
	}
	return phase{}, false
}

func typeOf(phases ...phase) string {
	for _, p := range phases {
		if p.report.TestType != "" {
			return p.report.TestType
		}
	}
	return ""
}

func valueOf(m measure, p phase, ok bool) (float64, bool) {
	if !ok {
		return 0, false
	}
	return m.value(p)
}

func cell(m measure, v float64, ok bool) string {
	if !ok {
		return "—"
	}
	return m.unit(v)
}
