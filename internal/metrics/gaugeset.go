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
	mu   sync.Mutex
	last map[string]GaugeValue
}

// Replace publishes values in place of the last set.
func (s *GaugeSet) Replace(values []GaugeValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string]GaugeValue, len(values))
	for _, v := range values {
		v.Gauge.With(v.Labels).Set(v.Value)
		next[seriesKey(v)] = v
	}
	for key, v := range s.last {
		if _, kept := next[key]; !kept {
			v.Gauge.Delete(v.Labels)
		}
	}
	s.last = next
}

// seriesKey names a series: its gauge's identity and its labels in order.
func seriesKey(v GaugeValue) string {
	names := make([]string, 0, len(v.Labels))
	for name := range v.Labels {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%p", v.Gauge)
	for _, name := range names {
		// NUL cannot be part of a label name, so no two label sets give one key.
		b.WriteString("\x00" + name + "=" + v.Labels[name])
	}
	return b.String()
}
