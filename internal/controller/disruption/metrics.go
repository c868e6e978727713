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
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

// Upstream Karpenter's metric names and labels, so that its dashboards work.
var (
	decisionsTotal = metrics.Counter("karpenter_voluntary_disruption_decisions_total",
		"Disruption commands carried out, by decision (delete, replace), reason (empty, drifted, underutilized) and consolidation type (empty, multi, single; empty for drift).",
		"decision", "reason", "consolidation_type")
	eligibleNodes = metrics.Gauge("karpenter_voluntary_disruption_eligible_nodes",
		"Nodes a disruption method could act on at its last evaluation (nothing holds them), by reason.",
		"reason")
	allowedDisruptions = metrics.Gauge("karpenter_nodepools_allowed_disruptions",
		"Nodes a NodePool's budgets allow to be disrupted at once now, by NodePool and reason, before subtracting those already being disrupted.",
		"nodepool", "reason")
	evaluationDuration = metrics.HistogramVec("karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
		"Duration of one disruption method's evaluation, by reason and consolidation type.",
		metrics.DurationBuckets(), "reason", "consolidation_type")
	decisionsByNodePool = metrics.Counter("karpenter_voluntary_disruption_decisions_by_nodepool_total",
		"Disruption commands carried out, by NodePool of their candidates, decision, reason and consolidation type.",
		"nodepool", "decision", "reason", "consolidation_type")
	failedValidations = metrics.Counter("karpenter_voluntary_disruption_failed_validations_total",
		"Candidates of consolidation commands abandoned because they no longer held after the validation delay, by consolidation type.",
		"consolidation_type")
	nodesConsumingBudgets = metrics.Gauge("karpenter_nodepools_nodes_consuming_budgets",
		"Nodes of a NodePool being disrupted now, counted against its budgets, by NodePool and reason.",
		"nodepool", "reason")
	consolidationSavings = metrics.Counter("karpenter_kakaocloud_consolidation_savings_total",
		"The hourly relative cost consolidation commands removed, by NodePool of their candidates: the candidates' prices less their replacements'. Relative cost units, not a bill.",
		"nodepool")
	consolidationTimeouts = metrics.Counter("karpenter_voluntary_disruption_consolidation_timeouts_total",
		"Consolidation passes that ran out of time, by consolidation type (multi, single).",
		"consolidation_type")
	consolidationMoves = metrics.Counter("karpenter_consolidation_moves_total",
		"Consolidation moves Balanced NodePools scored, by decision (approved, rejected), NodePool and policy.",
		"decision", "nodepool", "policy")
	consolidationScore = metrics.HistogramVec("karpenter_consolidation_score",
		"Scores of the consolidation moves Balanced NodePools scored, by decision (approved, rejected), NodePool and policy.",
		[]float64{0.1, 0.25, 0.33, 0.5, 1, 2, 5, 10}, "decision", "nodepool", "policy")
	queueFailures = metrics.Counter("karpenter_voluntary_disruption_queue_failures_total",
		"Disruption commands abandoned and rolled back (a replacement failed or timed out, an API call failed), by decision, reason and consolidation type.",
		"decision", "reason", "consolidation_type")
)

func init() {
	// Only the multi- and single-node methods have a time limit: their timeout series start
	// at 0, as upstream's, so that an alert on an increase has a series to read from the start.
	for _, consolidationType := range []string{"multi", "single"} {
		consolidationTimeouts.WithLabelValues(consolidationType).Add(0)
	}
}
