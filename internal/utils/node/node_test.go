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

package node

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestNode(t *testing.T) {
	ready := &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	notReady := &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}}}
	if !IsReady(ready) || IsReady(notReady) || IsReady(&corev1.Node{}) {
		t.Error("IsReady: want true only for Ready=True")
	}
	if c, ok := Condition(notReady, corev1.NodeReady); !ok || c.Status != corev1.ConditionUnknown {
		t.Errorf("Condition(Ready) = %v, %t: want the Unknown one", c, ok)
	}
	if c, ok := Condition(notReady, corev1.NodeDiskPressure); ok || c.Type != "" {
		t.Errorf("Condition(DiskPressure) = %v, %t: want none", c, ok)
	}
	disrupted := corev1.Taint{Key: "karpenter.sh/disrupted", Effect: corev1.TaintEffectNoSchedule}
	taints := []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}, {Key: "karpenter.sh/disrupted", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
	if !HasTaint(taints, disrupted) || HasTaint(taints, corev1.Taint{Key: "karpenter.sh/disrupted", Effect: corev1.TaintEffectNoExecute}) {
		t.Error("HasTaint: want a match on key and effect only")
	}
	if kept := WithoutTaint(taints, disrupted); len(kept) != 1 || kept[0].Key != "a" || len(taints) != 2 {
		t.Errorf("WithoutTaint = %v (and the input %v): want only taint a, the input unchanged", kept, taints)
	}
}
