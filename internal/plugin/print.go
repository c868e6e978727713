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

package plugin

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
)

// Print writes an answer as a table for people ("" or "table") or as JSON for scripts.
func Print(w io.Writer, answer any, output string) error {
	switch output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(answer); err != nil {
			return fmt.Errorf("writing the answer as JSON: %w", err)
		}
		return nil
	case "", "table":
	default:
		return fmt.Errorf("unknown output format %q: table or json", output)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	switch a := answer.(type) {
	case *PodAnswer:
		podTable(tw, a)
	case *NodeAnswer:
		nodeTable(tw, a)
	case *NodePoolAnswer:
		nodePoolTable(tw, a)
	case *explain.WhatIfAnswer:
		whatIfTable(tw, a)
	case *explain.PodWhatIfAnswer:
		podWhatIfTable(tw, a)
	default:
		return fmt.Errorf("no table for %T", answer)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the answer: %w", err)
	}
	return nil
}

// podTable is why pod's answer: where the pod is or why each NodePool refused it, and what
// provisioning said of it.
func podTable(tw io.Writer, a *PodAnswer) {
	row(tw, "POD", a.Pod)
	row(tw, "PHASE", a.Phase)
	row(tw, "NODE", a.Node)
	row(tw, "NODECLAIM", a.NodeClaim)
	row(tw, "NOMINATED", a.Nominated)
	row(tw, "DECIDED", when(a.DecidedAt))
	row(tw, "VERDICT", a.Verdict)
	if a.Simulated != nil {
		row(tw, "WOULD LAND ON", a.Simulated.Node)
		if a.Simulated.Launch != nil {
			launches(tw, *a.Simulated.Launch)
		}
	}
	refusals(tw, a.RefusedBy)
	words(tw, a.Words)
}

// nodeTable is why node's answer: the disruption loop's verdict and what it said of the node.
func nodeTable(tw io.Writer, a *NodeAnswer) {
	row(tw, "NODE", a.Node)
	row(tw, "NODECLAIM", a.NodeClaim)
	row(tw, "NODEPOOL", a.NodePool)
	row(tw, "DISRUPTING", a.Disrupting)
	row(tw, "DRIFTED", a.Drifted)
	row(tw, "CONSOLIDATABLE", a.Consolidatable)
	row(tw, "HELD", a.Held)
	row(tw, "VERDICT", a.Verdict)
	words(tw, a.Words)
}

// words lists what the operator said, as it said it.
func words(tw io.Writer, words []Word) {
	if len(words) == 0 {
		return
	}
	_, _ = fmt.Fprintln(tw, "\nAT\tREASON\tMESSAGE")
	for _, word := range words {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\n", word.At.UTC().Format(time.RFC3339), word.Reason, word.Message)
	}
}

// nodePoolTable is why nodepool's answer: its budgets now, its limits and its drifted nodes.
func nodePoolTable(tw io.Writer, a *NodePoolAnswer) {
	row(tw, "NODEPOOL", a.NodePool)
	row(tw, "NODES", strconv.Itoa(a.Nodes))
	row(tw, "BLOCKED", strconv.FormatInt(a.Blocked, 10))
	_, _ = fmt.Fprintln(tw, "\nREASON\tALLOWED NOW\tDISRUPTING\tBUDGET\tNEXT WINDOW")
	for _, b := range a.Budgets {
		allowed := strconv.Itoa(b.Allowed)
		if b.Allowed < 0 {
			allowed = "no limit"
		}
		if b.Error != "" {
			allowed = "0 (" + b.Error + ")"
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", b.Reason, allowed, b.Disrupting, b.Budget, when(b.NextWindow))
	}
	if len(a.Limits) > 0 {
		_, _ = fmt.Fprintln(tw, "\nRESOURCE\tUSED\tLIMIT")
		for _, l := range a.Limits {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Resource, l.Used, l.Limit)
		}
	}
	for _, name := range a.Drifted {
		row(tw, "\nDRIFTED", name)
	}
}

// whatIfTable is whatif's answer for an edited NodePool or KCNodeClass: drift, launches and cost.
func whatIfTable(tw io.Writer, a *explain.WhatIfAnswer) {
	row(tw, "KIND", a.Kind)
	row(tw, "NAME", a.Name)
	row(tw, "UNCHANGED", strconv.Itoa(a.Unchanged))
	row(tw, "LAUNCHES", fmt.Sprintf("%d (%d without the edit)", len(a.Launches), a.LaunchesWithoutEdit))
	row(tw, "COST NOW", price(a.Cost.Now))
	row(tw, "COST WITHOUT EDIT", price(a.Cost.WithoutEdit))
	row(tw, "COST WITH EDIT", fmt.Sprintf("%s (%+.3f)", price(a.Cost.WithEdit), a.Cost.Change))
	if a.Cost.Unpriced > 0 {
		row(tw, "UNPRICED NODECLAIMS", strconv.Itoa(a.Cost.Unpriced))
	}
	_, _ = fmt.Fprintln(tw, "\nNODECLAIM\tNODE\tDRIFT\tWHAT CHANGED")
	for _, d := range a.Drifts {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.NodeClaim, d.Node, d.Reason, d.Message)
	}
	launches(tw, a.Launches...)
	if len(a.Pending) > 0 {
		_, _ = fmt.Fprintln(tw, "\nPENDING POD\tWHY")
		for _, p := range a.Pending {
			_, _ = fmt.Fprintf(tw, "%s\t%s\n", p.Pod, p.Reason)
		}
	}
	for _, note := range a.Notes {
		row(tw, "\nNOTE", note)
	}
}

// podWhatIfTable is whatif pod's answer: where the pod would land or what would launch.
func podWhatIfTable(tw io.Writer, a *explain.PodWhatIfAnswer) {
	row(tw, "POD", a.Pod)
	row(tw, "LANDS ON", a.Node)
	row(tw, "UNPLACED", a.Reason)
	if a.Launch != nil {
		launches(tw, *a.Launch)
	}
	refusals(tw, a.RefusedBy)
}

// refusals lists the first reason each NodePool refused a pod for.
func refusals(tw io.Writer, refused []simulation.NodePoolReason) {
	if len(refused) == 0 {
		return
	}
	_, _ = fmt.Fprintln(tw, "\nNODEPOOL\tREFUSED BECAUSE")
	for _, r := range refused {
		_, _ = fmt.Fprintf(tw, "%s\t%s\n", r.NodePool, r.Reason)
	}
}

// row writes a field of a one-object table, nothing when its value is empty.
func row(w io.Writer, name, value string) {
	if value != "" {
		_, _ = fmt.Fprintf(w, "%s\t%s\n", name, value)
	}
}

// launches writes the NodeClaims provisioning would launch.
func launches(w io.Writer, launches ...explain.Launch) {
	if len(launches) == 0 {
		return
	}
	_, _ = fmt.Fprintln(w, "\nLAUNCH FROM NODEPOOL\tCHEAPEST TYPE\tPRICE\tTYPES\tZONES\tPODS")
	for _, l := range launches {
		_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%d\n", l.NodePool, l.InstanceType, price(l.Price), l.InstanceTypes, strings.Join(l.Zones, ","), l.Pods)
	}
}

// price writes a relative cost.
func price(p float64) string {
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func when(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
