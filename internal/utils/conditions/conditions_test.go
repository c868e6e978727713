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

package conditions

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func condition(t string, s metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: message}
}

func TestSet(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	later := metav1.NewTime(then.Add(time.Hour))
	list := []metav1.Condition{}
	if !Set(&list, 3, metav1.Condition{Type: "Zeta", Status: metav1.ConditionTrue, Reason: "Z", LastTransitionTime: then}) {
		t.Fatal("setting a new condition reports no change")
	}
	Set(&list, 3, metav1.Condition{Type: "Alpha", Status: metav1.ConditionFalse, Reason: "A", LastTransitionTime: then})
	if list[0].Type != "Alpha" || list[1].Type != "Zeta" {
		t.Errorf("conditions are not sorted by type: %v", list)
	}
	if list[0].ObservedGeneration != 3 {
		t.Errorf("ObservedGeneration = %d, want 3", list[0].ObservedGeneration)
	}
	if Set(&list, 3, metav1.Condition{Type: "Zeta", Status: metav1.ConditionTrue, Reason: "Z", LastTransitionTime: later}) {
		t.Error("setting the same condition again reports a change")
	}
	if got := meta.FindStatusCondition(list, "Zeta").LastTransitionTime; !got.Equal(&then) {
		t.Errorf("LastTransitionTime moved without a transition: %v", got)
	}
	if !Set(&list, 4, metav1.Condition{Type: "Zeta", Status: metav1.ConditionTrue, Reason: "Z", LastTransitionTime: later}) {
		t.Error("a new generation reports no change")
	}
	Set(&list, 4, metav1.Condition{Type: "Zeta", Status: metav1.ConditionFalse, Reason: "Z", LastTransitionTime: later})
	if got := meta.FindStatusCondition(list, "Zeta").LastTransitionTime; !got.Equal(&later) {
		t.Errorf("LastTransitionTime = %v after a transition, want %v", got, later)
	}
	unsorted := []metav1.Condition{condition("B", metav1.ConditionTrue, "B", ""), condition("A", metav1.ConditionTrue, "A", "")}
	if !Set(&unsorted, 0, condition("A", metav1.ConditionTrue, "A", "")) || unsorted[0].Type != "A" {
		t.Errorf("an unsorted list is sorted, and that is a change: %v", unsorted)
	}
}

func TestSetReady(t *testing.T) {
	root := metav1.Condition{Type: "Ready", Reason: "Ready", Message: "all good"}
	for _, tc := range []struct {
		name       string
		conditions []metav1.Condition
		want       metav1.Condition
	}{
		{"every dependency True", []metav1.Condition{
			condition("Launched", metav1.ConditionTrue, "Launched", "created"),
			condition("Registered", metav1.ConditionTrue, "Registered", "joined"),
		}, condition("Ready", metav1.ConditionTrue, "Ready", "all good")},
		{"a missing dependency is Unknown", []metav1.Condition{
			condition("Launched", metav1.ConditionTrue, "Launched", "created"),
		}, condition("Ready", metav1.ConditionUnknown, ReasonAwaitingReconciliation, "Registered is not known yet")},
		{"an Unknown dependency gives its reason", []metav1.Condition{
			condition("Launched", metav1.ConditionTrue, "Launched", "created"),
			condition("Registered", metav1.ConditionUnknown, "NodeNotFound", "waiting"),
		}, condition("Ready", metav1.ConditionUnknown, "NodeNotFound", "Registered: waiting")},
		{"False wins over an earlier Unknown", []metav1.Condition{
			condition("Launched", metav1.ConditionUnknown, "AwaitingInstance", "creating"),
			condition("Registered", metav1.ConditionFalse, "Failed", "gone"),
		}, condition("Ready", metav1.ConditionFalse, "Failed", "Registered: gone")},
		{"the first False dependency says why", []metav1.Condition{
			condition("Launched", metav1.ConditionFalse, "LaunchFailed", "no capacity"),
			condition("Registered", metav1.ConditionFalse, "Failed", "gone"),
		}, condition("Ready", metav1.ConditionFalse, "LaunchFailed", "Launched: no capacity")},
		{"conditions outside the dependencies do not count", []metav1.Condition{
			condition("Drifted", metav1.ConditionFalse, "NotDrifted", ""),
			condition("Launched", metav1.ConditionTrue, "Launched", "created"),
			condition("Registered", metav1.ConditionTrue, "Registered", "joined"),
		}, condition("Ready", metav1.ConditionTrue, "Ready", "all good")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			SetReady(&tc.conditions, 7, root, "Launched", "Registered")
			got := meta.FindStatusCondition(tc.conditions, "Ready")
			if got == nil {
				t.Fatal("no Ready condition")
			}
			if got.Status != tc.want.Status || got.Reason != tc.want.Reason || got.Message != tc.want.Message || got.ObservedGeneration != 7 {
				t.Errorf("Ready = %s/%s %q (generation %d), want %s/%s %q (generation 7)",
					got.Status, got.Reason, got.Message, got.ObservedGeneration, tc.want.Status, tc.want.Reason, tc.want.Message)
			}
		})
	}
}
