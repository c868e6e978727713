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

package kakaocloud

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics of KakaoCloud API calls, one observation per HTTP attempt (retries count).
var (
	apiRequestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "karpenter",
		Subsystem: "kakaocloud_api",
		Name:      "requests_total",
		Help:      "KakaoCloud API requests by service, operation and HTTP status code (\"error\" when no answer came back).",
	}, []string{"service", "operation", "code"})
	apiRequestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "karpenter",
		Subsystem: "kakaocloud_api",
		Name:      "request_duration_seconds",
		Help:      "Duration of KakaoCloud API requests by service and operation.",
		Buckets:   []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"service", "operation"})
)

func init() {
	crmetrics.Registry.MustRegister(apiRequestsTotal, apiRequestDuration)
}
