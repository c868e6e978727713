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

package webhook

import (
	"errors"
	"testing"
	"time"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

func TestWebhooks(t *testing.T) { test.RunSuite(t, "Webhook suite") }

// The API server calls the webhook configuration of config/webhook, pointed by envtest at
// the manager's webhook server; Kubernetes Engine is the emulator over loopback HTTP.
var env = test.Suite(test.EnvironmentOptions{Webhooks: true, CatalogTTL: time.Nanosecond}, func(env *test.Environment) error {
	return errors.Join(SetupNodePoolWebhookWithManager(env.Manager), SetupKCNodeClassWebhookWithManager(env.Manager, env.Catalog))
})
