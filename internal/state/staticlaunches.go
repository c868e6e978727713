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

package state

import (
	"context"
	"fmt"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// StaticNodeRoom is how many more NodeClaims limits.nodes lets a static NodePool have, and
// why no more when it is 0. Every NodeClaim of the NodePool counts, those being deleted too
// until they are gone, as upstream's static NodePools count them: a replacement is launched
// before the node it replaces goes, so a NodePool at its limit replaces one node only once
// the last one replaced is gone. ok is false when the NodePool has no limits.nodes.
func StaticNodeRoom(np *karpv1.NodePool, nodeClaims []*karpv1.NodeClaim) (room int, why string, ok bool) {
	limit, ok := np.Spec.Limits[karpv1.ResourceNodes]
	if !ok {
		return 0, "", false
	}
	total, deleting := 0, 0
	for _, nodeClaim := range nodeClaims {
		if nodeClaim.Labels[karpv1.LabelNodePool] != np.Name {
			continue
		}
		total++
		if !nodeClaim.DeletionTimestamp.IsZero() {
			deleting++
		}
	}
	room = max(int(limit.Value())-total, 0)
	if room == 0 {
		why = fmt.Sprintf("limits.nodes (%d) allows no more: the NodePool has %d NodeClaims, %d of them being deleted", limit.Value(), total, deleting)
	}
	return room, why, true
}

// StaticLaunches is where static NodePools' NodeClaims are created. The replica controller and
// the disruption loop both create them, each after counting the NodePool's NodeClaims against
// limits.nodes; counting and creating under one lock, from the API server rather than a cache
// that may not show the other's creation yet, keeps the two from both taking the last room.
type StaticLaunches struct {
	// Reader lists NodeClaims from the API server.
	Reader client.Reader
	mu     sync.Mutex
}

// Do lists the NodeClaims of NodePool pool and calls launch with them, under the lock: what
// launch creates, the next Do counts.
func (l *StaticLaunches) Do(ctx context.Context, pool string, launch func(nodeClaims []*karpv1.NodeClaim) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	list := &karpv1.NodeClaimList{}
	if err := l.Reader.List(ctx, list, client.MatchingLabels{karpv1.LabelNodePool: pool}); err != nil {
		return fmt.Errorf("listing the NodeClaims of NodePool %s: %w", pool, err)
	}
	nodeClaims := make([]*karpv1.NodeClaim, len(list.Items))
	for i := range list.Items {
		nodeClaims[i] = &list.Items[i]
	}
	return launch(nodeClaims)
}
