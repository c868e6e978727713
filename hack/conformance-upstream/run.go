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
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

type state int

const (
	statePassed state = iota
	stateFailed
	stateSkipped
	stateNotRun
)

// result is what became of a spec: its state, upstream's message (the failure, or why the
// spec skipped itself), where it failed, how long it ran and where its output is.
type result struct {
	state    state
	message  string
	location string
	duration time.Duration
	files    []string
}

// After a spec's own bound, the time its process is given to write its report before it is
// killed.
const killDelay = 10 * time.Minute

// narrowedNodePools are the NodePools the specs of some of upstream's containers start from
// instead of -default-nodepool, by '<suite>: <container>'. Those specs count nodes that depend
// on node size, and narrow the NodePool to 2-vCPU instance types themselves only when the node
// class is upstream's KWOK one ("Constrain to small instances (2 CPU) so buffer pods force
// multiple nodes"); the file given narrows ours the same way.
var narrowedNodePools = map[string]string{
	"regression: CapacityBuffer": "nodepool-2vcpu.yaml",
}

// kwokNodeClassGroup is the group of upstream's KWOK node class, whose NodePools upstream's
// specs narrow themselves.
const kwokNodeClassGroup = "karpenter.kwok.sh"

// nodePoolFor is the NodePool file spec s starts from.
func nodePoolFor(o options, s *spec) string {
	if strings.HasSuffix(o.nodeClassKind, "."+kwokNodeClassGroup) {
		return o.nodePool
	}
	for container, file := range narrowedNodePools {
		if strings.HasPrefix(s.suite+": "+s.text, container+" ") {
			return filepath.Join(filepath.Dir(o.nodePool), file)
		}
	}
	return o.nodePool
}

// runSpec runs one spec in a process of its own, with upstream's flags for the provider's
// node class, NodePool and repair condition, and reads its Ginkgo report.
func runSpec(ctx context.Context, o options, s *spec, n int) result {
	dir := filepath.Join(o.outDir, s.suite)
	base := filepath.Join(dir, fmt.Sprintf("%03d", n))
	if err := os.MkdirAll(base+"-reports", 0o755); err != nil {
		return result{state: stateFailed, message: err.Error()}
	}
	report, output, operatorLog := base+".json", base+".log", base+"-operator.log"
	args := []string{
		"-test.timeout=" + (o.specTimeout + killDelay).String(),
		"-ginkgo.focus=^" + regexp.QuoteMeta(s.description+" "+s.text) + "$",
		"-ginkgo.v",
		"-ginkgo.timeout=" + o.specTimeout.String(),
		// An interrupted spec's cleanup (upstream's AfterEach deletes what the spec made and
		// waits for the nodes to go) is given time to finish.
		"-ginkgo.grace-period=5m",
		"-ginkgo.json-report=" + report,
		"-default-nodeclass=" + absolute(o.nodeClass),
		"-default-nodepool=" + absolute(nodePoolFor(o, s)),
	}
	if o.repairCondition != "" {
		args = append(args, "-repair-condition="+o.repairCondition)
	}
	out, err := os.Create(output)
	if err != nil {
		return result{state: stateFailed, message: err.Error()}
	}
	defer func() { _ = out.Close() }()
	specCtx, cancel := context.WithTimeout(ctx, o.specTimeout+killDelay)
	defer cancel()
	cmd := exec.CommandContext(specCtx, absolute(filepath.Join(o.binDir, s.suite+".test")), args...)
	cmd.Stdout, cmd.Stderr = out, out
	// Upstream's suites write their time intervals (CSV) and the performance suite its reports
	// there (else in a new folder of /tmp); a folder per spec, as specs reuse the file names.
	cmd.Env = append(os.Environ(), "OUTPUT_DIR="+absolute(base+"-reports"))
	// Stopped early, the spec is interrupted as Ginkgo expects, so that its cleanup runs, and
	// killed if that does not end it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Minute
	from := fileSize(o.operatorLog)
	files := []string{output}
	stopSampling := func() {}
	if o.samples != nil {
		samples := base + "-nodes.jsonl"
		files = append(files, samples)
		sampling, cancelSampling := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := o.samples.record(sampling, samples); err != nil {
				fmt.Printf("      recording the nodes: %v\n", err)
			}
		}()
		stopSampling = func() { cancelSampling(); <-done }
	}
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	stopSampling()
	if o.operatorLog != "" && copyRange(o.operatorLog, operatorLog, from) == nil {
		files = append(files, operatorLog)
	}

	if ctx.Err() != nil {
		return result{state: stateNotRun, message: fmt.Sprintf("the run was interrupted %s into the spec", elapsed.Round(time.Second)), files: files}
	}
	r := readResult(report, s.text)
	if r == nil {
		msg := "the spec wrote no report"
		if specCtx.Err() != nil {
			msg = fmt.Sprintf("the spec was killed %s after its bound of %s", killDelay, o.specTimeout)
		}
		if runErr != nil {
			msg += ": " + runErr.Error()
		}
		return result{state: stateFailed, message: msg, duration: elapsed, files: files}
	}
	r.files = files
	return *r
}

