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

package operator

import (
	"testing"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
)

// A bootstrap token lives, by default, as long as its NodeClaim may still become a node. The
// bootstrap package, a library, does not import the lifecycle controller that sets that bound,
// so the two are held in step here, where both are wired.
func TestDefaultTokenTTLIsTheLaunchAndRegistrationTimeouts(t *testing.T) {
	if want := lifecycle.DefaultLaunchTimeout + lifecycle.DefaultRegistrationTimeout; bootstrap.DefaultTokenTTL != want {
		t.Errorf("bootstrap.DefaultTokenTTL = %s, want the lifecycle's launch and registration timeouts together, %s", bootstrap.DefaultTokenTTL, want)
	}
}
