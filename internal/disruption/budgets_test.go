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

package disruption

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

func TestBudgetActive(t *testing.T) {
	// Wednesday 2026-03-04 10:30 UTC.
	now := time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)
	hours := func(h float64) *metav1.Duration {
		return &metav1.Duration{Duration: time.Duration(h * float64(time.Hour))}
	}
	for _, tc := range []struct {
		name     string
		schedule *string
		duration *metav1.Duration
		want     bool
		err      bool
	}{
		{"no schedule is always active", nil, nil, true, false},
		{"business hours, inside", new("0 9 * * mon-fri"), hours(8), true, false},
		{"business hours, weekend", new("0 9 * * sat,sun"), hours(8), false, false},
		{"window ended", new("0 2 * * *"), hours(2), false, false},
		{"window starts later", new("0 11 * * *"), hours(1), false, false},
		{"fires exactly now", new("30 10 * * *"), hours(1), true, false},
		{"ended exactly now (the window is half-open)", new("30 9 * * *"), hours(1), false, false},
		{"macro @daily with 12h", new("@daily"), hours(12), true, false},
		{"macro @hourly with 10m", new("@hourly"), &metav1.Duration{Duration: 10 * time.Minute}, false, false},
		{"bad schedule fails", new("not a cron"), hours(1), false, true},
		{"schedule without duration fails", new("@daily"), nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BudgetActive(karpv1.Budget{Nodes: "0", Schedule: tc.schedule, Duration: tc.duration}, now)
			if got != tc.want || (err != nil) != tc.err {
				t.Errorf("BudgetActive = %v, %v; want %v, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestAllowedDisruptions(t *testing.T) {
	now := time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)
	blockDuringBusinessHours := karpv1.Budget{Nodes: "0", Schedule: new("0 9 * * mon-fri"), Duration: &metav1.Duration{Duration: 8 * time.Hour}}
	blockAtNight := karpv1.Budget{Nodes: "0", Schedule: new("0 22 * * *"), Duration: &metav1.Duration{Duration: 8 * time.Hour}}
	for _, tc := range []struct {
		name    string
		budgets []karpv1.Budget
		reason  karpv1.DisruptionReason
		total   int
		want    int
		budget  int
		err     bool
	}{
		{"no budgets: unlimited", nil, karpv1.DisruptionReasonDrifted, 10, Unlimited, -1, false},
		{"default 10% of 20", []karpv1.Budget{{Nodes: "10%"}}, karpv1.DisruptionReasonDrifted, 20, 2, 0, false},
		{"most restrictive wins", []karpv1.Budget{{Nodes: "50%"}, {Nodes: "3"}, {Nodes: "20%"}}, karpv1.DisruptionReasonDrifted, 10, 2, 2, false},
		{"scheduled block active", []karpv1.Budget{{Nodes: "10"}, blockDuringBusinessHours}, karpv1.DisruptionReasonDrifted, 10, 0, 1, false},
		{"scheduled block inactive", []karpv1.Budget{{Nodes: "10"}, blockAtNight}, karpv1.DisruptionReasonDrifted, 10, 10, 0, false},
		{"reason-scoped budget applies", []karpv1.Budget{{Nodes: "5"}, {Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}}}, karpv1.DisruptionReasonDrifted, 10, 1, 1, false},
		{"reason-scoped budget of another reason", []karpv1.Budget{{Nodes: "5"}, {Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}}}, karpv1.DisruptionReasonEmpty, 10, 5, 0, false},
		{"unreadable schedule fails closed", []karpv1.Budget{{Nodes: "5"}, {Nodes: "5", Schedule: new("bad"), Duration: &metav1.Duration{Duration: time.Hour}}}, karpv1.DisruptionReasonEmpty, 10, 0, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &karpv1.NodePool{Spec: karpv1.NodePoolSpec{Disruption: karpv1.Disruption{Budgets: tc.budgets}}}
			got := AllowedDisruptions(np, tc.reason, now, tc.total)
			if got.Nodes != tc.want || got.Budget != tc.budget || (got.Err != nil) != tc.err {
				t.Errorf("AllowedDisruptions = %+v; want nodes %d from budget %d, error %v", got, tc.want, tc.budget, tc.err)
			}
		})
	}
}

