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

package disruption

import (
	"context"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// publishBlocked writes each NodePool's status.disruptionBlocked where it changed: the nodes
// a method would act on that a do-not-disrupt annotation or a PodDisruptionBudget holds, by
// NodePool name (Snapshot.BlockedByPool). The NodePool
// controller writes the rest of the status; a merge patch of this one field leaves its fields
// alone, and it never writes this one.
func (c *Controller) publishBlocked(ctx context.Context, nodePools []*karpv1.NodePool, held map[string]int64) {
	for _, np := range nodePools {
		count := held[np.Name]
		if np.Status.DisruptionBlocked == count {
			continue
		}
		patched := np.DeepCopy()
		patched.Status.DisruptionBlocked = count
		if err := c.Client.Status().Patch(ctx, patched, client.MergeFrom(np)); client.IgnoreNotFound(err) != nil {
			log.FromContext(ctx).Error(err, "writing the NodePool's count of nodes whose disruption is held", "NodePool", klog.KObj(np))
		}
	}
}
