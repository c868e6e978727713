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

package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestMergeAndSubtract(t *testing.T) {
	list := func(cpu, memory string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if memory != "" {
			l[corev1.ResourceMemory] = resource.MustParse(memory)
		}
		return l
	}
	a, b := list("1", "1Gi"), list("500m", "")
	sum := Merge(a, b, nil)
	if got := sum[corev1.ResourceCPU]; got.Cmp(resource.MustParse("1500m")) != 0 {
		t.Errorf("cpu %s, want 1500m", got.String())
	}
	if got := sum[corev1.ResourceMemory]; got.Cmp(resource.MustParse("1Gi")) != 0 {
		t.Errorf("memory %s, want 1Gi", got.String())
	}
	if got := a[corev1.ResourceCPU]; got.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("Merge changed its argument: cpu %s", got.String())
	}
	remaining := list("2", "")
	SubtractFrom(remaining, sum)
	if got := remaining[corev1.ResourceCPU]; got.Cmp(resource.MustParse("500m")) != 0 {
		t.Errorf("remaining cpu %s, want 500m", got.String())
	}
	if _, ok := remaining[corev1.ResourceMemory]; ok {
		t.Error("subtracting a resource the list does not bound added it")
	}
	GiveBack(remaining, sum)
	if got := remaining[corev1.ResourceCPU]; got.Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("remaining cpu %s after giving back, want 2", got.String())
	}
	if _, ok := remaining[corev1.ResourceMemory]; ok {
		t.Error("giving back a resource the list does not bound bounded it")
	}
}
