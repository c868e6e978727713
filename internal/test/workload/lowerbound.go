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

package workload

import (
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// LowerBound is the least any set of nodes of these instance types holding cpu vCPUs and gib
// GiB of requests can cost: the best bound a·cpu + b·gib with a, b ≥ 0 such that no instance
// type's cheapest available offering costs less than a·(its allocatable vCPUs) + b·(its
// allocatable GiB). Nodes holding the requests have at least that much allocatable, so they
// cost at least a·cpu + b·gib. The best (a, b) is a vertex of that two-variable linear
// program, so the vertices are enumerated.
func LowerBound(types []*cloudprovider.InstanceType, cpu, gib float64) float64 {
	type point struct{ cpu, gib, price float64 }
	var points []point
	for _, it := range types {
		of, ok := it.Offerings.Available().Cheapest()
		if !ok {
			continue
		}
		alloc := it.Allocatable()
		points = append(points, point{float64(alloc.Cpu().MilliValue()) / 1000, float64(alloc.Memory().Value()) / (1 << 30), of.Price})
	}
	feasible := func(a, b float64) bool {
		if a < 0 || b < 0 {
			return false
		}
		for _, p := range points {
			if a*p.cpu+b*p.gib > p.price*(1+1e-9) {
				return false
			}
		}
		return true
	}
	best := 0.0
	try := func(a, b float64) {
		if feasible(a, b) && a*cpu+b*gib > best {
			best = a*cpu + b*gib
		}
	}
	for i, p := range points {
		try(p.price/p.cpu, 0)
		try(0, p.price/p.gib)
		for _, q := range points[i+1:] {
			if det := p.cpu*q.gib - q.cpu*p.gib; det != 0 {
				try((p.price*q.gib-q.price*p.gib)/det, (p.cpu*q.price-q.cpu*p.price)/det)
			}
		}
	}
	return best
}
