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

package state

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func decisions(t *testing.T) (uint64, float64) {
	t.Helper()
	m := &dto.Metric{}
	if err := podSchedulingDecision.Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

func TestPodSchedulingTimes(t *testing.T) {
	start := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	times := NewPodSchedulingTimes(clk)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "1"}}
	count, sum := decisions(t)

	times.Acknowledge([]*corev1.Pod{pod})
	clk.Step(3 * time.Second)
	times.Acknowledge([]*corev1.Pod{pod}) // seen again: still the first time
	times.Decide(pod, false)
	clk.Step(2 * time.Second)
	times.Decide(pod, true)
	clk.Step(time.Second)
	times.Decide(pod, true)

	got := times.Get(pod)
	want := PodTimes{Acknowledged: start, Decided: start.Add(3 * time.Second), Schedulable: start.Add(5 * time.Second)}
	if got != want {
		t.Errorf("times = %+v, want %+v", got, want)
	}
	if n, s := decisions(t); n-count != 1 || s-sum != 3 {
		t.Errorf("%d decisions timed, %vs; want the first one, 3s after it was seen", n-count, s-sum)
	}
	times.Decide(pod, false)
	if !times.Get(pod).Schedulable.IsZero() {
		t.Error("a pod that lost its place keeps its Schedulable time")
	}
	other := pod.DeepCopy()
	other.UID = "2"
	if got := times.Get(other); got != (PodTimes{}) {
		t.Errorf("another pod of the same name has times %+v", got)
	}
	times.Forget(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
	if got := times.Get(pod); got != (PodTimes{}) {
		t.Errorf("a forgotten pod has times %+v", got)
	}
	var none *PodSchedulingTimes
	none.Acknowledge([]*corev1.Pod{pod})
	none.Decide(pod, true)
	if got := none.Get(pod); got != (PodTimes{}) {
		t.Errorf("no times kept, yet %+v", got)
	}
}
