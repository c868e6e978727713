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

package status

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

// Label names, as operatorpkg names them.
const (
	labelNamespace = "namespace"
	labelName      = "name"
	labelType      = "type"
	// labelStatus is the status a condition has; on transition_seconds, the status it left.
	labelStatus   = "status"
	labelToStatus = "to_status"
	labelReason   = "reason"
	labelGroup    = "group"
	labelKind     = "kind"
)

// families are the six metric families kept for one kind of object. Every series carries, after
// its own labels, the same extra labels: the object labels a kind reports (a NodeClaim's
// NodePool, say), or group and kind in the generic families several kinds share.
type families struct {
	transitions         *prometheus.CounterVec
	transitionSeconds   *prometheus.HistogramVec
	currentStatus       *metrics.CompactGaugeVec
	count               *metrics.CompactGaugeVec
	terminationCurrent  *metrics.CompactGaugeVec
	terminationDuration *prometheus.HistogramVec
}

// newFamilies registers the families whose names start with prefix: operator_<kind>_ for one
// kind's, operator_ for the generic ones.
func newFamilies(prefix string, buckets []float64, extraLabels ...string) *families {
	with := func(labels ...string) []string { return append(labels, extraLabels...) }
	return &families{
		transitions: metrics.Counter(prefix+"status_condition_transitions_total",
			"Status condition changes seen, by condition type and the status and reason changed to.",
			with(labelType, labelStatus, labelReason)...),
		transitionSeconds: metrics.HistogramVec(prefix+"status_condition_transition_seconds",
			"How long a status condition had one status (status) when it changed to another (to_status).",
			buckets, with(labelType, labelStatus, labelToStatus)...),
		currentStatus: metrics.NewCompactGauge(prefix+"status_condition_current_status_seconds",
			"How long each status condition of an object has had its current status, refreshed every few seconds.",
			with(labelNamespace, labelName, labelType, labelStatus, labelReason)...),
		count: metrics.NewCompactGauge(prefix+"status_condition_count",
			"1 for each status condition an object has, by type, status and reason.",
			with(labelNamespace, labelName, labelType, labelStatus, labelReason)...),
		terminationCurrent: metrics.NewCompactGauge(prefix+"termination_current_time_seconds",
			"How long ago an object that is still there was asked to be deleted.",
			with(labelNamespace, labelName)...),
		terminationDuration: metrics.HistogramVec(prefix+"termination_duration_seconds",
			"How long objects took to go away once asked to be deleted.",
			buckets, extraLabels...),
	}
}

// lifecycleBuckets span half a second to over two hours, for the kinds whose conditions follow
// a node's life (launch, registration, drain): upstream gives them these instead of
// Prometheus' defaults, which end at 10 seconds.
var lifecycleBuckets = prometheus.ExponentialBuckets(0.5, 2, 15)

var (
	// genericFamilies are the older families, for NodeClaims and NodePools only, as upstream
	// still serves them beside the per-kind ones.
	genericFamilies   = newFamilies("operator_", prometheus.DefBuckets, labelGroup, labelKind)
	nodeClaimFamilies = newFamilies("operator_nodeclaim_", lifecycleBuckets, labelNames(nodeClaimLabels)...)
	nodePoolFamilies  = newFamilies("operator_nodepool_", lifecycleBuckets)
	nodeFamilies      = newFamilies("operator_node_", lifecycleBuckets, labelNames(nodeLabels)...)
	// A node class's conditions change in seconds, not over a node's life: Prometheus'
	// defaults, as upstream's AWS provider keeps them for its EC2NodeClass.
	nodeClassFamilies = newFamilies("operator_kcnodeclass_", prometheus.DefBuckets)
)

// labelNames turns object label keys into Prometheus label names, as operatorpkg does: the
// characters a Prometheus label name cannot hold become underscores.
func labelNames(keys []string) []string {
	names := make([]string, len(keys))
	for i, key := range keys {
		names[i] = strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(key)
	}
	return names
}
