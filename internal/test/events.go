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

package test

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
)

// Event is one event a controller recorded.
type Event struct {
	// Kind and Name are the object the event is about.
	Kind, Name           string
	Type, Reason, Action string
	Note                 string
	// Related is the other object the event names (its related object), nil for none.
	Related *corev1.ObjectReference
}

// EventRecorder keeps the events controllers record, in order, for specs to read; it passes
// them on to Delegate too when set, so that they also reach the API server.
type EventRecorder struct {
	Delegate events.EventRecorder

	mu     sync.Mutex
	events []Event
}

var _ events.EventRecorder = (*EventRecorder)(nil)

// Eventf records an event about regarding.
func (r *EventRecorder) Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	e := Event{Type: eventtype, Reason: reason, Action: action, Note: fmt.Sprintf(note, args...)}
	if regarding != nil {
		ref := referenceTo(regarding)
		e.Kind, e.Name = ref.Kind, ref.Name
	}
	if related != nil {
		e.Related = referenceTo(related)
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	if r.Delegate != nil {
		r.Delegate.Eventf(regarding, related, eventtype, reason, action, note, args...)
	}
}

// referenceTo is a reference to the object, as the API server's recorder makes one: its kind
// (from its type when it carries none, as typed objects read through a client do), API
// version, namespace, name and UID.
func referenceTo(object runtime.Object) *corev1.ObjectReference {
	gvk := object.GetObjectKind().GroupVersionKind()
	ref := &corev1.ObjectReference{Kind: gvk.Kind, APIVersion: gvk.GroupVersion().String()}
	if ref.Kind == "" {
		ref.Kind, ref.APIVersion = reflect.Indirect(reflect.ValueOf(object)).Type().Name(), ""
	}
	if accessor, err := meta.Accessor(object); err == nil {
		ref.Namespace, ref.Name, ref.UID = accessor.GetNamespace(), accessor.GetName(), accessor.GetUID()
	}
	return ref
}

// Events returns the events recorded so far, oldest first.
func (r *EventRecorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Notes returns the notes of the events with the reason about the object of that name.
func (r *EventRecorder) Notes(name, reason string) []string {
	var notes []string
	for _, e := range r.Events() {
		if e.Name == name && e.Reason == reason {
			notes = append(notes, e.Note)
		}
	}
	return notes
}

// Related returns the related objects of the events with the reason about the object of that
// name, nil for an event that names none.
func (r *EventRecorder) Related(name, reason string) []*corev1.ObjectReference {
	var related []*corev1.ObjectReference
	for _, e := range r.Events() {
		if e.Name == name && e.Reason == reason {
			related = append(related, e.Related)
		}
	}
	return related
}

// NotesOf is Notes as a function, for Eventually.
func (r *EventRecorder) NotesOf(name, reason string) func() []string {
	return func() []string { return r.Notes(name, reason) }
}

// Reset forgets every event recorded so far.
func (r *EventRecorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = nil
}
