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
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// GaugeValue is one gauge series and its value.
type GaugeValue struct {
	Gauge  *prometheus.GaugeVec
	Labels prometheus.Labels
	Value  float64
}

// GaugeSet publishes a whole set of gauge series at once, as a controller that recomputes
// them every pass needs: series of the last set that the new one does not have are deleted
// after the new values are written, so that a scrape never sees the set half written nor a
// series of an object that is gone.
type GaugeSet struct {
	mu sync.Mutex
	// last names the series of the last set by their keys, which hold their labels: the
	// label maps themselves are not kept, as with thousands of series (a node's resources
	// times its gauges) they were a tenth of the operator's live heap.
	last map[string]*prometheus.GaugeVec
}

// Replace publishes values in place of the last set.
func (s *GaugeSet) Replace(values []GaugeValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string]*prometheus.GaugeVec, len(values))
	for _, v := range values {
		v.Gauge.With(v.Labels).Set(v.Value)
		next[seriesKey(v.Gauge, v.Labels)] = v.Gauge
	}
	for key, gauge := range s.last {
		if _, kept := next[key]; !kept {
			gauge.Delete(labelsOf(key))
		}
	}
	s.last = next
}

// seriesKey names a series: its gauge's identity and its labels in order.
func seriesKey(gauge *prometheus.GaugeVec, labels prometheus.Labels) string {
	names := make([]string, 0, len(labels))
	for name := range labels {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%p", gauge)
	for _, name := range names {
		// NUL cannot be part of a label name, so no two label sets give one key.
		b.WriteString(keySeparator + name + "=" + labels[name])
	}
	return b.String()
}

const keySeparator = "\x00"

// labelsOf reads a series' labels back from its key (a label name holds no "=").
func labelsOf(key string) prometheus.Labels {
	fields := strings.Split(key, keySeparator)[1:]
	labels := make(prometheus.Labels, len(fields))
	for _, field := range fields {
		name, value, _ := strings.Cut(field, "=")
		labels[name] = value
	}
	return labels
}
