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

package status

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// refreshPeriod is how often an object is reconciled again without a change:
// current_status_seconds and termination_current_time_seconds are ages, which only a
// reconcile brings up to date.
const refreshPeriod = 10 * time.Second

// concurrency is how many objects of a kind are reconciled at once, as upstream's: a reconcile
// only reads the cache, and a cluster can have thousands of nodes to refresh.
const concurrency = 10

// Reconciler keeps the status-condition and termination metrics of one kind of object.
type Reconciler[T client.Object] struct {
	Client client.Client
	// Clock tells the time: the operator's one clock, which NewControllers gives every controller.
	Clock clock.PassiveClock
	kind  kind[T]

	mu sync.Mutex
	// observed is what was last reported of each object, kept to see its conditions change
	// and to know which series to delete.
	observed map[types.NamespacedName]observation
}

// observation is what was reported of one object.
type observation struct {
	uid        types.UID
	conditions []condition
	// labels are the values of the kind's object labels.
	labels []string
	// deletion is when the object was asked to be deleted, nil while it was not.
	deletion *time.Time
}

// sink is a set of families with the extra label values an object's series carry in it.
type sink struct {
	families *families
	extra    []string
}

// SetupWithManager registers the reconciler as metrics.status.<kind>.
func (r *Reconciler[T]) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("metrics.status." + r.kind.name).
		For(r.kind.newObject()).
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrency}).
		Complete(r); err != nil {
		return fmt.Errorf("building controller metrics.status.%s: %w", r.kind.name, err)
	}
	return nil
}

// Reconcile reports the object's conditions and termination, or, once it is gone, drops its
// series and records how long its termination took.
func (r *Reconciler[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	object := r.kind.newObject()
	if err := r.Client.Get(ctx, req.NamespacedName, object); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("getting %s %s: %w", r.kind.name, req.Name, err)
	}
	r.report(req.NamespacedName, object)
	return reconcile.Result{RequeueAfter: refreshPeriod}, nil
}

// report sets the object's series and counts the changes since the last observation.
func (r *Reconciler[T]) report(key types.NamespacedName, object T) {
	previous, seen := r.load(key)
	if seen && previous.uid != object.GetUID() {
		// The object of the last observation is gone and another took its name: what was
		// seen of the old one says nothing about the new one.
		r.forget(key)
		previous = observation{}
	}
	current := r.observe(object)
	now := r.Clock.Now()
	previousSinks := r.sinks(previous.labels)
	for i, after := range r.sinks(current.labels) {
		before := previousSinks[i]
		setConditions(after, key, current.conditions, now)
		deleteStale(after.families, conditionSeries(key, previous.conditions, before.extra), conditionSeries(key, current.conditions, after.extra))
		countTransitions(after, previous.conditions, current.conditions)
		reportTermination(before, after, key, previous.deletion, current.deletion, now)
	}
	r.store(key, current)
}

// forget drops the series of an object that is gone and records how long its termination
// took, when it was seen terminating.
func (r *Reconciler[T]) forget(key types.NamespacedName) {
	previous, seen := r.loadAndDelete(key)
	if !seen {
		return
	}
	now := r.Clock.Now()
	for _, s := range r.sinks(previous.labels) {
		deleteStale(s.families, conditionSeries(key, previous.conditions, s.extra), nil)
		if previous.deletion != nil {
			s.families.terminationCurrent.Delete(terminationSeries(key, s.extra)...)
			s.families.terminationDuration.WithLabelValues(s.extra...).Observe(now.Sub(*previous.deletion).Seconds())
		}
	}
}

func (r *Reconciler[T]) observe(object T) observation {
	o := observation{uid: object.GetUID(), conditions: r.kind.conditions(object)}
	for _, key := range r.kind.labelKeys {
		o.labels = append(o.labels, object.GetLabels()[key])
	}
	if deletion := object.GetDeletionTimestamp(); deletion != nil {
		o.deletion = &deletion.Time
	}
	return o
}

// sinks are the families an object is reported in: its kind's, and the generic ones for the
// kinds that have them.
func (r *Reconciler[T]) sinks(labels []string) []sink {
	sinks := []sink{{families: r.kind.families, extra: labels}}
	if len(r.kind.groupKind) > 0 {
		sinks = append(sinks, sink{families: genericFamilies, extra: r.kind.groupKind})
	}
	return sinks
}

// setConditions sets the count and age of each condition.
func setConditions(s sink, key types.NamespacedName, conditions []condition, now time.Time) {
	for _, c := range conditions {
		values := conditionValues(key, c, s.extra)
		s.families.count.Set(1, values...)
		s.families.currentStatus.Set(now.Sub(c.LastTransitionTime).Seconds(), values...)
	}
}

// deleteStale deletes the condition series set before that are not set now: a condition that
// changed status or reason, went away, or whose object changed labels.
func deleteStale(f *families, before, after [][]string) {
	for _, values := range before {
		if !slices.ContainsFunc(after, func(v []string) bool { return slices.Equal(v, values) }) {
			f.count.Delete(values...)
			f.currentStatus.Delete(values...)
		}
	}
}

// countTransitions counts each condition whose status changed since the last observation and
// records how long it had the status it left. A condition not seen before counts as having
// been Unknown, with no time to record; so a new Unknown condition is no change. Changes between
// two observations are missed, as they are upstream: this reads objects, not their history.
func countTransitions(s sink, before, after []condition) {
	for _, c := range after {
		previous := find(before, c.Type)
		from := metav1.ConditionUnknown
		if previous != nil {
			from = previous.Status
		}
		if from == c.Status {
			continue
		}
		s.families.transitions.WithLabelValues(append([]string{c.Type, string(c.Status), c.Reason}, s.extra...)...).Inc()
		if previous == nil {
			continue
		}
		s.families.transitionSeconds.WithLabelValues(append([]string{c.Type, string(previous.Status), string(c.Status)}, s.extra...)...).
			Observe(c.LastTransitionTime.Sub(previous.LastTransitionTime).Seconds())
	}
}

// reportTermination sets how long ago a terminating object was asked to be deleted, under its
// current labels.
func reportTermination(before, after sink, key types.NamespacedName, wasDeleting, deletion *time.Time, now time.Time) {
	if deletion == nil {
		return
	}
	if wasDeleting != nil && !slices.Equal(before.extra, after.extra) {
		after.families.terminationCurrent.Delete(terminationSeries(key, before.extra)...)
	}
	after.families.terminationCurrent.Set(now.Sub(*deletion).Seconds(), terminationSeries(key, after.extra)...)
}

// conditionSeries are the label values of the count and current_status_seconds series of the
// conditions.
func conditionSeries(key types.NamespacedName, conditions []condition, extra []string) [][]string {
	series := make([][]string, 0, len(conditions))
	for _, c := range conditions {
		series = append(series, conditionValues(key, c, extra))
	}
	return series
}

func conditionValues(key types.NamespacedName, c condition, extra []string) []string {
	return append([]string{key.Namespace, key.Name, c.Type, string(c.Status), c.Reason}, extra...)
}

func terminationSeries(key types.NamespacedName, extra []string) []string {
	return append([]string{key.Namespace, key.Name}, extra...)
}

func (r *Reconciler[T]) load(key types.NamespacedName) (observation, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.observed[key]
	return o, ok
}

func (r *Reconciler[T]) loadAndDelete(key types.NamespacedName) (observation, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.observed[key]
	delete(r.observed, key)
	return o, ok
}

func (r *Reconciler[T]) store(key types.NamespacedName, o observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.observed == nil {
		r.observed = map[types.NamespacedName]observation{}
	}
	r.observed[key] = o
}
