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
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

var (
	usage = metrics.Gauge("karpenter_nodepools_usage",
		"Resources the NodePool's NodeClaims hold, by resource type.",
		"nodepool", "resource_type")
	limit = metrics.Gauge("karpenter_nodepools_limit",
		"The NodePool's limits, by resource type.",
		"nodepool", "resource_type")
)

// recordMetrics publishes the NodePool's usage and limits; resources it no longer has are
// dropped so that a removed limit does not linger.
func recordMetrics(np *karpv1.NodePool) {
	forgetMetrics(np.Name)
	set := func(g *prometheus.GaugeVec, l corev1.ResourceList) {
		for name, q := range l {
			g.WithLabelValues(np.Name, string(name)).Set(q.AsApproximateFloat64())
		}
	}
	set(usage, np.Status.Resources)
	set(limit, corev1.ResourceList(np.Spec.Limits))
}

// forgetMetrics removes a deleted NodePool's series.
func forgetMetrics(name string) {
	usage.DeletePartialMatch(prometheus.Labels{"nodepool": name})
	limit.DeletePartialMatch(prometheus.Labels{"nodepool": name})
}
