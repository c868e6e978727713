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

package lifecycle

import (
	"context"

	"k8s.io/klog/v2"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// followNodeDeletion turns the deletion of a NodeClaim's node (kubectl delete node) into the
// NodeClaim's deletion, as upstream Karpenter's node termination does: the NodeClaim's
// termination then drains the node, deletes the VM, and lets the node go by removing the
// finalizer that holds it. Without it the node would stay Terminating and the VM run on.
func (r *Reconciler) followNodeDeletion(ctx context.Context, nodeClaim *karpv1.NodeClaim) (stepResult, error) {
	if nodeClaim.Status.ProviderID == "" {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	node, err := r.nodeOf(ctx, nodeClaim)
	if err != nil || node == nil || node.DeletionTimestamp.IsZero() {
		return stepResult{requeue: reconcile.Result{}}, err
	}
	nodeDeleted(r.Recorder, nodeClaim, node)
	log.FromContext(ctx).Info("deleting nodeclaim: its node is being deleted", "Node", klog.KRef("", node.Name))
	return deleted, nil
}
