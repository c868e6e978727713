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

package kakaocloud

import (
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

// Metrics of KakaoCloud API calls, one observation per HTTP attempt (retries count).
var (
	apiRequestsTotal = metrics.Counter("karpenter_kakaocloud_api_requests_total",
		"KakaoCloud API requests by service, operation and HTTP status code (\"error\" when no answer came back).",
		"service", "operation", "code")
	apiRequestDuration = metrics.HistogramVec("karpenter_kakaocloud_api_request_duration_seconds",
		"Duration of KakaoCloud API requests by service and operation.",
		[]float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}, "service", "operation")
)
