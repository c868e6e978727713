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

//go:build test_performance

// This file is compiled into upstream Karpenter's scheduling test package, beside upstream's
// files, by make bench-upstream. Upstream's benchmark
// reports pods per second and nodes, not what the nodes cost; these benchmarks solve the same
// pods with upstream's own setup once more and report the cost.
package scheduling_test

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/test"
)

func BenchmarkSchedulingCost100(b *testing.B)  { benchmarkCost(b, 100) }
func BenchmarkSchedulingCost1000(b *testing.B) { benchmarkCost(b, 1000) }
func BenchmarkSchedulingCost5000(b *testing.B) { benchmarkCost(b, 5000) }

// benchmarkCost solves the pods upstream's BenchmarkScheduling<count> solves when it runs
// first in its process (its generator is seeded with 42 once, at start) and reports the cost
// of the NodeClaims: each the cheapest offering its requirements allow of any of its instance
// types, as a launch would pick.
func benchmarkCost(b *testing.B, count int) {
	r = rand.New(rand.NewSource(42))
	pods := makeDiversePods(count)
	ctx = options.ToContext(injection.WithControllerName(context.Background(), "provisioner"), test.Options())
	scheduler, err := setupScheduler(ctx, pods, scheduling.NumConcurrentReconciles(5))
	if err != nil {
		b.Fatalf("creating scheduler, %s", err)
	}
	results, err := scheduler.Solve(ctx, pods)
	if err != nil || len(results.PodErrors) > 0 {
		b.Fatalf("expected every pod to schedule, got %v and %d pod errors", err, len(results.PodErrors))
	}
	cost := 0.0
	for _, nodeClaim := range results.NewNodeClaims {
		cheapest := math.Inf(1)
		for _, it := range nodeClaim.InstanceTypeOptions {
			if of := it.Offerings.Available().Compatible(nodeClaim.Requirements).Cheapest(); of != nil {
				cheapest = math.Min(cheapest, of.Price)
			}
		}
		cost += cheapest
	}
	b.ReportMetric(float64(len(results.NewNodeClaims)), "nodes")
	b.ReportMetric(cost, "cost")
}
