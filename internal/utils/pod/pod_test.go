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

package pod

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPredicates(t *testing.T) {
	now := metav1.Now()
	unschedulable := []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	owned := func(kind string, controller bool) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: "owner", Controller: new(controller)}}
	}
	for _, tc := range []struct {
		name                                                string
		pod                                                 corev1.Pod
		terminal, daemonSet, mirror, reschedulable, pending bool
	}{
		{name: "running on a node", pod: corev1.Pod{Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}, reschedulable: true},
		{name: "succeeded", pod: corev1.Pod{Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, terminal: true},
		{name: "failed", pod: corev1.Pod{Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodFailed}}, terminal: true},
		{name: "being deleted", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now}, Spec: corev1.PodSpec{NodeName: "n"}}},
		{name: "a DaemonSet's", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet", true)}, Spec: corev1.PodSpec{NodeName: "n"}}, daemonSet: true},
		{name: "a DaemonSet owner that is not the controller", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet", false)}, Spec: corev1.PodSpec{NodeName: "n"}}, reschedulable: true},
		{name: "a static pod's mirror", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}, Spec: corev1.PodSpec{NodeName: "n"}}, mirror: true},
		{name: "unschedulable", pod: corev1.Pod{Status: corev1.PodStatus{Conditions: unschedulable}}, reschedulable: true, pending: true},
		{name: "not yet tried by the kube-scheduler", pod: corev1.Pod{}, reschedulable: true},
		{name: "nominated for preemption", pod: corev1.Pod{Status: corev1.PodStatus{Conditions: unschedulable, NominatedNodeName: "n"}}, reschedulable: true},
		{name: "an unschedulable DaemonSet pod", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet", true)}, Status: corev1.PodStatus{Conditions: unschedulable}}, daemonSet: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &tc.pod
			for _, check := range []struct {
				name      string
				got, want bool
			}{
				{"IsTerminal", IsTerminal(pod), tc.terminal},
				{"IsOwnedByDaemonSet", IsOwnedByDaemonSet(pod), tc.daemonSet},
				{"IsMirror", IsMirror(pod), tc.mirror},
				{"IsReschedulable", IsReschedulable(pod), tc.reschedulable},
				{"IsProvisionable", IsProvisionable(pod), tc.pending},
			} {
				if check.got != check.want {
					t.Errorf("%s = %t, want %t", check.name, check.got, check.want)
				}
			}
		})
	}
}

func TestDoNotDisrupt(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	started := func(ago time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(-ago)} }
	for _, tc := range []struct {
		name      string
		value     *string
		startTime *metav1.Time
		active    bool
		until     time.Time
		invalid   bool
	}{
		{name: "no annotation"},
		{name: "true", value: new("true"), active: true},
		{name: "a duration not over", value: new("30m"), startTime: started(10 * time.Minute), active: true, until: now.Add(20 * time.Minute)},
		{name: "a duration over", value: new("30m"), startTime: started(31 * time.Minute), until: now.Add(-time.Minute)},
		{name: "a duration, the pod not started yet", value: new("30m"), active: true},
		{name: "not a duration: protects, and says so", value: new("forever"), startTime: started(time.Hour), active: true, invalid: true},
		{name: "a negative duration: protects, and says so", value: new("-5m"), active: true, invalid: true},
		{name: "false is no value of it either", value: new("false"), active: true, invalid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Status: corev1.PodStatus{StartTime: tc.startTime}}
			if tc.value != nil {
				pod.Annotations = map[string]string{DoNotDisruptAnnotation: *tc.value}
			}
			active, until, err := DoNotDisrupt(pod, now)
			if active != tc.active || !until.Equal(tc.until) || (err != nil) != tc.invalid {
				t.Errorf("got %v until %v (%v), want %v until %v, invalid %v", active, until, err, tc.active, tc.until, tc.invalid)
			}
		})
	}
}
