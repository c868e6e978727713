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

package kakao

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
)

// BenchmarkZoneSpread launches, one after the other, NodeClaims of one NodePool that ask for no
// zone (1 to 16 CPUs, some pinned to a family) in a KCNodeClass of three zones, choosing as
// Create does, and checks that every launch pays what the cheapest offering costs in any zone
// and goes to the least loaded of the zones offering that price. It reports the NodeClaims per
// zone, the largest difference between two zones, and the cost against choosing by price
// alone, where the zone name breaks ties (and how many of the NodeClaims that puts in zone a).
func BenchmarkZoneSpread1000(b *testing.B) { benchmarkZoneSpread(b, 1000) }

func benchmarkZoneSpread(b *testing.B, launches int) {
	nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "spread"}}
	for _, zone := range []string{emulator.ZoneA, emulator.ZoneB, emulator.ZoneC} {
		name := "karpenter-subnet-" + zone[len(zone)-1:]
		nodeClass.Status.Subnets = append(nodeClass.Status.Subnets, kcv1.Subnet{ID: name, Name: name, Zone: zone, CIDRBlock: "10.0.0.0/16"})
	}
	nodeClass.Status.Images = []kcv1.Image{{ID: "amd64", Architecture: "x86_64"}, {ID: "arm64", Architecture: "aarch64"}, {ID: "gpu", Architecture: "x86_64", GPU: true}}
	types := workload.CatalogInstanceTypes(nodeClass)
	flavors := emulator.DefaultCatalog().Flavors
	rng := rand.New(rand.NewPCG(1, 2))
	claims := make([]*karpv1.NodeClaim, launches)
	for i := range claims {
		claims[i] = &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("spread-%d", i), Labels: map[string]string{karpv1.LabelNodePool: "spread"}},
			Spec: karpv1.NodeClaimSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
					{Key: karpv1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
				},
				Resources: karpv1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(fmt.Sprint([]int{1, 2, 4, 8, 16}[rng.IntN(5)])),
				}},
			},
		}
		if rng.IntN(3) == 0 {
			claims[i].Spec.Requirements = append(claims[i].Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{
				Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{[]string{"m2a", "c2a", "r2a"}[rng.IntN(3)]},
			})
		}
	}
	var perZone, byPriceAlone map[string]int
	var spreadCost, priceOnlyCost float64
	for b.Loop() {
		counted := loads{zones: map[string]int{}, subnets: map[string]int{}}
		byPriceAlone = map[string]int{}
		spreadCost, priceOnlyCost = 0, 0
		for _, nodeClaim := range claims {
			candidates, _, why := launchCandidates(nodeClaim, nodeClass, types, flavors, counted)
			priceOnly, _, _ := launchCandidates(nodeClaim, nodeClass, types, flavors, loads{})
			if len(candidates) == 0 || len(priceOnly) == 0 {
				b.Fatalf("%s: no candidate: %s", nodeClaim.Name, why)
			}
			chosen, cheapest := priceOf(b, types, candidates[0]), priceOf(b, types, priceOnly[0])
			if chosen != cheapest {
				b.Fatalf("%s: launched at %v in %s where %v was offered", nodeClaim.Name, chosen, candidates[0].Zone, cheapest)
			}
			// Every zone offering the cheapest price must hold at least as many as the chosen one.
			for _, c := range candidates {
				if priceOf(b, types, c) == cheapest && counted.zones[c.Zone] < counted.zones[candidates[0].Zone] {
					b.Fatalf("%s: launched in %s (%d NodeClaims) while %s (%d) offers the same price", nodeClaim.Name,
						candidates[0].Zone, counted.zones[candidates[0].Zone], c.Zone, counted.zones[c.Zone])
				}
			}
			counted.zones[candidates[0].Zone]++
			byPriceAlone[priceOnly[0].Zone]++
			spreadCost += chosen
			priceOnlyCost += cheapest
		}
		perZone = counted.zones
	}
	counts := make([]int, 0, len(perZone))
	for _, zone := range []string{emulator.ZoneA, emulator.ZoneB, emulator.ZoneC} {
		counts = append(counts, perZone[zone])
		b.ReportMetric(float64(perZone[zone]), "nodeclaims-"+zone[len(zone)-1:])
	}
	b.ReportMetric(float64(slices.Max(counts)-slices.Min(counts)), "zone-difference")
	b.ReportMetric(float64(byPriceAlone[emulator.ZoneA]), "by-price-alone-a")
	b.ReportMetric(spreadCost/priceOnlyCost, "cost-ratio")
}

// priceOf is the price of a candidate's offering.
func priceOf(b *testing.B, types []*cloudprovider.InstanceType, c instance.Candidate) float64 {
	b.Helper()
	for _, it := range types {
		if it.Name != c.FlavorName {
			continue
		}
		for _, of := range it.Offerings {
			if of.Zone == c.Zone {
				return of.Price
			}
		}
	}
	b.Fatalf("no offering of %s in %s", c.FlavorName, c.Zone)
	return 0
}
