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

package result

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Min is the result that comes back soonest: the shorter RequeueAfter, where zero means
// never (nothing to come back for).
func Min(a, b reconcile.Result) reconcile.Result {
	if Sooner(a.RequeueAfter, b.RequeueAfter) == a.RequeueAfter {
		return a
	}
	return b
}

// Sooner is the shorter of two waits, where zero means never.
func Sooner(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}
