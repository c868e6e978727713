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
	dto "github.com/prometheus/client_model/go"
)

// SetGauge is a gauge whose series a GaugeSet publishes.
type SetGauge struct {
	desc *prometheus.Desc
	// labels are the gauge's label names sorted, the order a series' label pairs are kept in,
	// as the exposition wants them.
	labels []string
}

// NewSetGauge declares a gauge for a GaugeSet; NewGaugeSet registers it.
func NewSetGauge(name, help string, labels ...string) *SetGauge {
	return &SetGauge{desc: prometheus.NewDesc(name, help, labels, nil), labels: slices.Sorted(slices.Values(labels))}
}

// GaugeValue is one gauge series and its value.
type GaugeValue struct {
	Gauge  *SetGauge
	Labels prometheus.Labels
	Value  float64
}

// GaugeSet publishes a whole set of gauge series at once, as a controller that recomputes them
// every pass needs: a scrape sees the last set whole, never half written, and no series of an
// object that is gone.
//
// It is a collector of its own rather than GaugeVecs because a GaugeVec keeps each series'
// label pairs apart, and the node gauges' series (a node's resources times its gauges, each
// with the node's nineteen labels) then were the largest part of the operator's live heap. The set
// keeps each distinct label pair of a set once, shared by every series that has it.
type GaugeSet struct {
	gauges []*SetGauge

	mu     sync.RWMutex
	series []prometheus.Metric
}

// NewGaugeSet makes a set publishing the gauges given and registers it, as Counter does.
func NewGaugeSet(gauges ...*SetGauge) *GaugeSet {
	return register(&GaugeSet{gauges: gauges})
}

// Replace publishes values in place of the last set. Each value names a series of its own: two
// with the same gauge and labels would fail the scrape. Like a GaugeVec's With, it panics
// when a value's label names are not its gauge's.
func (s *GaugeSet) Replace(values []GaugeValue) {
	pairs := labelPairs{}
	series := make([]prometheus.Metric, 0, len(values))
	for _, v := range values {
		labels := make([]*dto.LabelPair, len(v.Gauge.labels))
		found := 0
		for i, name := range v.Gauge.labels {
			if value, ok := v.Labels[name]; ok {
				labels[i] = pairs.hold(name, value)
				found++
			}
		}
		if found != len(labels) || found != len(v.Labels) {
			panic(fmt.Sprintf("%s: labels %v, want %v", v.Gauge.desc, v.Labels, v.Gauge.labels))
		}
		series = append(series, &gaugeSample{desc: v.Gauge.desc, labels: labels, value: v.Value})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.series = series
}

// Value reads back the value the last set gave a series, and whether it has the series.
func (s *GaugeSet) Value(gauge *SetGauge, labels prometheus.Labels) (float64, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, metric := range s.series {
		sample := metric.(*gaugeSample)
		if sample.desc == gauge.desc && sample.has(labels) {
			return sample.value, true
		}
	}
	return 0, false
}

// Describe sends the descriptions of the set's gauges.
func (s *GaugeSet) Describe(ch chan<- *prometheus.Desc) {
	for _, gauge := range s.gauges {
		ch <- gauge.desc
	}
}

// Collect sends the series of the last set.
func (s *GaugeSet) Collect(ch chan<- prometheus.Metric) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, sample := range s.series {
		ch <- sample
	}
}

// gaugeSample is one series of a set. Its label pairs are shared with the set's other series
// and are never written after Replace made them.
type gaugeSample struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	value  float64
}

func (m *gaugeSample) has(labels prometheus.Labels) bool {
	if len(labels) != len(m.labels) {
		return false
	}
	for _, pair := range m.labels {
		if value, ok := labels[pair.GetName()]; !ok || value != pair.GetValue() {
			return false
		}
	}
	return true
}

func (m *gaugeSample) Desc() *prometheus.Desc { return m.desc }

func (m *gaugeSample) Write(out *dto.Metric) error {
	value := m.value
	out.Label = m.labels
	out.Gauge = &dto.Gauge{Value: &value}
	return nil
}

