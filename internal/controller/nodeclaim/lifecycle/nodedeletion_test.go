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

package lifecycle_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Node deletion", func() {
	It("turns kubectl delete node into the NodeClaim's deletion, and removes node, VM and NodeClaim", func() {
		nodeClaim, node := initializedNodeClaim()
		ExpectDeleted(env.Ctx, env.Client, node) // its finalizer holds it
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNodeDeleted, "its node "+node.Name+" is being deleted")
		Expect(ExpectExists(env.Ctx, env.Client, nodeClaim).DeletionTimestamp).NotTo(BeNil())

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim) // drained (nothing to evict), VM deleting
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim, node)
		_, exists := vm(nodeClaim)
		Expect(exists).To(BeFalse())
	})
})
