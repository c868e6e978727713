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

package node

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

// nodeGauges are the node and cluster gauges.
type nodeGauges struct {
	// wellKnown maps each well-known label key to its metric label name.
	wellKnown map[string]string

	allocatable, systemOverhead, totalPodRequests, totalPodLimits *metrics.SetGauge
	totalDaemonRequests, totalDaemonLimits, currentLifetime       *metrics.SetGauge
	clusterUtilization                                            *metrics.SetGauge
	// set publishes the gauges above, recomputed as a whole every pass.
	set                             *metrics.GaugeSet
	nodeCount, synced, unsyncedTime prometheus.Gauge
}

// gauges are made on first use rather than when the package loads, because the node gauges'
// label names come from the well-known labels, to which the cloud provider's API package adds
// its own when it loads.
var gauges = sync.OnceValue(func() *nodeGauges {
	g := &nodeGauges{wellKnown: map[string]string{}}
	names := map[string]bool{}
	for key := range karpv1.WellKnownLabels {
		// A key's name after its domain, as upstream names these labels: zone, instance_type.
		_, name, ok := strings.Cut(key, "/")
		if !ok {
			continue
		}
		name = strings.ReplaceAll(strings.ToLower(name), "-", "_")
		g.wellKnown[key] = name
		names[name] = true
	}
	labels := []string{"node_name", "phase", "managed"}
	for name := range names {
		labels = append(labels, name)
	}
	withResource := append(append([]string{}, labels...), "resource_type")
	g.allocatable = metrics.NewSetGauge("karpenter_nodes_allocatable", "Node allocatable, by resource type (CPU in cores).", withResource...)
	g.systemOverhead = metrics.NewSetGauge("karpenter_nodes_system_overhead", "What a node keeps for the system: its capacity less its allocatable.", withResource...)
	g.totalPodRequests = metrics.NewSetGauge("karpenter_nodes_total_pod_requests", "The requests of the pods bound to a node, DaemonSet pods included.", withResource...)
	g.totalPodLimits = metrics.NewSetGauge("karpenter_nodes_total_pod_limits", "The limits of the pods bound to a node, DaemonSet pods included.", withResource...)
	g.totalDaemonRequests = metrics.NewSetGauge("karpenter_nodes_total_daemon_requests", "The requests of the DaemonSet pods bound to a node.", withResource...)
	g.totalDaemonLimits = metrics.NewSetGauge("karpenter_nodes_total_daemon_limits", "The limits of the DaemonSet pods bound to a node.", withResource...)
	g.currentLifetime = metrics.NewSetGauge("karpenter_nodes_current_lifetime_seconds", "Time since a node was created.", labels...)
	g.clusterUtilization = metrics.NewSetGauge("karpenter_cluster_utilization_percent", "The pods' requests in percent of the nodes' allocatable, over every node.", "resource_type")
	g.set = metrics.NewGaugeSet(g.allocatable, g.systemOverhead, g.totalPodRequests, g.totalPodLimits,
		g.totalDaemonRequests, g.totalDaemonLimits, g.currentLifetime, g.clusterUtilization)
	g.nodeCount = metrics.Gauge("karpenter_cluster_state_node_count", "Nodes the operator knows: every node, and every NodeClaim whose node has not registered.").WithLabelValues()
	g.synced = metrics.Gauge("karpenter_cluster_state_synced", "1 when the cache the controllers decide from has synced, 0 otherwise.").WithLabelValues()
	g.unsyncedTime = metrics.Gauge("karpenter_cluster_state_unsynced_time_seconds", "Time for which that cache has not been synced, 0 while it is.").WithLabelValues()
	return g
})
