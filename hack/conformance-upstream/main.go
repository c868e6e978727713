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

// Command conformance-upstream runs upstream Karpenter's e2e suites (the test binaries of
// sigs.k8s.io/karpenter/test/suites/<suite>, at the version this module pins) against the
// cluster of KUBECONFIG, one spec per process: each spec gets upstream's environment afresh,
// a failure cannot stop the specs after it (upstream's Ordered containers would skip them),
// and every spec is bounded by -spec-timeout. Specs of the skip list are not run and are
// reported with their reason. Before each spec the cluster must be as upstream's
// environment expects it (no NodePool, node class, node or pod of an earlier spec); what an
// interrupted spec left behind is removed first.
//
// It prints one line per spec (result, time, and for a failure upstream's message, where it
// failed and the spec's logs) and ends with
//
//	conformance-upstream: N passed, M failed, K skipped (of T) in Xs
//
// It exits non-zero when a spec failed or did not run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

type options struct {
	suites    []string
	binDir    string
	skipFile  string
	onlyFile  string
	nodeClass string
	nodePool  string
	// nodeClassKind is the node class's kind as kubectl names it, <kind>.<group>.
	nodeClassKind   string
	repairCondition string
	focus, exclude  *regexp.Regexp
	specTimeout     time.Duration
	timeout         time.Duration
	outDir          string
	kubectl         string
	operatorLog     string
	emulator        string
	list            bool
	// samples, with -node-samples, records each spec's provisioned nodes and their pods.
	samples *sampler
}

func main() {
	var o options
	suites := flag.String("suites", "regression,disruption", "upstream's suites to run, comma-separated")
	flag.StringVar(&o.binDir, "bin", "", "the folder of the suites' test binaries, <suite>.test")
	flag.StringVar(&o.skipFile, "skip", "skip.txt", "the skip list: suite | spec | reason, one spec a line")
	flag.StringVar(&o.onlyFile, "only", "", "run only the specs of this list (suite | spec | reason, one spec a line)")
	flag.StringVar(&o.nodeClass, "default-nodeclass", "nodeclass.yaml", "the node class upstream's specs copy")
	flag.StringVar(&o.nodePool, "default-nodepool", "nodepool.yaml", "the NodePool upstream's specs start from")
	flag.StringVar(&o.repairCondition, "repair-condition", "", "the node condition upstream's repair specs inject, <type>=<status>")
	focus := flag.String("focus", "", "run only the specs whose '<suite>: <spec>' matches this regular expression")
	exclude := flag.String("exclude", "", "leave out the specs whose '<suite>: <spec>' matches this regular expression; the summary counts them")
	flag.DurationVar(&o.specTimeout, "spec-timeout", 25*time.Minute, "the bound of one spec, its cleanup included")
	flag.DurationVar(&o.timeout, "timeout", 0, "the bound of the whole run (0: none); the specs it leaves are reported as not run")
	flag.StringVar(&o.outDir, "out", "", "the folder for each spec's output, Ginkgo report and operator log")
	flag.StringVar(&o.kubectl, "kubectl", "kubectl", "kubectl, to check and clean the cluster between specs")
	flag.StringVar(&o.operatorLog, "operator-log", "", "the operator's log, whose lines of each spec are kept with it")
	flag.StringVar(&o.emulator, "emulator", "", "the KakaoCloud emulator's URL, to check that no VM is left at the end")
	nodeSamples := flag.Bool("node-samples", false, "record each spec's provisioned nodes' offerings and their pods' requests, looked at every second and written when they change, <spec>-nodes.jsonl")
	controllerMetrics := flag.String("controller-metrics", "", "with -node-samples, the controller's metrics URL: its requests to the API server are recorded with the nodes, read every 5 s")
	flag.BoolVar(&o.list, "list", false, "print the specs and the skip list's decisions, run nothing")
	flag.Parse()
	o.suites = strings.Split(*suites, ",")
	for _, re := range []struct {
		flag, value string
		into        **regexp.Regexp
	}{{"-focus", *focus, &o.focus}, {"-exclude", *exclude, &o.exclude}} {
		if re.value == "" {
			continue
		}
		compiled, err := regexp.Compile(re.value)
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance-upstream:", re.flag+":", err)
			os.Exit(2)
		}
		*re.into = compiled
	}
	if *nodeSamples {
		// The watch lasts as long as the process.
		samples, err := newSampler(context.Background(), os.Getenv("KUBECONFIG"), *controllerMetrics, time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance-upstream: -node-samples:", err)
			os.Exit(1)
		}
		o.samples = samples
	}
	kind, err := nodeClassKind(o.nodeClass)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-upstream: -default-nodeclass:", err)
		os.Exit(2)
	}
	o.nodeClassKind = kind
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-upstream:", err)
		os.Exit(1)
	}
}

