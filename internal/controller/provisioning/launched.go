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

package provisioning

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// launched are the NodeClaims the provisioner created that the cache has not shown yet. The
// cache shows a creation a moment after it: a pass that runs in that moment and counts only
// what the cache shows would take those NodeClaims' pods for pods without one, open a second
// NodeClaim for them, and count neither against the NodePools' limits. Upstream Karpenter
// adds what it creates to its cluster state at once for the same reason.
type launched struct {
	byUID map[types.UID]*karpv1.NodeClaim
}

// add remembers a NodeClaim just created, as the API server returned it.
func (l *launched) add(nodeClaim *karpv1.NodeClaim) {
	if l.byUID == nil {
		l.byUID = map[types.UID]*karpv1.NodeClaim{}
	}
	l.byUID[nodeClaim.UID] = nodeClaim
}

// include returns cached, the NodeClaims the cache shows, with those created that it does not
// show yet, each as the API server has it now. One the cache shows is forgotten: from then on
// the cache is its record. So is one the API server no longer has: deleted before the cache
// saw it (a launch that failed at once), it holds no pod.
func (l *launched) include(ctx context.Context, apiReader client.Reader, cached []*karpv1.NodeClaim) ([]*karpv1.NodeClaim, error) {
	if len(l.byUID) == 0 {
		return cached, nil
	}
	for _, nodeClaim := range cached {
		delete(l.byUID, nodeClaim.UID)
	}
	var uncached []*karpv1.NodeClaim
	for uid, nodeClaim := range l.byUID {
		current := &karpv1.NodeClaim{}
		err := apiReader.Get(ctx, client.ObjectKeyFromObject(nodeClaim), current)
		switch {
		case apierrors.IsNotFound(err) || (err == nil && current.UID != uid):
			delete(l.byUID, uid)
		case err != nil:
			return nil, fmt.Errorf("reading NodeClaim %s, created by an earlier pass and not cached yet: %w", nodeClaim.Name, err)
		default:
			uncached = append(uncached, current)
		}
	}
	// Clipped so that the append never writes into what the caller holds.
	return append(slices.Clip(cached), uncached...), nil
}
