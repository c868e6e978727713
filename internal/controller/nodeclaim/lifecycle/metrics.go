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

package lifecycle

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

var (
	// nodeClaimsLaunched is this provider's: upstream has no such family.
	nodeClaimsLaunched = metrics.Counter("karpenter_nodeclaims_launched_total",
		"NodeClaims whose VM was created, by NodePool.",
		"nodepool")
	// nodeClaimsTerminated is upstream's, with its labels.
	nodeClaimsTerminated = metrics.Counter("karpenter_nodeclaims_terminated_total",
		"NodeClaims whose VM and node were deleted, by NodePool, capacity type and zone.",
		"nodepool", "capacity_type", "zone")
	// The rest are upstream's, with its labels and buckets.
	nodesCreated = metrics.Counter("karpenter_nodes_created_total",
		"Nodes that registered, by NodePool and zone.", "nodepool", "zone")
	nodesTerminated = metrics.Counter("karpenter_nodes_terminated_total",
		"Nodes deleted once drained, by NodePool and zone.", "nodepool", "zone")
	nodesDrained = metrics.Counter("karpenter_nodes_drained_total",
		"Nodes drained, by NodePool.", "nodepool")
	nodeTerminationDuration = metrics.SummaryVec("karpenter_nodes_termination_duration_seconds",
		"Time from a node's deletion being asked for until it is gone, by NodePool.", "nodepool")
	nodeLifetime = metrics.HistogramVec("karpenter_nodes_lifetime_duration_seconds",
		"How long nodes lived, from their creation until they are gone, by NodePool.", lifetimeBuckets(), "nodepool")
	podsEvictionRequests = metrics.Counter("karpenter_pods_eviction_requests_total",
		"Eviction requests made while draining nodes, by the API's response code.", "code")
	podsDrained = metrics.Counter("karpenter_pods_drained_total",
		"Pods evicted or deleted while draining nodes, by why the node went: its disruption reason, or Forceful Termination.", "reason")
	instanceTerminationDuration = metrics.HistogramVec("karpenter_nodeclaims_instance_termination_duration_seconds",
		"Time from a NodeClaim's VM deletion starting until the VM is gone, by NodePool.", prometheus.ExponentialBuckets(1, 2, 11), "nodepool")
	nodeClaimTerminationDuration = metrics.HistogramVec("karpenter_nodeclaims_termination_duration_seconds",
		"Time from a NodeClaim's deletion until its finalizer is removed, by NodePool.", prometheus.ExponentialBuckets(1, 2, 12), "nodepool")
)

// lifetimeBuckets are upstream's node lifetime buckets: from 15 minutes to 30 days.
func lifetimeBuckets() []float64 {
	var buckets []float64
	for _, d := range []time.Duration{15 * time.Minute, 30 * time.Minute, 45 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour,
		6 * time.Hour, 8 * time.Hour, 10 * time.Hour, 12 * time.Hour, 16 * time.Hour, 20 * time.Hour} {
		buckets = append(buckets, d.Seconds())
	}
	for _, days := range []int{1, 2, 3, 5, 10, 15, 20, 25, 30} {
		buckets = append(buckets, (time.Duration(days) * 24 * time.Hour).Seconds())
	}
	return buckets
}
