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
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestMin(t *testing.T) {
	never, soon, later := reconcile.Result{}, reconcile.Result{RequeueAfter: time.Second}, reconcile.Result{RequeueAfter: time.Minute}
	for _, tc := range []struct{ a, b, want reconcile.Result }{
		{never, never, never}, {never, soon, soon}, {soon, never, soon}, {soon, later, soon}, {later, soon, soon},
	} {
		if got := Min(tc.a, tc.b); got != tc.want {
			t.Errorf("Min(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
