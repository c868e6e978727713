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

package test

import (
	dto "github.com/prometheus/client_model/go"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// MetricValue sums, in the controller-runtime registry the operator serves, the series of the
// metric named name whose labels include labels (all series for nil); counters, gauges and
// the sample counts of histograms and summaries alike. It is 0 when no series matches.
func MetricValue(name string, labels map[string]string) float64 {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		panic(err) // the registry only fails on a collector bug
	}
	for _, family := range families {
		if family.GetName() == name {
			return FamilyValue(family, labels)
		}
	}
	return 0
}

// FamilyValue sums the family's series whose labels include labels, as MetricValue does.
func FamilyValue(family *dto.MetricFamily, labels map[string]string) float64 {
	total := 0.0
	for _, m := range family.GetMetric() {
		if hasLabels(m, labels) {
			total += value(m)
		}
	}
	return total
}

func hasLabels(m *dto.Metric, labels map[string]string) bool {
	matched := 0
	for _, pair := range m.GetLabel() {
		if want, ok := labels[pair.GetName()]; ok {
			if want != pair.GetValue() {
				return false
			}
			matched++
		}
	}
	return matched == len(labels)
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Histogram != nil:
		return float64(m.GetHistogram().GetSampleCount())
	case m.Summary != nil:
		return float64(m.GetSummary().GetSampleCount())
	}
	return 0
}
