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
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Liveness", func() {
	It("deletes a NodeClaim whose launch keeps failing once the launch timeout passes, and not before", func() {
		env.Emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Message: "instance.key_name: no such key pair"})
		nodeClaim := test.NodeClaim(nodeClass)
		ExpectApplied(env.Ctx, env.Client, nodeClaim)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim)

		env.Step(lifecycle.DefaultLaunchTimeout - time.Second)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim)
		ExpectNoEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNotLive)

		env.Step(2 * time.Second)
		ExpectReconcileFailed(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNotLive, "it was not launched within 5m0s")
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim) // termination: no VM to delete
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("deletes a NodeClaim and its VM when the node does not register within the registration timeout", func() {
		nodeClaim := launchedNodeClaim()
		result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(result.RequeueAfter).To(BeNumerically(">", 0))

		env.Step(lifecycle.DefaultRegistrationTimeout - time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectExists(env.Ctx, env.Client, nodeClaim)

		env.Step(2 * time.Second)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonNotLive, "it was not registered within 15m0s")

		By("terminating: the VM deleted, waited for, then the NodeClaim released")
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		instance, _ := vm(nodeClaim)
		Expect(instance.Status).To(Equal(kakaocloud.InstanceStatusDeleting))
		env.Step(deleteDelay)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})
})
