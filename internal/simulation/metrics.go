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

package simulation

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

var (
	schedulingDuration = metrics.HistogramVec("karpenter_scheduler_scheduling_duration_seconds",
		"Duration of one scheduling simulation, by the controller that ran it.",
		metrics.DurationBuckets(), "controller")
	queueDepth = metrics.Gauge("karpenter_scheduler_queue_depth",
		"Pods a simulation has yet to try, by controller and simulation; the last simulation's stays until the next starts.",
		"controller", "scheduling_id")
	unfinishedWork = metrics.Gauge("karpenter_scheduler_unfinished_work_seconds",
		"How long a simulation still running has run, by controller and simulation.",
		"controller", "scheduling_id")
	unschedulablePods = metrics.Gauge("karpenter_scheduler_unschedulable_pods_count",
		"Pods the controller's last simulation could not place.",
		"controller")
	pendingPodsByZone = metrics.Gauge("karpenter_scheduler_pending_pods_by_effective_zone_count",
		"Pending pods of the controller's last simulation by the one zone they can go to, flexible when several, none when none.",
		"controller", "zone")
	ignoredPods = metrics.Gauge("karpenter_scheduler_ignored_pods_count",
		"Pending pods the last provisioning simulation refused to place before trying: what they ask cannot be modelled.").WithLabelValues()
)

// The effective zone of a pending pod that can go to more than one zone, or to none.
const (
	ZoneFlexible = "flexible"
	ZoneNone     = "none"
)

// Simulate is Schedule run by controller, with upstream's scheduler metrics about it: its
// duration, its queue while it runs, and what it left unplaced.
func Simulate(controller string, in Input) *Results {
	start := time.Now()
	id := string(uuid.NewUUID())
	scope := prometheus.Labels{"controller": controller}
	// The previous simulation's series go: one controller's simulations run one at a time.
	for _, gauge := range []*prometheus.GaugeVec{queueDepth, unschedulablePods, pendingPodsByZone} {
		gauge.DeletePartialMatch(scope)
	}
	depth := queueDepth.WithLabelValues(controller, id)
	unfinished := unfinishedWork.WithLabelValues(controller, id)
	in.Progress = func(queued int) {
		depth.Set(float64(queued))
		unfinished.Set(time.Since(start).Seconds())
	}
	res := Schedule(in)
	depth.Set(0)
	unfinishedWork.DeleteLabelValues(controller, id)
	schedulingDuration.WithLabelValues(controller).Observe(time.Since(start).Seconds())
	unschedulablePods.WithLabelValues(controller).Set(float64(len(res.PodErrors)))
	for _, pod := range in.Pods {
		if pod.Status.Phase == corev1.PodPending {
			pendingPodsByZone.WithLabelValues(controller, EffectiveZone(pod, in.VolumeRequirements[pod])).Inc()
		}
	}
	return res
}

// PublishIgnored sets how many pods the last provisioning simulation refused before trying.
func PublishIgnored(res *Results) {
	ignoredPods.Set(float64(res.Ignored))
}

// EffectiveZone is the one zone the pod's required node affinity and its volumes leave it,
// ZoneFlexible when they leave several or do not constrain the zone, ZoneNone when they leave
// none. Topology spread, which upstream also narrows the zones by, is not looked at: a pod
// spread over zones counts as flexible.
func EffectiveZone(pod *corev1.Pod, volumes scheduling.Requirements) string {
	zones := scheduling.FromPodRequiredAffinity(pod).Get(corev1.LabelTopologyZone)
	if volumes.Has(corev1.LabelTopologyZone) {
		zones = zones.Intersection(volumes.Get(corev1.LabelTopologyZone))
	}
	if zones.Operator() != corev1.NodeSelectorOpIn {
		return ZoneFlexible
	}
	switch values := zones.Values(); len(values) {
	case 0:
		return ZoneNone
	case 1:
		return values[0]
	default:
		return ZoneFlexible
	}
}
