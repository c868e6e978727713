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

package events

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
)

// DefaultRepeat is how long the same event is not published again for the same object.
const DefaultRepeat = 5 * time.Minute

// forgetAt is how many remembered events make the recorder drop those older than repeat.
const forgetAt = 10000

// maxNote is the longest note the API server accepts for an event (events.k8s.io/v1); a longer
// one is refused and the event lost, so notes are cut to it.
const maxNote = 1024

// ellipsis ends a note that was cut.
const ellipsis = "..."

// Recorder is an events.EventRecorder that drops repeats.
type Recorder struct {
	delegate events.EventRecorder
	repeat   time.Duration
	clock    clock.PassiveClock

	mu   sync.Mutex
	last map[string]time.Time
}

var _ events.EventRecorder = (*Recorder)(nil)

// NewRecorder deduplicates what is published to delegate, by the clock; repeat 0 means
// DefaultRepeat. A nil delegate publishes nothing.
func NewRecorder(delegate events.EventRecorder, repeat time.Duration, passiveClock clock.PassiveClock) *Recorder {
	if repeat <= 0 {
		repeat = DefaultRepeat
	}
	return &Recorder{delegate: delegate, repeat: repeat, clock: passiveClock, last: map[string]time.Time{}}
}

// Eventf publishes the event unless the same one was published about the same object, with
// the same related object, within repeat. related goes to the delegate as it is: an event
// whose related object changes is another event, even with the same note.
func (r *Recorder) Eventf(regarding runtime.Object, related runtime.Object, eventType, reason, action, note string, args ...any) {
	if r == nil || r.delegate == nil || regarding == nil {
		return
	}
	note = cut(fmt.Sprintf(note, args...))
	relatedIdentity := ""
	if related != nil {
		relatedIdentity = identity(related)
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s\x00%s", identity(regarding), relatedIdentity, eventType, reason, action, note)
	now := r.clock.Now()
	r.mu.Lock()
	if at, seen := r.last[key]; seen && now.Sub(at) < r.repeat {
		r.mu.Unlock()
		return
	}
	r.last[key] = now
	if len(r.last) > forgetAt {
		for k, at := range r.last {
			if now.Sub(at) >= r.repeat {
				delete(r.last, k)
			}
		}
	}
	r.mu.Unlock()
	r.delegate.Eventf(regarding, related, eventType, reason, action, "%s", note)
}

// cut shortens a note longer than the API server accepts to that length, at a character
// boundary, ending with an ellipsis.
func cut(note string) string {
	if len(note) <= maxNote {
		return note
	}
	end := maxNote - len(ellipsis)
	for end > 0 && !utf8.RuneStart(note[end]) {
		end--
	}
	return note[:end] + ellipsis
}

// identity names the object: its UID, and its kind, namespace and name (objects built in
// memory may have no UID).
func identity(object runtime.Object) string {
	kind := object.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		kind = fmt.Sprintf("%T", object)
	}
	accessor, err := meta.Accessor(object)
	if err != nil {
		return kind
	}
	return fmt.Sprintf("%s/%s/%s/%s", accessor.GetUID(), kind, accessor.GetNamespace(), accessor.GetName())
}
