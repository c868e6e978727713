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

package nodeclass

import (
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodeclass"
)

// The metrics behind the alerts KarpenterNodeClassKubernetesVersionSkewed,
// KarpenterNodeClassKubernetesVersionDeprecated and KarpenterNodeClassImagesRetained.
var (
	versionSkew = metrics.Gauge("karpenter_kakaocloud_nodeclass_kubernetes_version_skew",
		"Control-plane minor version minus the KCNodeClass's worker minor version.",
		"nodeclass")
	versionDeprecated = metrics.Gauge("karpenter_kakaocloud_nodeclass_kubernetes_version_deprecated",
		"1 when Kubernetes Engine no longer offers the KCNodeClass's worker version.",
		"nodeclass")
	imagesRetained = metrics.Gauge("karpenter_kakaocloud_nodeclass_images_retained",
		"1 when the KCNodeClass keeps earlier worker images because the current ones cannot be looked up.",
		"nodeclass")
)

// recordMetrics sets the node class's gauges to what Evaluate decided.
func recordMetrics(name string, decided nodeclass.Result) {
	if decided.VersionSkew != nil {
		versionSkew.WithLabelValues(name).Set(float64(*decided.VersionSkew))
	}
	versionDeprecated.WithLabelValues(name).Set(boolGauge(decided.VersionDeprecated))
	imagesRetained.WithLabelValues(name).Set(boolGauge(decided.ImagesRetained))
}

func deleteMetrics(name string) {
	versionSkew.DeleteLabelValues(name)
	versionDeprecated.DeleteLabelValues(name)
	imagesRetained.DeleteLabelValues(name)
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
