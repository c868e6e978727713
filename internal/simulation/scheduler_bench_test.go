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

package simulation

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
)

// benchNodePool is upstream's benchmark NodePool with its instance types; nothing is launched
// yet, so its whole limits remain.
func benchNodePool() NodePoolInput {
	np := workload.UpstreamNodePool()
	return NodePoolInput{NodePool: np, InstanceTypes: workload.UpstreamInstanceTypes(), Remaining: corev1.ResourceList(np.Spec.Limits)}
}

func benchmarkScheduling(b *testing.B, count int) {
	in := Input{Pods: workload.DiversePods(count, 42), NodePools: []NodePoolInput{benchNodePool()}}
	var res *Results
	b.ResetTimer()
	for b.Loop() {
		res = Schedule(in)
	}
	b.StopTimer()
	if err := checkPlacements(in, res); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(count)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(len(res.NewNodeClaims)), "nodes")
	b.ReportMetric(launchCost(res), "cost")
}

// launchCost is what the NodeClaims cost once launched: each its cheapest offering that its
// requirements allow, of any of its instance types.
func launchCost(res *Results) float64 {
	total := 0.0
	for _, n := range res.NewNodeClaims {
		best := math.Inf(1)
		offerings := newOfferingFilter(n.Requirements)
		for _, it := range n.InstanceTypes {
			for i := range it.Offerings {
				if of := &it.Offerings[i]; offerings.allows(of) {
					best = min(best, of.Price)
				}
			}
		}
		total += best
	}
	return total
}

func BenchmarkSchedulingDiverse100(b *testing.B)   { benchmarkScheduling(b, 100) }
func BenchmarkSchedulingDiverse1000(b *testing.B)  { benchmarkScheduling(b, 1000) }
func BenchmarkSchedulingDiverse5000(b *testing.B)  { benchmarkScheduling(b, 5000) }
func BenchmarkSchedulingDiverse20000(b *testing.B) { benchmarkScheduling(b, 20000) }
