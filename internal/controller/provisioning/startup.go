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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

var podStartupDuration = metrics.Histogram("karpenter_pods_startup_duration_seconds",
	"Time from a pod's creation until it is ready, for pods seen waiting by this controller.",
	[]float64{1, 2.5, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1200})

// startupTracker observes how long pods took to start. Only pods it saw before they were ready
// count: a restarted controller must not report the age of pods that started long ago.
type startupTracker struct {
	mu      sync.Mutex
	waiting map[types.NamespacedName]types.UID
}

func newStartupTracker() *startupTracker {
	return &startupTracker{waiting: map[types.NamespacedName]types.UID{}}
}

func (s *startupTracker) observe(pod *corev1.Pod) {
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	ready, at := readySince(pod)
	s.mu.Lock()
	defer s.mu.Unlock()
	uid, seen := s.waiting[key]
	switch {
	case !ready && pod.DeletionTimestamp.IsZero():
		s.waiting[key] = pod.UID
	case ready && seen && uid == pod.UID:
		podStartupDuration.Observe(at.Sub(pod.CreationTimestamp.Time).Seconds())
		delete(s.waiting, key)
	case seen:
		delete(s.waiting, key)
	}
}

func (s *startupTracker) forget(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiting, key)
}

// readySince reports whether the pod is ready and since when.
func readySince(pod *corev1.Pod) (bool, time.Time) {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			if c.LastTransitionTime.IsZero() {
				return true, time.Now()
			}
			return true, c.LastTransitionTime.Time
		}
	}
	return false, time.Time{}
}
