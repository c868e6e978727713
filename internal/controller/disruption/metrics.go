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
	"github.com/prometheus/client_golang/prometheus"

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
	evaluationDuration = metrics.Histogram("karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
		"Duration of one disruption decision: preparing the cluster snapshot and trying the methods in order.",
		prometheus.ExponentialBuckets(0.001, 2, 16))
	consolidationTimeouts = metrics.Counter("karpenter_voluntary_disruption_consolidation_timeouts_total",
		"Consolidation passes that ran out of time, by consolidation type (multi, single).",
		"consolidation_type")
	consolidationMoves = metrics.Counter("karpenter_consolidation_moves_total",
		"Consolidation moves Balanced NodePools scored, by decision (approved, rejected), NodePool and policy.",
		"decision", "nodepool", "policy")
	consolidationScore = metrics.HistogramVec("karpenter_consolidation_score",
		"Scores of the consolidation moves Balanced NodePools scored, by decision (approved, rejected), NodePool and policy.",
		[]float64{0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16}, "decision", "nodepool", "policy")
	queueFailures = metrics.Counter("karpenter_voluntary_disruption_queue_failures_total",
		"Disruption commands abandoned and rolled back (a replacement failed or timed out, an API call failed), by decision, reason and consolidation type.",
		"decision", "reason", "consolidation_type")
)