// FuzzBudgets reads arbitrary budgets as admission and the disruption loop do: a schedule
// admission accepts is one the loop can evaluate, and no budget allows more nodes than its
// pool has when given as a percentage, or fewer than none.
func FuzzBudgets(f *testing.F) {
	for _, seed := range []struct {
		schedule, nodes string
		minutes         int64
		total           uint16
	}{
		{"0 9 * * mon-fri", "10%", 480, 20}, {"@daily", "0", 60, 3}, {"TZ=Asia/Seoul 0 9 * * *", "1", 60, 1},
		{"0 0 30 2 *", "100%", 1, 7}, {"*/0 * * * *", "-1", 0, 0}, {"61 * * * *", "101%", -5, 9}, {"", "5", 10, 10},
	} {
		f.Add(seed.schedule, seed.nodes, seed.minutes, seed.total)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, schedule, nodes string, minutes int64, total uint16) {
		budget := karpv1.Budget{Nodes: nodes, Schedule: &schedule, Duration: &metav1.Duration{Duration: time.Duration(minutes) * time.Minute}}
		np := &karpv1.NodePool{Spec: karpv1.NodePoolSpec{Disruption: karpv1.Disruption{Budgets: []karpv1.Budget{budget}}}}
		if len(np.RuntimeValidate()) == 0 {
			if _, err := BudgetActive(budget, now); err != nil {
				t.Fatalf("admission accepts schedule %q, but the loop cannot read it: %v", schedule, err)
			}
		}
		n, err := karpv1.NodeCount(nodes, int(total))
		if err != nil {
			return
		}
		if n < 0 || (strings.HasSuffix(nodes, "%") && n > int(total)) {
			t.Fatalf("budget %q of %d nodes allows %d", nodes, total, n)
		}
	})
}

// TestBudgetCounts: which nodes of a NodePool count for its budgets, and which use one up.
// Nodes not initialized yet and nodes whose VM is being deleted are not counted at all; a node
// being disrupted uses one up, and so does a NotReady node, except for repair, which acts on
// NotReady nodes and would otherwise be held back by them.
func TestBudgetCounts(t *testing.T) {
	for _, tc := range []struct {
		name               string
		node               BudgetNode
		reason             karpv1.DisruptionReason
		counts, disrupting bool
	}{
		{"not initialized", BudgetNode{Ready: true}, karpv1.DisruptionReasonDrifted, false, false},
		{"VM being deleted", BudgetNode{Initialized: true, Terminating: true, Disrupted: true, Ready: true}, karpv1.DisruptionReasonDrifted, false, false},
		{"ready, untouched", BudgetNode{Initialized: true, Ready: true}, karpv1.DisruptionReasonUnderutilized, true, false},
		{"being disrupted", BudgetNode{Initialized: true, Disrupted: true, Ready: true}, karpv1.DisruptionReasonEmpty, true, true},
		{"NotReady, for drift", BudgetNode{Initialized: true}, karpv1.DisruptionReasonDrifted, true, true},
		{"NotReady, for repair", BudgetNode{Initialized: true}, karpv1.DisruptionReasonUnhealthy, true, false},
		{"NotReady and being disrupted, for repair", BudgetNode{Initialized: true, Disrupted: true}, karpv1.DisruptionReasonUnhealthy, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counts, disrupting := BudgetCounts(tc.node, tc.reason)
			if counts != tc.counts || disrupting != tc.disrupting {
				t.Errorf("BudgetCounts = counts %v, disrupting %v; want %v, %v", counts, disrupting, tc.counts, tc.disrupting)
			}
		})
	}
}

// TestBudgetAllowedIsNeverNegative: more nodes being disrupted than the budget allows (a
// budget lowered, nodes gone NotReady) leaves none to disrupt, not a negative count.
func TestBudgetAllowedIsNeverNegative(t *testing.T) {
	for _, tc := range []struct{ nodes, disrupting, want int }{{3, 1, 2}, {2, 2, 0}, {1, 4, 0}} {
		if got := (budgetState{Allowance: Allowance{Nodes: tc.nodes}, disrupting: tc.disrupting}).allowed(); got != tc.want {
			t.Errorf("budget of %d with %d disrupting allows %d; want %d", tc.nodes, tc.disrupting, got, tc.want)
		}
	}
}
