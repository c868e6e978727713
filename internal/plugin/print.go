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
	"text/tabwriter"
	"time"
)

// Print writes an answer as a table for people ("" or "table") or as JSON for scripts.
func Print(w io.Writer, answer any, output string) error {
	switch output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(answer)
	case "", "table":
	default:
		return fmt.Errorf("unknown output format %q: table or json", output)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	switch a := answer.(type) {
	case *PodAnswer:
		row(tw, "POD", a.Pod)
		row(tw, "PHASE", a.Phase)
		row(tw, "NODE", a.Node)
		row(tw, "NODECLAIM", a.NodeClaim)
		row(tw, "NOMINATED", a.Nominated)
		row(tw, "DECIDED", when(a.DecidedAt))
		row(tw, "VERDICT", a.Verdict)
		if len(a.RefusedBy) > 0 {
			_, _ = fmt.Fprintln(tw, "\nNODEPOOL\tREFUSED BECAUSE")
			for _, r := range a.RefusedBy {
				_, _ = fmt.Fprintf(tw, "%s\t%s\n", r.NodePool, r.Reason)
			}
		}
	case *NodeAnswer:
		row(tw, "NODE", a.Node)
		row(tw, "NODECLAIM", a.NodeClaim)
		row(tw, "NODEPOOL", a.NodePool)
		row(tw, "DISRUPTING", a.Disrupting)
		row(tw, "DRIFTED", a.Drifted)
		row(tw, "CONSOLIDATABLE", a.Consolidatable)
		row(tw, "HELD", a.Held)
		row(tw, "VERDICT", a.Verdict)
		if len(a.Words) > 0 {
			_, _ = fmt.Fprintln(tw, "\nAT\tREASON\tMESSAGE")
			for _, word := range a.Words {
				_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\n", word.At.UTC().Format(time.RFC3339), word.Reason, word.Message)
			}
		}
	case *NodePoolAnswer:
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
	case *WhatIfAnswer:
		row(tw, "KIND", a.Kind)
		row(tw, "NAME", a.Name)
		row(tw, "UNCHANGED", strconv.Itoa(a.Unchanged))
		_, _ = fmt.Fprintln(tw, "\nNODECLAIM\tNODE\tDRIFT\tWHAT CHANGED")
		for _, d := range a.Drifts {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.NodeClaim, d.Node, d.Reason, d.Message)
		}
		for _, note := range a.Notes {
			row(tw, "\nNOTE", note)
		}
	default:
		return fmt.Errorf("no table for %T", answer)
	}
	return tw.Flush()
}

// row writes a field of a one-object table, nothing when its value is empty.
func row(w io.Writer, name, value string) {
	if value != "" {
		_, _ = fmt.Fprintf(w, "%s\t%s\n", name, value)
	}
}

func when(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