// CompactGaugeVec is a gauge whose series are set and deleted one at a time, as a GaugeVec's
// are, sharing their label pairs as a GaugeSet's do: the status condition gauges have a series
// per object, condition and family (14,000 for 500 running NodeClaims and their nodes), all of
// an object's series holding its name.
type CompactGaugeVec struct {
	gauge *SetGauge
	// place is where each label, in the order given, goes among the sorted ones.
	place []int

	mu     sync.RWMutex
	series map[string]*gaugeSample
	pairs  labelPairs
}

// NewCompactGauge makes and registers a CompactGaugeVec, as Counter does.
func NewCompactGauge(name, help string, labels ...string) *CompactGaugeVec {
	gauge := NewSetGauge(name, help, labels...)
	place := make([]int, len(labels))
	for i, label := range labels {
		place[i] = slices.Index(gauge.labels, label)
	}
	return register(&CompactGaugeVec{gauge: gauge, place: place, series: map[string]*gaugeSample{}, pairs: labelPairs{}})
}

// Set sets the series of the label values given, in the order of the gauge's labels. Like a
// GaugeVec's WithLabelValues, it panics when there are not as many values as labels.
func (v *CompactGaugeVec) Set(value float64, labelValues ...string) {
	key := v.key(labelValues)
	v.mu.Lock()
	defer v.mu.Unlock()
	if sample, ok := v.series[key]; ok {
		sample.value = value
		return
	}
	labels := make([]*dto.LabelPair, len(labelValues))
	for i, labelValue := range labelValues {
		labels[v.place[i]] = v.pairs.hold(v.gauge.labels[v.place[i]], labelValue)
	}
	v.series[key] = &gaugeSample{desc: v.gauge.desc, labels: labels, value: value}
}

// Delete deletes the series of the label values given; false if there was none.
func (v *CompactGaugeVec) Delete(labelValues ...string) bool {
	key := v.key(labelValues)
	v.mu.Lock()
	defer v.mu.Unlock()
	sample, ok := v.series[key]
	if ok {
		delete(v.series, key)
		v.pairs.release(sample.labels)
	}
	return ok
}

// Reset deletes every series.
func (v *CompactGaugeVec) Reset() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.series, v.pairs = map[string]*gaugeSample{}, labelPairs{}
}

// Value reads back the value of the series of the label values given, and whether there is one.
func (v *CompactGaugeVec) Value(labelValues ...string) (float64, bool) {
	key := v.key(labelValues)
	v.mu.RLock()
	defer v.mu.RUnlock()
	if sample, ok := v.series[key]; ok {
		return sample.value, true
	}
	return 0, false
}

// Describe sends the gauge's description.
func (v *CompactGaugeVec) Describe(ch chan<- *prometheus.Desc) { ch <- v.gauge.desc }

// Collect sends every series. A series' value is read under the lock that Set writes it under,
// so a copy of each is sent.
func (v *CompactGaugeVec) Collect(ch chan<- prometheus.Metric) {
	v.mu.RLock()
	samples := make([]gaugeSample, 0, len(v.series))
	for _, sample := range v.series {
		samples = append(samples, *sample)
	}
	v.mu.RUnlock()
	for i := range samples {
		ch <- &samples[i]
	}
}

// key names a series by its label values. The byte 0xff is not part of any UTF-8 text, which
// label values must be.
func (v *CompactGaugeVec) key(labelValues []string) string {
	if len(labelValues) != len(v.place) {
		panic(fmt.Sprintf("%s: label values %q, want one for each of %v", v.gauge.desc, labelValues, v.gauge.labels))
	}
	return strings.Join(labelValues, "\xff")
}

// labelPairs hands out label pairs for series to share, one per name and value, counting the
// series holding each so that a pair goes with the last of them.
type labelPairs map[[2]string]*heldPair

type heldPair struct {
	pair    *dto.LabelPair
	holders int
}

func (p labelPairs) hold(name, value string) *dto.LabelPair {
	key := [2]string{name, value}
	held, ok := p[key]
	if !ok {
		held = &heldPair{pair: &dto.LabelPair{Name: &name, Value: &value}}
		p[key] = held
	}
	held.holders++
	return held.pair
}

func (p labelPairs) release(pairs []*dto.LabelPair) {
	for _, pair := range pairs {
		key := [2]string{pair.GetName(), pair.GetValue()}
		if held, ok := p[key]; ok {
			held.holders--
			if held.holders == 0 {
				delete(p, key)
			}
		}
	}
}
