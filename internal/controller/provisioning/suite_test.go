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

package provisioning_test

import (
	"testing"
	"time"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

func TestProvisioning(t *testing.T) { test.RunSuite(t, "Provisioning suite") }

// The controllers that turn pending pods into nodes run on the manager, against the emulator,
// where VMs boot and go at once.
var env = test.Suite(test.EnvironmentOptions{Emulator: emulator.Options{BuildDelay: time.Nanosecond, DeleteDelay: time.Nanosecond}}, func(env *test.Environment) error {
	batches := func(o *operator.Options) { o.BatchIdle, o.BatchMax = 100*time.Millisecond, time.Second }
	return env.Controllers(batches).Register(env.Ctx, env.Manager, operator.NodeClass, operator.NodePool, operator.Lifecycle, operator.Provisioning)
})
