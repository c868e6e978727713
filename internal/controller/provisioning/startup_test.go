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

package provisioning

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func histogram(t *testing.T) (uint64, float64) {
	t.Helper()
	m := &dto.Metric{}
	if err := podStartupDuration.Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

func TestStartupDurationCountsOnlyPodsSeenWaiting(t *testing.T) {
	created := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	newPod := func(name string, uid string, readyAfter time.Duration) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("u-" + uid), CreationTimestamp: metav1.NewTime(created)}}
		if readyAfter > 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(created.Add(readyAfter))}}
		}
		return p
	}
	tracker := newStartupTracker()
	count0, sum0 := histogram(t)

	tracker.observe(newPod("inflate-1", "1", 0))
	tracker.observe(newPod("inflate-1", "1", 42*time.Second))
	tracker.observe(newPod("inflate-1", "1", 42*time.Second)) // a later update is not counted again
	tracker.observe(newPod("old", "2", time.Hour))            // ready before the controller saw it
	tracker.observe(newPod("recreated", "3", 0))
	tracker.observe(newPod("recreated", "4", 5*time.Second)) // same name, another pod

	count, sum := histogram(t)
	if count-count0 != 1 || sum-sum0 != 42 {
		t.Errorf("observed %d samples summing %.0fs, want 1 of 42s", count-count0, sum-sum0)
	}
	if len(tracker.waiting) != 0 {
		t.Errorf("tracker still waits on %v", tracker.waiting)
	}
}