// readResult reads the spec's outcome from its report: the It of that text, or a failure of
// the suite's setup that kept it from running.
func readResult(report, text string) *result {
	reports, err := readReport(report)
	if err != nil {
		return nil
	}
	var it *types.SpecReport
	var setup *types.SpecReport
	for i := range reports {
		r := &reports[i]
		switch {
		case r.LeafNodeType == types.NodeTypeIt && r.FullText() == text:
			it = r
		case r.State.Is(types.SpecStateFailureStates) && setup == nil:
			setup = r
		}
	}
	if it == nil {
		return nil
	}
	res := &result{duration: it.RunTime}
	switch {
	case it.State == types.SpecStatePassed:
		res.state = statePassed
	case it.State.Is(types.SpecStateFailureStates):
		res.state = stateFailed
		res.message = failureMessage(it)
		res.location = it.Failure.Location.String()
	case setup != nil:
		res.state = stateFailed
		res.message = fmt.Sprintf("%s failed: %s", setup.LeafNodeType, failureMessage(setup))
		res.location = setup.Failure.Location.String()
	case it.Failure.Message == "":
		// Skipped without a Skip of upstream's: Ginkgo's focus did not select it.
		res.state = stateFailed
		res.message = "the spec did not run: the focus did not select it"
	default:
		res.state = stateSkipped
		res.message = "upstream: " + strings.TrimSpace(it.Failure.Message)
	}
	return res
}

func failureMessage(r *types.SpecReport) string {
	msg := strings.TrimSpace(r.Failure.Message)
	if r.State != types.SpecStateFailed {
		msg = fmt.Sprintf("%s (%s in %s)", msg, r.State, r.Failure.FailureNodeType)
	}
	for _, extra := range r.AdditionalFailures {
		msg += "\nthen: " + strings.TrimSpace(extra.Failure.Message)
	}
	return msg
}

// outcome is the spec's line in the output: its result, its time and, for a failure, upstream's
// message and where its output is.
func (s *spec) outcome() string {
	r := s.result
	label := map[state]string{statePassed: "PASS", stateFailed: "FAIL", stateSkipped: "SKIP", stateNotRun: "NOT RUN"}[r.state]
	took := ""
	if r.duration > 0 {
		took = r.duration.Round(100 * time.Millisecond).String()
	}
	b := &strings.Builder{}
	fmt.Fprintf(b, "%-7s %8s  %s", label, took, s.name())
	switch r.state {
	case statePassed:
	case stateFailed:
		for _, l := range firstLines(r.message, 12) {
			fmt.Fprintf(b, "\n        | %s", l)
		}
		if r.location != "" {
			fmt.Fprintf(b, "\n        | at %s", r.location)
		}
		if len(r.files) > 0 {
			fmt.Fprintf(b, "\n        | output: %s", strings.Join(r.files, ", "))
		}
	default:
		fmt.Fprintf(b, "  (%s)", firstLines(r.message, 1)[0])
	}
	return b.String()
}

func firstLines(s string, n int) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines in the spec's output)", len(lines)-n))
	}
	return lines
}

// summarize counts the results per suite and in all, and names the failed specs again.
func summarize(specs []*spec, took time.Duration) string {
	b := &strings.Builder{}
	type counts struct {
		passed, failed, skipped, notRun, total int
		time                                   time.Duration
	}
	var all counts
	bySuite := map[string]*counts{}
	var order []string
	for _, s := range specs {
		c := bySuite[s.suite]
		if c == nil {
			c = &counts{}
			bySuite[s.suite] = c
			order = append(order, s.suite)
		}
		for _, c := range []*counts{c, &all} {
			c.total++
			c.time += s.result.duration
			switch s.result.state {
			case statePassed:
				c.passed++
			case stateFailed:
				c.failed++
			case stateSkipped:
				c.skipped++
			case stateNotRun:
				c.notRun++
			}
		}
	}
	fmt.Fprintln(b)
	for _, suite := range order {
		c := bySuite[suite]
		fmt.Fprintf(b, "%s: %d passed, %d failed, %d skipped, %d not run (of %d); the specs ran %s\n",
			suite, c.passed, c.failed, c.skipped, c.notRun, c.total, c.time.Round(time.Second))
	}
	for _, s := range specs {
		if s.result.state == stateFailed {
			fmt.Fprintf(b, "failed: %s\n", s.name())
		}
	}
	if all.notRun > 0 {
		fmt.Fprintf(b, "%d specs did not run or were interrupted: the run was stopped, or its time bound was reached\n", all.notRun)
	}
	fmt.Fprintf(b, "conformance-upstream: %d passed, %d failed, %d skipped (of %d) in %ds\n",
		all.passed, all.failed, all.skipped, all.total, int(took.Seconds()))
	return b.String()
}

func failedOrNotRun(specs []*spec) bool {
	for _, s := range specs {
		if s.result.state == stateFailed || s.result.state == stateNotRun {
			return true
		}
	}
	return false
}

func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

func fileSize(path string) int64 {
	if path == "" {
		return 0
	}
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// copyRange copies what was appended to the file src since offset into dst.
func copyRange(src, dst string, offset int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	if _, err := in.Seek(offset, io.SeekStart); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
