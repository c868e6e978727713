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

package v1

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestIsEphemeralTaint(t *testing.T) {
	for _, tc := range []struct {
		taint corev1.Taint
		want  bool
	}{
		{corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}, true},
		// The node lifecycle controller's NoExecute one too, as upstream counts it.
		{corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}, true},
		{UnregisteredNoExecuteTaint, true},
		// The Node Readiness Controller's family.
		{corev1.Taint{Key: "readiness.k8s.io/network-ready", Effect: corev1.TaintEffectNoSchedule}, true},
		{corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}, false},
		{corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}, false},
		{DisruptedNoScheduleTaint, false},
	} {
		if got := IsEphemeralTaint(tc.taint); got != tc.want {
			t.Errorf("IsEphemeralTaint(%s:%s) = %t, want %t", tc.taint.Key, tc.taint.Effect, got, tc.want)
		}
	}
}
