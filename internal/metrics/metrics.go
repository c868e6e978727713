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

package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// NodeClaimsCreated counts NodeClaims created: by provisioning and static NodePools (reason
// provisioned) and as disruption's replacements (the disruption reason), as upstream counts them.
var NodeClaimsCreated = Counter("karpenter_nodeclaims_created_total",
	"NodeClaims created, by reason (provisioned, or the disruption reason of a replacement), NodePool and whether minValues was relaxed.",
	"reason", "nodepool", "min_values_relaxed")

// ReasonProvisioned is the reason of a NodeClaim created for pending pods or a static NodePool's
// replicas.
const ReasonProvisioned = "provisioned"

// NodeClaimCreated counts a created NodeClaim in NodeClaimsCreated.
func NodeClaimCreated(reason, nodePool string, minValuesRelaxed bool) {
	relaxed := "false"
	if minValuesRelaxed {
		relaxed = "true"
	}
	NodeClaimsCreated.WithLabelValues(reason, nodePool, relaxed).Inc()
}

// DurationBuckets are upstream's buckets for durations of work a controller does: from 5 ms,
// up to the 10 minutes a controller without a timeout may take.
func DurationBuckets() []float64 {
	return []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
		1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120, 150, 300, 450, 600}
}

// Counter makes a counter and registers it with the controller-runtime registry, which the
// manager serves on /metrics; Gauge, Histogram and HistogramVec do the same for theirs.
func Counter(name, help string, labels ...string) *prometheus.CounterVec {
	return register(prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels))
}

// Gauge makes and registers a gauge, as Counter does.
func Gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	return register(prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels))
}

// Histogram makes and registers a histogram without labels, as Counter does.
func Histogram(name, help string, buckets []float64) prometheus.Histogram {
	return register(prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}))
}

// HistogramVec makes and registers a histogram, as Counter does.
func HistogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return register(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels))
}

// SummaryVec makes and registers a summary with upstream's quantiles (0, 0.5, 0.9, 0.99 and
// 1, each within 0.01), as Counter does.
func SummaryVec(name, help string, labels ...string) *prometheus.SummaryVec {
	objectives := map[float64]float64{}
	for _, quantile := range []float64{0, 0.5, 0.9, 0.99, 1} {
		objectives[quantile] = 0.01
	}
	return register(prometheus.NewSummaryVec(prometheus.SummaryOpts{Name: name, Help: help, Objectives: objectives}, labels))
}

func register[T prometheus.Collector](c T) T {
	crmetrics.Registry.MustRegister(c)
	return c
}
