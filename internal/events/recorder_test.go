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
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
)

type recorded struct {
	reason, note string
	related      runtime.Object
}

type sink struct{ events []recorded }

func (s *sink) Eventf(_ runtime.Object, related runtime.Object, _, reason, _, note string, args ...any) {
	s.events = append(s.events, recorded{reason, fmt.Sprintf(note, args...), related})
}

func TestRecorderDropsRepeats(t *testing.T) {
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC))
	delegate := &sink{}
	recorder := NewRecorder(delegate, time.Minute, clock)
	a := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", UID: "uid-a"}}
	b := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "default", UID: "uid-b"}}
	publish := func(object runtime.Object, reason, message string) {
		recorder.Eventf(object, nil, corev1.EventTypeNormal, reason, "Test", "%s", message)
	}
	publish(a, "Waiting", "on x")
	publish(a, "Waiting", "on x") // the same news: dropped
	publish(b, "Waiting", "on x") // another object
	publish(a, "Waiting", "on y") // a changed message
	publish(a, "Other", "on x")   // another reason
	clock.SetTime(clock.Now().Add(time.Minute))
	publish(a, "Waiting", "on x") // once repeat has passed
	if got := len(delegate.events); got != 5 {
		t.Errorf("%d events published, want 5: %+v", got, delegate.events)
	}
	NewRecorder(nil, 0, clock).Eventf(a, nil, corev1.EventTypeNormal, "Waiting", "Test", "x") // no delegate: nothing, no panic
}

// An event names its related object (a pod's Nominated event names the NodeClaim it waits
// for): one whose related object changes is new, even with the same note, and the related
// object reaches the delegate.
func TestRecorderTellsRelatedObjectsApart(t *testing.T) {
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC))
	delegate := &sink{}
	recorder := NewRecorder(delegate, time.Minute, clock)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", UID: "uid-a"}}
	first := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "x", UID: "uid-x1"}}
	again := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "x", UID: "uid-x2"}} // made again under its name
	publish := func(related runtime.Object) {
		recorder.Eventf(pod, related, corev1.EventTypeNormal, "Nominated", "Test", "Pod should schedule on: %s", "node/x")
	}
	publish(first)
	publish(first) // the same news: dropped
	publish(again) // the same note about another object
	publish(nil)   // the same note about none
	if got := len(delegate.events); got != 3 {
		t.Fatalf("%d events published, want 3: %+v", got, delegate.events)
	}
	if delegate.events[0].related != first || delegate.events[1].related != again || delegate.events[2].related != nil {
		t.Errorf("related objects %+v, want x, x made again, none", delegate.events)
	}
}

// The API server refuses an event whose note is longer than 1024 bytes, and the event is lost:
// a note listing many nodes is cut to that length instead, at a character boundary.
func TestRecorderCutsLongNotes(t *testing.T) {
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC))
	delegate := &sink{}
	recorder := NewRecorder(delegate, time.Minute, clock)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", UID: "uid-a"}}
	for _, c := range []struct {
		name, note string
		want       int
	}{
		{"short", "waiting on 3 nodes", len("waiting on 3 nodes")},
		{"exactly the limit", strings.Repeat("x", 1024), 1024},
		{"one byte over", strings.Repeat("x", 1025), 1024},
		{"many nodes", "terminating " + strings.Repeat("default-abcde/m2a.xlarge/kr-central-2-a, ", 60), 1024},
		// A three-byte character across the cut is left out whole.
		{"multi-byte", strings.Repeat("x", 1020) + strings.Repeat("노드", 5), 1020 + len("...")},
	} {
		recorder.Eventf(pod, nil, corev1.EventTypeNormal, c.name, "Test", "%s", c.note)
		got := delegate.events[len(delegate.events)-1].note
		if len(got) != c.want || !utf8.ValidString(got) {
			t.Errorf("%s: published a note of %d bytes (valid UTF-8: %t), want %d", c.name, len(got), utf8.ValidString(got), c.want)
		}
		if len(c.note) > 1024 && !strings.HasSuffix(got, "...") {
			t.Errorf("%s: a cut note does not end with an ellipsis: %q", c.name, got[len(got)-10:])
		}
	}
}
