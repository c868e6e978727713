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

// Command bench-upstream runs upstream Karpenter's own scheduling benchmark
// (BenchmarkScheduling<N> of sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling,
// the version this module pins) and ours (BenchmarkSchedulingDiverse<N> of
// internal/simulation, the same instance types, NodePool and pod mix) interleaved, one
// process per run so that neither warms the other's caches, both built by the same Go
// toolchain, and prints every raw result line and a table of medians: pods per second, the
// ratio, nodes and cost of each.
//
// Upstream's benchmark reports no cost: BenchmarkSchedulingCost<N> (overlay/cost_test.go),
// compiled into upstream's test package beside its own files, solves the same pods once more
// and reports it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// upstreamPackage is the directory of upstream's scheduling package in its module.
const upstreamPackage = "pkg/controllers/provisioning/scheduling"

func main() {
	rounds := flag.Int("rounds", 3, "runs of each benchmark, interleaved")
	sizes := flag.String("sizes", "100,1000,5000", "pod counts, comma-separated")
	repo := flag.String("repo", "../..", "the operator's repository root")
	flag.Parse()
	if err := run(*rounds, strings.Split(*sizes, ","), *repo); err != nil {
		fmt.Fprintln(os.Stderr, "bench-upstream:", err)
		os.Exit(1)
	}
}

// result is one benchmark line's metrics by unit.
type result map[string]float64

func run(rounds int, sizes []string, repo string) error {
	work, err := os.MkdirTemp("", "bench-upstream-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	upstream, ours := filepath.Join(work, "upstream.test"), filepath.Join(work, "ours.test")
	if err := buildUpstream(work, upstream); err != nil {
		return err
	}
	if err := command(repo, "go", "test", "-c", "-o", ours, "./internal/simulation").Run(); err != nil {
		return fmt.Errorf("building our benchmark: %w", err)
	}
	describeMachine()

	upstreamRuns, ourRuns, costs := map[string][]result{}, map[string][]result{}, map[string]result{}
	for round := 1; round <= rounds; round++ {
		for _, size := range sizes {
			r, err := bench(upstream, "BenchmarkScheduling"+size)
			if err != nil {
				return err
			}
			upstreamRuns[size] = append(upstreamRuns[size], r)
			if r, err = bench(ours, "BenchmarkSchedulingDiverse"+size); err != nil {
				return err
			}
			ourRuns[size] = append(ourRuns[size], r)
		}
	}
	for _, size := range sizes {
		r, err := bench(upstream, "BenchmarkSchedulingCost"+size)
		if err != nil {
			return err
		}
		costs[size] = r
	}

	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pods\tupstream pods/s\tours pods/s\tratio\tupstream nodes\tours nodes\tupstream cost\tours cost\t")
	for _, size := range sizes {
		up, us := median(upstreamRuns[size], "pods/sec"), median(ourRuns[size], "pods/s")
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.1f×\t%.0f\t%.0f\t%.2f\t%.2f\t\n", size, up, us, us/up,
			median(upstreamRuns[size], "nodes"), median(ourRuns[size], "nodes"), costs[size]["cost"], median(ourRuns[size], "cost"))
	}
	return tw.Flush()
}

// buildUpstream compiles upstream's scheduling tests with the performance tag, and the cost
// benchmark beside them. go test does not lay files into the module cache, so the pinned
// module is copied out of it first; upstream's files are built as they are, with upstream's
// own go.mod.
func buildUpstream(work, out string) error {
	// go mod download, not go list -m: on a new machine the module is not in the cache yet,
	// and go list then names no directory.
	answer, err := command(".", "go", "mod", "download", "-json", "sigs.k8s.io/karpenter").Output()
	if err != nil {
		return fmt.Errorf("downloading upstream's module: %w", err)
	}
	var download struct{ Dir, Error string }
	if err := json.Unmarshal(answer, &download); err != nil {
		return fmt.Errorf("reading go mod download's answer: %w", err)
	}
	if download.Error != "" || download.Dir == "" {
		return fmt.Errorf("downloading upstream's module: %q", download.Error)
	}
	module := filepath.Join(work, "karpenter")
	if err := os.CopyFS(module, os.DirFS(download.Dir)); err != nil {
		return fmt.Errorf("copying upstream's module: %w", err)
	}
	cost, err := os.ReadFile(filepath.Join("overlay", "cost_test.go"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(module, upstreamPackage, "zz_cost_test.go"), cost, 0o600); err != nil {
		return err
	}
	if err := command(module, "go", "test", "-c", "-tags=test_performance", "-o", out, "./"+upstreamPackage).Run(); err != nil {
		return fmt.Errorf("building upstream's benchmark: %w", err)
	}
	return nil
}

func command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	return cmd
}

// bench runs one benchmark once in a process of its own, prints its result line and returns
// its metrics.
func bench(binary, name string) (result, error) {
	out, err := command(".", binary, "-test.run=^$", "-test.bench=^"+name+"$", "-test.benchtime=1x", "-test.count=1").Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", name, err, out)
	}
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, name+"-") && line != name {
			continue
		}
		fmt.Println(line)
		fields := strings.Fields(line)
		r := result{}
		// name, iterations, then value-unit pairs.
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: reading %q: %w", name, line, err)
			}
			r[fields[i+1]] = v
		}
		return r, nil
	}
	return nil, fmt.Errorf("%s printed no result:\n%s", name, out)
}

func median(runs []result, unit string) float64 {
	values := make([]float64, 0, len(runs))
	for _, r := range runs {
		values = append(values, r[unit])
	}
	slices.Sort(values)
	return values[len(values)/2]
}

// describeMachine prints what the figures were measured on.
func describeMachine() {
	version, _ := command(".", "go", "version").Output()
	fmt.Print(string(version))
	if cpuinfo, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		cpus := 0
		model := ""
		for line := range strings.Lines(string(cpuinfo)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpus++
				model = strings.TrimSpace(v)
			}
		}
		fmt.Printf("cpu: %s, %d cores\n", model, cpus)
	}
}
