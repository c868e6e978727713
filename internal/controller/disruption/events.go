/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package disruption

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultEventRepeat is how long the same explanation is not published again for the same
// object.
const DefaultEventRepeat = 5 * time.Minute

// eventLog publishes events, but an explanation that is already out (same object, reason and
// message) only again after repeat: the disruption loop re-evaluates every few seconds and
// would otherwise flood the API server with the same news.
type eventLog struct {
	recorder events.EventRecorder
	repeat   time.Duration
	now      func() time.Time

	mu   sync.Mutex
	last map[string]published
}

type published struct {
	message string
	at      time.Time
}

func newEventLog(recorder events.EventRecorder, repeat time.Duration, now func() time.Time) *eventLog {
	if repeat <= 0 {
		repeat = DefaultEventRepeat
	}
	return &eventLog{recorder: recorder, repeat: repeat, now: now, last: map[string]published{}}
}

// publish records an event (action Disrupt) on obj unless the same one was recorded within
// repeat.
func (e *eventLog) publish(obj client.Object, eventType, reason, message string) {
	if e == nil || e.recorder == nil || obj == nil {
		return
	}
	key := string(obj.GetUID()) + "/" + obj.GetName() + "/" + reason
	now := e.now()
	e.mu.Lock()
	prev, seen := e.last[key]
	if seen && prev.message == message && now.Sub(prev.at) < e.repeat {
		e.mu.Unlock()
		return
	}
	e.last[key] = published{message: message, at: now}
	if len(e.last) > 10000 {
		for k, p := range e.last {
			if now.Sub(p.at) >= e.repeat {
				delete(e.last, k)
			}
		}
	}
	e.mu.Unlock()
	e.recorder.Eventf(runtime.Object(obj), nil, eventType, reason, "Disrupt", "%s", message)
}
