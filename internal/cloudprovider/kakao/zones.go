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
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// zoneChoiceMemory is how long a launch's zone is remembered for a NodeClaim the cache does not
// show labelled yet: far longer than a launch and its status write take.
const zoneChoiceMemory = 10 * time.Minute

// zoneSpread spreads a NodePool's capacity over its KCNodeClass's zones where the price allows:
// of the offerings that tie on price, a launch takes the one in the zone that holds the fewest
// of the NodePool's NodeClaims. A zone outage then takes part of the replicas that asked for no
// spread, not all of them; and the cost is the same, as only equal prices are reordered. Within
// a zone, it takes the subnet with the most addresses left, as estimated from the cluster's
// NodeClaims in each subnet (KakaoCloud does not say how many a subnet has left).
//
// Launches run side by side, and a NodeClaim shows its zone and subnet only once its launch's
// status is written and seen by the cache: each launch's placement is remembered until then,
// and a launch counts and chooses under one lock, so that NodeClaims launched together spread
// too.
type zoneSpread struct {
	mu     sync.Mutex
	chosen *cache.Expiring
}

func newZoneSpread() *zoneSpread { return &zoneSpread{chosen: cache.NewExpiring()} }

// placement is where a launch put, or is about to put, a NodeClaim's VM.
type placement struct{ zone, subnet string }

// loads are what the choice of a zone and a subnet counts: the NodeClaim's NodePool's
// NodeClaims by zone, and the cluster's NodeClaims by subnet.
type loads struct {
	zones, subnets map[string]int
}

// order counts the loads, has choose order the launch's candidates by them and name where it
// launches first, and remembers that for the NodeClaim.
func (z *zoneSpread) order(ctx context.Context, reader client.Reader, nodeClaim *karpv1.NodeClaim, choose func(loads) placement) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	counted, err := z.loads(ctx, reader, nodeClaim)
	if err != nil {
		return err
	}
	if first := choose(counted); first.zone != "" {
		z.chosen.Set(nodeClaim.Name, first, zoneChoiceMemory)
	}
	return nil
}

// launched records where the NodeClaim's VM was launched, which can be a later candidate's
// when the first had no capacity.
func (z *zoneSpread) launched(nodeClaim *karpv1.NodeClaim, where placement) {
	z.chosen.Set(nodeClaim.Name, where, zoneChoiceMemory)
}

// loads counts the NodeClaims, the NodeClaim itself and deleting ones left out.
func (z *zoneSpread) loads(ctx context.Context, reader client.Reader, nodeClaim *karpv1.NodeClaim) (loads, error) {
	counted := loads{zones: map[string]int{}, subnets: map[string]int{}}
	nodeClaims := &karpv1.NodeClaimList{}
	// Read only, and every launch lists under the lock: the cache's objects, not copies.
	if err := reader.List(ctx, nodeClaims, client.UnsafeDisableDeepCopy); err != nil {
		return counted, fmt.Errorf("listing NodeClaims: %w", err)
	}
	pool, pooled := nodeClaim.Labels[karpv1.LabelNodePool]
	for i := range nodeClaims.Items {
		other := &nodeClaims.Items[i]
		if other.Name == nodeClaim.Name || !other.DeletionTimestamp.IsZero() {
			continue
		}
		where := placement{zone: other.Labels[karpv1.LabelTopologyZone], subnet: other.Annotations[kcv1.AnnotationSubnetID]}
		if where.zone == "" || where.subnet == "" {
			if remembered, ok := z.chosen.Get(other.Name); ok {
				where = remembered.(placement)
			}
		}
		if where.subnet != "" {
			counted.subnets[where.subnet]++
		}
		if pooled && where.zone != "" && other.Labels[karpv1.LabelNodePool] == pool {
			counted.zones[where.zone]++
		}
	}
	return counted, nil
}
