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

package disruption_test

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

func TestDisruptionSuite(t *testing.T) { test.RunSuite(t, "Disruption suite") }

// The whole operator runs on envtest against the KakaoCloud emulator, as cmd/main.go wires
// it. The suite plays the parts a real cluster adds (clusterActors): kubelets that register
// the VMs as nodes, a scheduler that binds pods, and ReplicaSets that recreate evicted pods.
var (
	actors *clusterActors
	env    = test.Suite(test.EnvironmentOptions{Emulator: emulator.Options{BuildDelay: time.Nanosecond, DeleteDelay: time.Nanosecond}}, func(env *test.Environment) error {
		SetDefaultEventuallyTimeout(60 * time.Second)
		actors = newClusterActors(env.APIClient)
		go actors.run(env.Ctx)
		return env.Controllers(func(o *operator.Options) {
			o.BatchIdle, o.BatchMax = 100*time.Millisecond, time.Second
			o.DisruptionPoll, o.DisruptionValidation = 300*time.Millisecond, time.Second
		}).Register(env.Ctx, env.Manager)
	})
)
