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
	"fmt"

	"github.com/mitchellh/hashstructure/v2"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// HashVersion is upstream Karpenter's NodePoolHashVersion for the same hash: NodeClaims
// stamped by another version (an older release of this operator, or upstream's) are re-stamped
// instead of all drifting at once.
const HashVersion = "v3"

// Hash summarises the parts of a NodePool's template that are fixed on a node when it is
// launched: labels, annotations, taints, startup taints, the node class, expireAfter and
// terminationGracePeriod. A NodeClaim whose stamp differs from its NodePool's has drifted.
// Requirements are left out (their hash tag): they are checked against the node's labels
// instead, so a narrower requirement the node still meets is no drift.
//
// It is upstream's NodePool.Hash, the same function of the same fields (the API types keep
// upstream's type and field names, which the hash reads), so that the annotation has the value
// upstream's tools and e2e suites compute; taints are hashed as sets, their order in the
// manifest does not matter.
func Hash(np *karpv1.NodePool) string {
	hash, err := hashstructure.Hash(np.Spec.Template, hashstructure.FormatV2, &hashstructure.HashOptions{
		SlicesAsSets:    true,
		IgnoreZeroValue: true,
		ZeroNil:         true,
	})
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return fmt.Sprint(hash)
}
