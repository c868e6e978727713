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

package nodeclass_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

func TestNodeClass(t *testing.T) { test.RunSuite(t, "KCNodeClass controller suite") }

// The specs call the controller themselves on a fake clock. Every reconcile comes a second
// after the last and reads KakaoCloud afresh, so that changes made through the emulator's
// admin API show up at once.
var (
	controllers *operator.Controllers
	env         = test.Suite(test.EnvironmentOptions{FakeClock: true, Direct: true, CatalogTTL: time.Nanosecond}, func(env *test.Environment) error {
		controllers = env.Controllers()
		return nil
	})
)

var _ = BeforeEach(func() { env.Reset() })
