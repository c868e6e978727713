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

package pod

import (
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

// The label names of the per-pod series.
const (
	labelName             = "name"
	labelNamespace        = "namespace"
	labelDynamicResources = "dynamic_resources"
)

var (
	podState = metrics.Gauge("karpenter_pods_state",
		"One series per pod, at 1: its name, namespace, owner, node, whether it is scheduled, the node's NodePool, zone, architecture, capacity type and instance type, its phase, whether it is ready and whether its node is managed by Karpenter.",
		labelName, labelNamespace, "owner", "node", "scheduled", "nodepool", "zone", "arch", "capacity_type", "instance_type", "phase", "ready", "managed")
	startupDuration = metrics.SummaryVec("karpenter_pods_startup_duration_seconds",
		"Time from a pod's creation until it is ready, for pods seen pending.").WithLabelValues()
	unstartedTime = metrics.Gauge("karpenter_pods_unstarted_time_seconds",
		"Time since a pod that has not started yet was created.",
		labelName, labelNamespace)
	boundDuration = metrics.HistogramVec("karpenter_pods_bound_duration_seconds",
		"Time from a pod's creation until it is bound to a node, for pods seen unbound.",
		metrics.DurationBuckets(), labelDynamicResources)
	unboundTime = metrics.Gauge("karpenter_pods_unbound_time_seconds",
		"Time since a pod that is not bound yet was created.",
		labelName, labelNamespace, labelDynamicResources)
	provisioningBoundDuration = metrics.HistogramVec("karpenter_pods_provisioning_bound_duration_seconds",
		"Time from provisioning first finding a pod a place until it is bound. Counted from a moment kept in memory, not from the pod's creation.",
		metrics.DurationBuckets(), labelDynamicResources)
	provisioningUnboundTime = metrics.Gauge("karpenter_pods_provisioning_unbound_time_seconds",
		"Time since provisioning first found a pod that is not bound yet a place.",
		labelName, labelNamespace, labelDynamicResources)
	provisioningStartupDuration = metrics.Histogram("karpenter_pods_provisioning_startup_duration_seconds",
		"Time from provisioning first finding a pod a place until it is ready. Counted from a moment kept in memory, not from the pod's creation.",
		metrics.DurationBuckets())
	provisioningUnstartedTime = metrics.Gauge("karpenter_pods_provisioning_unstarted_time_seconds",
		"Time since provisioning first found a pod that has not started yet a place.",
		labelName, labelNamespace)
	schedulingUndecidedTime = metrics.Gauge("karpenter_pods_provisioning_scheduling_undecided_time_seconds",
		"Time since provisioning first saw a pending pod that it has not decided about yet.",
		labelName, labelNamespace)
)
