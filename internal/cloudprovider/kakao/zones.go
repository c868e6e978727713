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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// zoneChoiceMemory is how long a launch's zone is remembered for a NodeClaim the cache does not
// show labelled yet: far longer than a launch and its status write take.
const zoneChoiceMemory = 10 * time.Minute

// zoneSpread spreads a NodePool's capacity over its KCNodeClass's zones where the price allows:
// of the offerings that tie on price, a launch takes the one in the zone that holds the fewest
// of the NodePool's NodeClaims. A zone outage then takes part of the replicas that asked for no
// spread, not all of them; and the cost is the same, as only equal prices are reordered.
//
// Launches run side by side, and a NodeClaim shows its zone only once its launch's status is
// written and seen by the cache: each launch's zone is remembered until then, and a launch
// counts and chooses under one lock, so that NodeClaims launched together spread too.
type zoneSpread struct {
	mu     sync.Mutex
	chosen *cache.Expiring
}

func newZoneSpread() *zoneSpread { return &zoneSpread{chosen: cache.NewExpiring()} }

// order counts the zones of the NodeClaim's NodePool, has choose order the launch's candidates
// by them and name the zone it launches in first, and remembers that zone for the NodeClaim.
func (z *zoneSpread) order(ctx context.Context, reader client.Reader, nodeClaim *karpv1.NodeClaim, choose func(loads map[string]int) string) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	loads, err := z.loads(ctx, reader, nodeClaim)
	if err != nil {
		return err
	}
	if zone := choose(loads); zone != "" {
		z.chosen.Set(nodeClaim.Name, zone, zoneChoiceMemory)
	}
	return nil
}

// launched records the zone the NodeClaim's VM was launched in, which can be a later
// candidate's when the first had no capacity.
func (z *zoneSpread) launched(nodeClaim *karpv1.NodeClaim, zone string) {
	z.chosen.Set(nodeClaim.Name, zone, zoneChoiceMemory)
}

// loads are the NodeClaims of the NodePool by zone, the NodeClaim itself and deleting ones
// left out.
func (z *zoneSpread) loads(ctx context.Context, reader client.Reader, nodeClaim *karpv1.NodeClaim) (map[string]int, error) {
	pool, ok := nodeClaim.Labels[karpv1.LabelNodePool]
	if !ok {
		return nil, nil
	}
	nodeClaims := &karpv1.NodeClaimList{}
	// Read only, and every launch lists under the lock: the cache's objects, not copies.
	if err := reader.List(ctx, nodeClaims, client.MatchingLabels{karpv1.LabelNodePool: pool}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	loads := map[string]int{}
	for i := range nodeClaims.Items {
		other := &nodeClaims.Items[i]
		if other.Name == nodeClaim.Name || !other.DeletionTimestamp.IsZero() {
			continue
		}
		zone := other.Labels[karpv1.LabelTopologyZone]
		if zone == "" {
			if remembered, ok := z.chosen.Get(other.Name); ok {
				zone = remembered.(string)
			}
		}
		if zone != "" {
			loads[zone]++
		}
	}
	return loads, nil
}
