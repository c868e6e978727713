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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

// podSchedulingDecision times how long provisioning took to decide about a pod it saw pending.
var podSchedulingDecision = metrics.Histogram("karpenter_pods_scheduling_decision_duration_seconds",
	"Time from provisioning first seeing a pending pod until its first scheduling decision about it.",
	metrics.DurationBuckets())

// PodTimes are the moments provisioning first saw a pending pod (Acknowledged), first decided
// about it (Decided) and found it a place (Schedulable); zero when it has not (yet).
type PodTimes struct {
	Acknowledged, Decided, Schedulable time.Time
}

// PodSchedulingTimes are the PodTimes of pending pods, which provisioning writes and the pod
// metrics controller reads. They are kept in memory only: a restarted operator starts them
// again, as it cannot know when its predecessor saw a pod.
type PodSchedulingTimes struct {
	Clock clock.PassiveClock

	mu   sync.Mutex
	pods map[types.NamespacedName]*podTimes
}

type podTimes struct {
	uid types.UID
	PodTimes
}

// NewPodSchedulingTimes keeps PodTimes on clk.
func NewPodSchedulingTimes(clk clock.PassiveClock) *PodSchedulingTimes {
	return &PodSchedulingTimes{Clock: clk, pods: map[types.NamespacedName]*podTimes{}}
}

// entry is the pod's times, started for it if it has none, or if the ones kept were another
// pod's of the same name.
func (t *PodSchedulingTimes) entry(pod *corev1.Pod) *podTimes {
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	e, ok := t.pods[key]
	if !ok || e.uid != pod.UID {
		e = &podTimes{uid: pod.UID}
		t.pods[key] = e
	}
	return e
}

// Acknowledge notes that provisioning saw the pods pending, unless it had already.
func (t *PodSchedulingTimes) Acknowledge(pods []*corev1.Pod) {
	if t == nil {
		return
	}
	now := t.Clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pod := range pods {
		if e := t.entry(pod); e.Acknowledged.IsZero() {
			e.Acknowledged = now
		}
	}
}

// Decide notes provisioning's decision about a pending pod: a place found (schedulable) or
// not. The first decision is timed from the pod's acknowledgement. A pod that loses its place
// loses its Schedulable time, which a later place starts again.
func (t *PodSchedulingTimes) Decide(pod *corev1.Pod, schedulable bool) {
	if t == nil {
		return
	}
	now := t.Clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entry(pod)
	if e.Decided.IsZero() {
		e.Decided = now
		if !e.Acknowledged.IsZero() {
			podSchedulingDecision.Observe(now.Sub(e.Acknowledged).Seconds())
		}
	}
	switch {
	case !schedulable:
		e.Schedulable = time.Time{}
	case e.Schedulable.IsZero():
		e.Schedulable = now
	}
}

// Get is the pod's times: zero for another pod of the same name.
func (t *PodSchedulingTimes) Get(pod *corev1.Pod) PodTimes {
	if t == nil {
		return PodTimes{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.pods[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]
	if !ok || e.uid != pod.UID {
		return PodTimes{}
	}
	return e.PodTimes
}

// Forget drops the times of a pod that started, ended or is gone.
func (t *PodSchedulingTimes) Forget(key types.NamespacedName) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pods, key)
}
