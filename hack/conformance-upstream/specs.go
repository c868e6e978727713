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
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// spec is one of upstream's specs and what became of it.
type spec struct {
	suite, text string
	// description is the suite's, which Ginkgo puts before the spec's text when it matches a
	// focus.
	description string
	file        string
	line        int
	skipReason  string
	result      result
}

func (s *spec) name() string { return s.suite + ": " + s.text }

// listSpecs asks a suite's test binary for its specs (a Ginkgo dry run, which runs no node),
// in the order of their files and lines.
func listSpecs(binary, suite, reportFile string) ([]*spec, error) {
	cmd := exec.Command(binary, "-ginkgo.dry-run", "-ginkgo.json-report="+reportFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("listing the specs of %s: %w\n%s", binary, err, out)
	}
	reports, err := readReports(reportFile)
	if err != nil {
		return nil, err
	}
	var specs []*spec
	for _, report := range reports {
		for _, r := range report.SpecReports {
			if r.LeafNodeType != types.NodeTypeIt {
				continue
			}
			specs = append(specs, &spec{suite: suite, text: r.FullText(), description: report.SuiteDescription,
				file: r.LeafNodeLocation.FileName, line: r.LeafNodeLocation.LineNumber})
		}
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("%s lists no specs", binary)
	}
	slices.SortStableFunc(specs, func(a, b *spec) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	return specs, nil
}

// readReports reads a Ginkgo JSON report: one report per suite.
func readReports(file string) ([]types.Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("reading the Ginkgo report %s: %w", file, err)
	}
	return reports, nil
}

// readReport reads the spec reports of a Ginkgo JSON report, of every suite in it.
func readReport(file string) ([]types.SpecReport, error) {
	reports, err := readReports(file)
	if err != nil {
		return nil, err
	}
	var out []types.SpecReport
	for _, r := range reports {
		out = append(out, r.SpecReports...)
	}
	return out, nil
}

// listEntry is one line of a spec list (the skip list, the quick list): a spec of a suite, by
// its whole text, and why it is on the list.
type listEntry struct {
	suite, text, reason string
	line                int
}

type specList struct {
	file    string
	entries []listEntry
}

// readSpecList reads lines `suite | spec | reason`; blank lines and lines starting with # are
// comments.
func readSpecList(file string) (specList, error) {
	list := specList{file: file}
	f, err := os.Open(file)
	if err != nil {
		return list, err
	}
	defer func() { _ = f.Close() }()
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "|")
		if len(fields) != 3 {
			return list, fmt.Errorf("%s:%d: want suite | spec | reason, got %q", file, n, line)
		}
		e := listEntry{suite: strings.TrimSpace(fields[0]), text: strings.TrimSpace(fields[1]), reason: strings.TrimSpace(fields[2]), line: n}
		if e.suite == "" || e.text == "" || e.reason == "" {
			return list, fmt.Errorf("%s:%d: the suite, the spec and the reason must all be given", file, n)
		}
		list.entries = append(list.entries, e)
	}
	return list, scanner.Err()
}

// match calls found for each entry of a suite being run with the spec it names. Every such
// entry must name exactly one spec, so that a list written for another upstream version does
// not silently name nothing.
func (l specList) match(specs []*spec, suites []string, found func(*spec, listEntry)) error {
	for _, e := range l.entries {
		if !slices.Contains(suites, e.suite) {
			continue
		}
		n := 0
		for _, s := range specs {
			if s.suite == e.suite && s.text == e.text {
				found(s, e)
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s line %d names %d specs of %s, not one: %q", l.file, e.line, n, e.suite, e.text)
		}
	}
	return nil
}

// skip marks the specs the list names as skipped, with its reasons.
func (l specList) skip(specs []*spec, suites []string) error {
	return l.match(specs, suites, func(s *spec, e listEntry) { s.skipReason = e.reason })
}

// only keeps the specs the list names, in the suites' order.
func (l specList) only(specs []*spec, suites []string) ([]*spec, error) {
	named := map[*spec]bool{}
	if err := l.match(specs, suites, func(s *spec, _ listEntry) { named[s] = true }); err != nil {
		return nil, err
	}
	var out []*spec
	for _, s := range specs {
		if named[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// selectSpecs keeps the specs whose name matches re (match true) or does not (match false).
func selectSpecs(specs []*spec, re *regexp.Regexp, match bool) []*spec {
	var out []*spec
	for _, s := range specs {
		if re.MatchString(s.name()) == match {
			out = append(out, s)
		}
	}
	return out
}

func countSkipped(specs []*spec) int {
	n := 0
	for _, s := range specs {
		if s.skipReason != "" {
			n++
		}
	}
	return n
}

// describe is the line -list prints.
func (s *spec) describe() string {
	if s.skipReason != "" {
		return fmt.Sprintf("skip  %s  (%s)", s.name(), s.skipReason)
	}
	return "run   " + s.name()
}
