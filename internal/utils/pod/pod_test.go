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
