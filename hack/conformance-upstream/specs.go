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
	data, err := os.ReadFile(reportFile)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("reading the Ginkgo report %s: %w", reportFile, err)
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

func readReport(file string) ([]types.SpecReport, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("reading the Ginkgo report %s: %w", file, err)
	}
	var out []types.SpecReport
	for _, r := range reports {
		out = append(out, r.SpecReports...)
	}
	return out, nil
}

// skipEntry is one line of the skip list: a spec of a suite, by its whole text, and why it
// does not apply.
type skipEntry struct {
	suite, text, reason string
	line                int
}

type skipList []skipEntry

// readSkipList reads lines `suite | spec | reason`; blank lines and lines starting with # are
// comments.
func readSkipList(file string) (skipList, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var list skipList
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "|")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want suite | spec | reason, got %q", file, n, line)
		}
		e := skipEntry{suite: strings.TrimSpace(fields[0]), text: strings.TrimSpace(fields[1]), reason: strings.TrimSpace(fields[2]), line: n}
		if e.suite == "" || e.text == "" || e.reason == "" {
			return nil, fmt.Errorf("%s:%d: the suite, the spec and the reason must all be given", file, n)
		}
		list = append(list, e)
	}
	return list, scanner.Err()
}

// apply marks the skipped specs. Every entry of a suite being run must name exactly one of its
// specs, so that a list written for another upstream version does not silently skip nothing.
func (l skipList) apply(specs []*spec, suites []string) error {
	for _, e := range l {
		if !slices.Contains(suites, e.suite) {
			continue
		}
		found := 0
		for _, s := range specs {
			if s.suite == e.suite && s.text == e.text {
				s.skipReason = e.reason
				found++
			}
		}
		if found != 1 {
			return fmt.Errorf("skip list line %d names %d specs of %s, not one: %q", e.line, found, e.suite, e.text)
		}
	}
	return nil
}

func selectSpecs(specs []*spec, focus *regexp.Regexp) []*spec {
	var out []*spec
	for _, s := range specs {
		if focus.MatchString(s.name()) {
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
