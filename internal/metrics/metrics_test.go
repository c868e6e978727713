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

package metrics

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
)

func TestNodeClaimCreated(t *testing.T) {
	NodeClaimCreated(ReasonProvisioned, "default", false)
	NodeClaimCreated(ReasonProvisioned, "default", false)
	NodeClaimCreated("drifted", "default", true)
	for _, tc := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"provisioned", "default", "false"}, 2},
		{[]string{"drifted", "default", "true"}, 1},
		{[]string{"drifted", "default", "false"}, 0},
	} {
		m := &dto.Metric{}
		if err := NodeClaimsCreated.WithLabelValues(tc.labels...).Write(m); err != nil {
			t.Fatal(err)
		}
		if got := m.GetCounter().GetValue(); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.labels, got, tc.want)
		}
	}
}
