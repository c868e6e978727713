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

	corev1 "k8s.io/api/core/v1"
)

// DeleteNode is termination's last step on the node, for a spec that gives it a copy of the
// node read before the name was taken again, as the cache can.
func (r *Reconciler) DeleteNode(ctx context.Context, node *corev1.Node) (gone bool, err error) {
	return r.deleteNode(ctx, node)
}
