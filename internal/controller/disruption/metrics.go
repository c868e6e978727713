/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package disruption

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Upstream Karpenter's metric names and labels, so that its dashboards work.
var (
	decisionsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "karpenter_voluntary_disruption_decisions_total",
		Help: "Disruption commands carried out, by decision (delete, replace), reason (empty, drifted, underutilized) and consolidation type (empty, multi, single; empty for drift).",
	}, []string{"decision", "reason", "consolidation_type"})
	eligibleNodes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "karpenter_voluntary_disruption_eligible_nodes",
		Help: "Nodes a disruption method could act on at its last evaluation (nothing holds them), by reason.",
	}, []string{"reason"})
	allowedDisruptions = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "karpenter_nodepools_allowed_disruptions",
		Help: "Nodes a NodePool's budgets allow to be disrupted at once now, by NodePool and reason, before subtracting those already being disrupted.",
	}, []string{"nodepool", "reason"})
	evaluationDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
		Help:    "Duration of one disruption decision: preparing the cluster snapshot and trying the methods in order.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
	})
	consolidationTimeouts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "karpenter_voluntary_disruption_consolidation_timeouts_total",
		Help: "Consolidation passes that ran out of time, by consolidation type (multi, single).",
	}, []string{"consolidation_type"})
	queueFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "karpenter_voluntary_disruption_queue_failures_total",
		Help: "Disruption commands abandoned and rolled back (a replacement failed or timed out, an API call failed), by decision, reason and consolidation type.",
	}, []string{"decision", "reason", "consolidation_type"})
)

func init() {
	crmetrics.Registry.MustRegister(decisionsTotal, eligibleNodes, allowedDisruptions,
		evaluationDuration, consolidationTimeouts, queueFailures)
}
