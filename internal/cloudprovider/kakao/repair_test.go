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

package kakao_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
)

// How each repair policy bounds the drain: at once when the kubelet cannot evict (it no longer
// reports, or its VM is down), within ten minutes when it reports NotReady.
func TestRepairPolicyDrainBounds(t *testing.T) {
	want := map[string]time.Duration{
		"False/running": 10 * time.Minute, "Unknown/running": 0,
		"False/failed VM": 0, "Unknown/failed VM": 0,
	}
	got := map[string]time.Duration{}
	for _, policy := range (&kakao.CloudProvider{}).RepairPolicies() {
		if policy.ConditionType != corev1.NodeReady || policy.TerminationGracePeriod == nil {
			t.Fatalf("policy %+v: want one on Ready with a drain bound", policy)
		}
		vm := "running"
		if len(policy.InstanceStates) > 0 {
			vm = "failed VM"
		}
		got[string(policy.ConditionStatus)+"/"+vm] = *policy.TerminationGracePeriod
	}
	if len(got) != len(want) {
		t.Fatalf("policies %v, want %v", got, want)
	}
	for key, bound := range want {
		if got[key] != bound {
			t.Errorf("%s: drain bound %s, want %s", key, got[key], bound)
		}
	}
}
