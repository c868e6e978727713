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

package nodepool

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

var (
	usage = metrics.Gauge("karpenter_nodepools_usage",
		"Resources the NodePool's NodeClaims hold, by resource type.",
		"nodepool", "resource_type")
	limit = metrics.Gauge("karpenter_nodepools_limit",
		"The NodePool's limits, by resource type.",
		"nodepool", "resource_type")
	cost = metrics.Gauge("karpenter_nodepools_cost_total",
		"What the NodePool's launched NodeClaims cost together, in the relative cost units of their offerings (the prices Karpenter chooses by, not a bill).",
		"nodepool")
)

// recordMetrics publishes the NodePool's usage, limits and cost (when its instance types could
// be listed); resources it no longer has are dropped so that a removed limit does not linger.
func recordMetrics(np *karpv1.NodePool, nodePoolCost float64, costKnown bool) {
	forgetMetrics(np.Name)
	set := func(g *prometheus.GaugeVec, l corev1.ResourceList) {
		for name, q := range l {
			g.WithLabelValues(np.Name, resourceType(name)).Set(q.AsApproximateFloat64())
		}
	}
	set(usage, np.Status.Resources)
	set(limit, corev1.ResourceList(np.Spec.Limits))
	if costKnown {
		cost.WithLabelValues(np.Name).Set(nodePoolCost)
	}
}

// resourceType is a resource name as upstream's resource_type label writes it: in lower case,
// dashes as underscores (ephemeral_storage).
func resourceType(name corev1.ResourceName) string {
	return strings.ReplaceAll(strings.ToLower(string(name)), "-", "_")
}

// costOf sums what the launched NodeClaims cost in their offering (instance type, zone and
// capacity type, from their labels); NodeClaims not launched yet cost nothing, as upstream
// counts them.
func costOf(claims []karpv1.NodeClaim, types []*cloudprovider.InstanceType) float64 {
	byName := make(map[string]*cloudprovider.InstanceType, len(types))
	for _, it := range types {
		byName[it.Name] = it
	}
	var total float64
	for i := range claims {
		if price, ok := byName[claims[i].Labels[karpv1.LabelInstanceType]].PriceOf(claims[i].Labels); ok {
			total += price
		}
	}
	return total
}

// forgetMetrics removes a deleted NodePool's series.
func forgetMetrics(name string) {
	usage.DeletePartialMatch(prometheus.Labels{"nodepool": name})
	limit.DeletePartialMatch(prometheus.Labels{"nodepool": name})
	cost.DeletePartialMatch(prometheus.Labels{"nodepool": name})
}
