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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Launch check", func() {
	It("deletes a NodeClaim at once when its VM goes to error for lack of capacity, and avoids that offering", func() {
		env.Emulator.FailNextInstances(1, emulator.NoValidHostMessage)
		nodeClaim := launchedNodeClaim()
		env.Step(buildDelay + 5*time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonInsufficientCapacity, "No valid host was found")

		By("the next launch going elsewhere")
		next := launchedNodeClaim()
		Expect(next.Labels[karpv1.LabelInstanceType] + "/" + next.Labels[karpv1.LabelTopologyZone]).NotTo(
			Equal(nodeClaim.Labels[karpv1.LabelInstanceType] + "/" + nodeClaim.Labels[karpv1.LabelTopologyZone]))

		By("terminating the failed one: its VM deleted")
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
		_, exists := vm(nodeClaim)
		Expect(exists).To(BeFalse())
	})

	It("deletes a NodeClaim whose VM goes to error for another reason, with the action log's message", func() {
		env.Emulator.FailNextInstances(1, "Build of instance aborted: image checksum mismatch")
		nodeClaim := launchedNodeClaim()
		env.Step(buildDelay + 5*time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonLaunchFailed, "image checksum mismatch")
	})

	It("keeps watching a VM that is still building, from one listing for every NodeClaim", func() {
		first, second := launchedNodeClaim(), launchedNodeClaim()
		env.Emulator.ResetCallCounts()
		env.Step(6 * time.Second) // past the last listing's 5 s
		for _, nodeClaim := range []*karpv1.NodeClaim{first, second} {
			result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
			Expect(result.RequeueAfter).To(BeNumerically("<=", 5*time.Second))
		}
		Expect(env.Emulator.CallCount(emulator.OpListInstances)).To(Equal(1))
		Expect(env.Recorder.Notes(first.Name, lifecycle.ReasonLaunchFailed)).To(BeEmpty())
	})
})
