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

package signing_test

import (
	"maps"
	"testing"

	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// instancesBySigningKey gathers the gauge from the controller-runtime registry, which also
// shows that it is registered there under its documented name.
func instancesBySigningKey(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]float64{}
	for _, family := range families {
		if family.GetName() != "karpenter_kakaocloud_instances_by_signing_key" {
			continue
		}
		if want := "VMs of this cluster whose marker is signed by this key; an old key can be removed from the keyring when its count is 0."; family.GetHelp() != want {
			t.Errorf("help = %q, want %q", family.GetHelp(), want)
		}
		for _, metric := range family.GetMetric() {
			if labels := metric.GetLabel(); len(labels) != 1 || labels[0].GetName() != "key_id" {
				t.Fatalf("series with labels %v, want key_id only", labels)
			}
			series[metric.GetLabel()[0].GetValue()] = metric.GetGauge().GetValue()
		}
	}
	return series
}

func TestRecordInstancesBySigningKeyReplacesSeries(t *testing.T) {
	t.Cleanup(func() { signing.RecordInstancesBySigningKey(nil) })
	for _, tc := range []struct {
		name   string
		counts map[string]int
		want   map[string]float64
	}{
		{name: "before rotation", counts: map[string]int{"old": 5}, want: map[string]float64{"old": 5}},
		{name: "new key active, none signed yet", counts: map[string]int{"old": 5, "new": 0}, want: map[string]float64{"old": 5, "new": 0}},
		{name: "old VMs replaced", counts: map[string]int{"old": 0, "new": 5}, want: map[string]float64{"old": 0, "new": 5}},
		{name: "old key removed from the ring", counts: map[string]int{"new": 6}, want: map[string]float64{"new": 6}},
		{name: "no keys", counts: map[string]int{}, want: map[string]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			signing.RecordInstancesBySigningKey(tc.counts)
			if got := instancesBySigningKey(t); !maps.Equal(got, tc.want) {
				t.Errorf("series = %v, want %v", got, tc.want)
			}
		})
	}
}