// chooseSpecs lists the suites' specs, marks those of the skip list, and keeps those -only,
// -focus and -exclude choose; excluded is how many -exclude left out.
func chooseSpecs(o options) (specs []*spec, excluded int, err error) {
	skips, err := readSpecList(o.skipFile)
	if err != nil {
		return nil, 0, err
	}
	for _, suite := range o.suites {
		listed, err := listSpecs(filepath.Join(o.binDir, suite+".test"), suite, filepath.Join(o.outDir, suite+"-specs.json"))
		if err != nil {
			return nil, 0, err
		}
		specs = append(specs, listed...)
	}
	if err := skips.skip(specs, o.suites); err != nil {
		return nil, 0, err
	}
	if o.onlyFile != "" {
		only, err := readSpecList(o.onlyFile)
		if err != nil {
			return nil, 0, err
		}
		if specs, err = only.only(specs, o.suites); err != nil {
			return nil, 0, err
		}
	}
	if o.focus != nil {
		specs = selectSpecs(specs, o.focus, true)
	}
	if o.exclude != nil {
		kept := selectSpecs(specs, o.exclude, false)
		excluded, specs = len(specs)-len(kept), kept
	}
	return specs, excluded, nil
}

func run(o options) error {
	start := time.Now()
	if o.binDir == "" || o.outDir == "" {
		return errors.New("-bin and -out are required")
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return err
	}
	specs, excluded, err := chooseSpecs(o)
	if err != nil {
		return err
	}
	if o.list {
		for _, s := range specs {
			fmt.Println(s.describe())
		}
		return nil
	}

	// A signal stops the spec that runs (Ginkgo gets an interrupt and runs the spec's
	// cleanup), the rest are reported as not run.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var deadline time.Time
	if o.timeout > 0 {
		deadline = start.Add(o.timeout)
	}
	c := cluster{kubectl: o.kubectl, nodeClass: o.nodeClassKind}
	fmt.Printf("conformance-upstream: %d specs of upstream's %s, %d on the skip list\n", len(specs), strings.Join(o.suites, " and "), countSkipped(specs))
	if excluded > 0 {
		fmt.Printf("conformance-upstream: %d more left out by -exclude %q: not run, and not counted below\n", excluded, o.exclude)
	}
	runAll(ctx, o, c, specs, deadline)
	if ctx.Err() != nil {
		fmt.Print(summarize(specs, time.Since(start)))
		return errors.New("interrupted")
	}
	leaks := leftovers(ctx, o, c)
	fmt.Print(summarize(specs, time.Since(start)))
	for _, leak := range leaks {
		fmt.Println("conformance-upstream: after the specs,", leak)
	}
	if failedOrNotRun(specs) {
		return errors.New("not every spec passed")
	}
	if len(leaks) > 0 {
		return errors.New("the specs left the cluster or the emulator unclean")
	}
	return nil
}

// runAll runs the specs one after the other, each on a cluster cleaned of the last one's
// objects; a spec on the skip list, or one that would start after an interrupt or within a
// minute of the time bound, is reported without running.
func runAll(ctx context.Context, o options, c cluster, specs []*spec, deadline time.Time) {
	for i, s := range specs {
		switch {
		case s.skipReason != "":
			s.result = result{state: stateSkipped, message: "skip list: " + s.skipReason}
		case ctx.Err() != nil:
			s.result = result{state: stateNotRun, message: "the run was interrupted"}
		case !deadline.IsZero() && time.Now().Add(time.Minute).After(deadline):
			s.result = result{state: stateNotRun, message: "the run's time bound was reached"}
		default:
			if err := c.ensureClean(ctx, s); err != nil {
				fmt.Printf("      the cluster is not clean before this spec: %v\n", err)
			}
			s.result = runSpec(ctx, o, s, i+1)
		}
		fmt.Println(s.outcome())
	}
}

// leftovers says what the last spec left in the cluster, and the VMs of its nodes.
func leftovers(ctx context.Context, o options, c cluster) []string {
	var leaks []string
	if err := c.ensureClean(ctx, nil); err != nil {
		leaks = append(leaks, err.Error())
	}
	if o.emulator != "" {
		vms, err := vmsLeft(ctx, o.emulator)
		switch {
		case err != nil:
			leaks = append(leaks, "reading the emulator's VMs: "+err.Error())
		case len(vms) > 0:
			leaks = append(leaks, fmt.Sprintf("%d VMs are left in the emulator: %s", len(vms), strings.Join(vms, " ")))
		}
	}
	return leaks
}
