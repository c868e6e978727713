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

package metricstest

import (
	"runtime"
	"testing"

	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// LiveHeap is the heap left after a garbage collection, in bytes: what upstream's suite reads
// as the live heap, once the garbage is gone.
func LiveHeap() int64 {
	var stats runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&stats)
	return int64(stats.HeapAlloc)
}

// Series counts the series of the families whose names match that a scrape of the operator's
// registry reads.
func Series(tb testing.TB, match func(family string) bool) int {
	tb.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	count := 0
	for _, family := range families {
		if match(family.GetName()) {
			count += len(family.GetMetric())
		}
	}
	return count
}
