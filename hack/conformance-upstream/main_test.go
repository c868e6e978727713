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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "skip.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSkipList(t *testing.T) {
	specs := []*spec{
		{suite: "regression", text: "Chaos Runaway Scale-Up should not produce a runaway scale-up when consolidation is enabled"},
		{suite: "regression", text: "Chaos Runaway Scale-Up should not produce a runaway scale-up when emptiness is enabled"},
		{suite: "disruption", text: "Drift NodePool Drift NodeRequirements"},
	}
	list, err := readSpecList(writeFile(t, `# a comment

regression | Chaos Runaway Scale-Up should not produce a runaway scale-up when consolidation is enabled | spot
disruption|Drift NodePool Drift NodeRequirements|spot again
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := list.skip(specs, []string{"regression", "disruption"}); err != nil {
		t.Fatal(err)
	}
	if got := []string{specs[0].skipReason, specs[1].skipReason, specs[2].skipReason}; got[0] != "spot" || got[1] != "" || got[2] != "spot again" {
		t.Errorf("skip reasons: got %q", got)
	}

	// A suite that is not run does not check its entries.
	if err := list.skip(specs[:2], []string{"regression"}); err != nil {
		t.Errorf("entries of a suite not run: %v", err)
	}
	stale, err := readSpecList(writeFile(t, "regression | Chaos Runaway Scale-Up renamed | gone\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := stale.skip(specs, []string{"regression"}); err == nil || !strings.Contains(err.Error(), "names 0 specs") {
		t.Errorf("an entry naming no spec: got %v", err)
	}
	for _, bad := range []string{"regression | only two fields\n", "regression | spec | \n"} {
		if _, err := readSpecList(writeFile(t, bad)); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestOnlyList(t *testing.T) {
	specs := []*spec{
		{suite: "regression", text: "Integration should a"},
		{suite: "regression", text: "Integration should b"},
		{suite: "disruption", text: "Drift should c"},
	}
	list, err := readSpecList(writeFile(t, "disruption | Drift should c | quick\nregression | Integration should a | quick\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := list.only(specs, []string{"regression", "disruption"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].text != "Integration should a" || got[1].text != "Drift should c" {
		t.Errorf("only: got %v, want a and c in the suites' order", got)
	}
	stale, err := readSpecList(writeFile(t, "regression | Integration should z | quick\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stale.only(specs, []string{"regression"}); err == nil || !strings.Contains(err.Error(), "names 0 specs") {
		t.Errorf("an entry naming no spec: got %v", err)
	}
}

func TestSummary(t *testing.T) {
	specs := []*spec{
		{suite: "regression", text: "a", result: result{state: statePassed, duration: 10 * time.Second}},
		{suite: "regression", text: "b", result: result{state: stateFailed, duration: 20 * time.Second}},
		{suite: "regression", text: "c", result: result{state: stateSkipped}},
		{suite: "disruption", text: "d", result: result{state: statePassed, duration: 5 * time.Second}},
		{suite: "disruption", text: "e", result: result{state: stateNotRun}},
	}
	got := summarize(specs, 95*time.Second)
	for _, want := range []string{
		"regression: 1 passed, 1 failed, 1 skipped, 0 not run (of 3); the specs ran 30s\n",
		"disruption: 1 passed, 0 failed, 0 skipped, 1 not run (of 2); the specs ran 5s\n",
		"failed: regression: b\n",
		"1 specs did not run or were interrupted",
		"conformance-upstream: 2 passed, 1 failed, 1 skipped (of 5) in 95s\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
}

func TestNodePoolFor(t *testing.T) {
	o := options{nodePool: "dir/nodepool.yaml"}
	for text, want := range map[string]string{
		"CapacityBuffer NodePool Limits should not provision buffer capacity beyond NodePool CPU limit": "dir/nodepool-2vcpu.yaml",
		"CapacityBufferish spec":              "dir/nodepool.yaml",
		"Integration should provision a node": "dir/nodepool.yaml",
	} {
		if got := nodePoolFor(o, &spec{suite: "regression", text: text}); got != want {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
	if got := nodePoolFor(o, &spec{suite: "disruption", text: "CapacityBuffer anything"}); got != "dir/nodepool.yaml" {
		t.Errorf("another suite's spec: %s", got)
	}
	for _, file := range narrowedNodePools {
		if _, err := os.Stat(file); err != nil {
			t.Errorf("narrowed NodePool %s: %v", file, err)
		}
	}
}

func TestNodeClassKind(t *testing.T) {
	for file, want := range map[string]string{
		"nodeclass.yaml":      "kcnodeclass.karpenter.kakaocloud.com",
		"nodeclass-kwok.yaml": "kwoknodeclass.karpenter.kwok.sh",
	} {
		if got, err := nodeClassKind(file); err != nil || got != want {
			t.Errorf("nodeClassKind(%s) = %q, %v; want %q", file, got, err, want)
		}
	}
	core := filepath.Join(t.TempDir(), "configmap.yaml")
	if err := os.WriteFile(core, []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := nodeClassKind(core); err == nil {
		t.Error("a kind of the core group was taken for a node class")
	}
}

// Upstream's CapacityBuffer specs narrow a KWOK NodePool themselves: the runner gives them the
// default NodePool then, and its narrowed copy for ours.
func TestNodePoolForKWOK(t *testing.T) {
	s := &spec{suite: "regression", text: "CapacityBuffer should provision for a buffer"}
	ours := options{nodePool: "nodepool.yaml", nodeClassKind: "kcnodeclass.karpenter.kakaocloud.com"}
	if got := nodePoolFor(ours, s); got != "nodepool-2vcpu.yaml" {
		t.Errorf("ours: %s, want nodepool-2vcpu.yaml", got)
	}
	kwok := options{nodePool: "nodepool-kwok.yaml", nodeClassKind: "kwoknodeclass.karpenter.kwok.sh"}
	if got := nodePoolFor(kwok, s); got != "nodepool-kwok.yaml" {
		t.Errorf("upstream's: %s, want nodepool-kwok.yaml", got)
	}
}
