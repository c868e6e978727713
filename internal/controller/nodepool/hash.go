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

package nodepool

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodepool"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
)

// stampHash writes the template hash annotations NodeClaims are stamped with at launch. When
// the NodePool was stamped by another hash version, its NodeClaims of another version are
// re-stamped first, as upstream's NodePool hash controller does: such a stamp cannot be
// compared with the NodePool's, so it is replaced rather than read as drift. A NodeClaim
// already drifted keeps its stamp and its condition. Only at that change of version: a
// NodeClaim stamped from a NodePool annotation about to change would carry the old hash under
// the new version, and drift. The NodeClaims go first so that a failure half-way leaves the
// NodePool's old version, and the next pass finishes the job.
func (r *Reconciler) stampHash(ctx context.Context, np *karpv1.NodePool, claims []karpv1.NodeClaim) error {
	hash := nodepool.Hash(np)
	if np.Annotations[karpv1.NodePoolHashVersionAnnotationKey] != nodepool.HashVersion {
		if err := r.restampNodeClaims(ctx, hash, claims); err != nil {
			return err
		}
	} else if np.Annotations[karpv1.NodePoolHashAnnotationKey] == hash {
		return nil
	}
	stored := np.DeepCopy()
	metav1.SetMetaDataAnnotation(&np.ObjectMeta, karpv1.NodePoolHashAnnotationKey, hash)
	metav1.SetMetaDataAnnotation(&np.ObjectMeta, karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion)
	if err := r.Client.Patch(ctx, np, client.MergeFrom(stored)); err != nil {
		return fmt.Errorf("stamping the hash on NodePool %s: %w", np.Name, err)
	}
	return nil
}

// restampNodeClaims writes hash, of this HashVersion, on the NodeClaims stamped by another
// version that are neither drifted nor deleting.
func (r *Reconciler) restampNodeClaims(ctx context.Context, hash string, claims []karpv1.NodeClaim) error {
	for i := range claims {
		version, stamped := claims[i].Annotations[karpv1.NodePoolHashVersionAnnotationKey]
		if !stamped || version == nodepool.HashVersion || !claims[i].DeletionTimestamp.IsZero() ||
			meta.IsStatusConditionTrue(claims[i].Status.Conditions, karpv1.ConditionTypeDrifted) {
			continue
		}
		// claims share their maps with the cache: the write goes to a copy.
		if err := nodeclaimutil.Annotate(ctx, r.Client, claims[i].DeepCopy(), map[string]*string{
			karpv1.NodePoolHashAnnotationKey: &hash, karpv1.NodePoolHashVersionAnnotationKey: new(nodepool.HashVersion),
		}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("stamping the hash on NodeClaim %s: %w", claims[i].Name, err)
		}
	}
	return nil
}
