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
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// Resync is how often a pod's series are written again while nothing about it changes: the
// time gauges grow with the clock.
const Resync = 30 * time.Second

// Reconciler keeps every pod's series.
type Reconciler struct {
	Client client.Client
	Clock  clock.PassiveClock
	// SchedulingTimes are provisioning's moments for each pending pod.
	SchedulingTimes *state.PodSchedulingTimes

	mu   sync.Mutex
	pods map[types.NamespacedName]*tracked
}

// tracked is what the Reconciler remembers of a pod between its reconciles.
type tracked struct {
	uid types.UID
	// state is the pod's karpenter_pods_state series, to delete when its labels change.
	state prometheus.Labels
	// unstarted and unbound say the pod was seen before it started or was bound: only then is
	// its startup or binding timed, as a restarted operator must not count pods that started
	// long before it.
	unstarted, unbound bool
}

// Reconcile writes the pod's series, or deletes them once it is gone.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		if apierrors.IsNotFound(err) {
			r.mu.Lock()
			r.forget(req.NamespacedName)
			r.mu.Unlock()
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("getting pod %s: %w", req.NamespacedName, err)
	}
	labels, err := r.stateLabels(ctx, pod)
	if err != nil {
		return reconcile.Result{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.track(pod)
	if t.state != nil && !maps.Equal(t.state, labels) {
		podState.Delete(t.state)
	}
	podState.With(labels).Set(1)
	t.state = labels

	times := r.SchedulingTimes.Get(pod)
	now := r.Clock.Now()
	recordUndecided(pod, times, now)
	if recordStartup(pod, t, times, now) {
		// Started or ended: provisioning's moments are of no more use.
		r.SchedulingTimes.Forget(req.NamespacedName)
	}
	recordBound(pod, t, times, now)
	return reconcile.Result{RequeueAfter: Resync}, nil
}

// track is what is remembered of the pod; a new pod of the same name starts afresh.
func (r *Reconciler) track(pod *corev1.Pod) *tracked {
	key := client.ObjectKeyFromObject(pod)
	if r.pods == nil {
		r.pods = map[types.NamespacedName]*tracked{}
	}
	t, ok := r.pods[key]
	if ok && t.uid == pod.UID {
		return t
	}
	if ok {
		r.forget(key)
	}
	t = &tracked{uid: pod.UID}
	r.pods[key] = t
	return t
}

// forget deletes every series of a pod that is gone.
func (r *Reconciler) forget(key types.NamespacedName) {
	if t, ok := r.pods[key]; ok && t.state != nil {
		podState.Delete(t.state)
	}
	delete(r.pods, key)
	named := prometheus.Labels{labelName: key.Name, labelNamespace: key.Namespace}
	for _, gauge := range []*prometheus.GaugeVec{unstartedTime, provisioningUnstartedTime, unboundTime, provisioningUnboundTime, schedulingUndecidedTime} {
		gauge.DeletePartialMatch(named)
	}
	r.SchedulingTimes.Forget(key)
}

// recordUndecided sets how long provisioning has seen the pod without deciding about it.
func recordUndecided(pod *corev1.Pod, times state.PodTimes, now time.Time) {
	named := prometheus.Labels{labelName: pod.Name, labelNamespace: pod.Namespace}
	if times.Acknowledged.IsZero() || !times.Decided.IsZero() || isBound(pod) || podutil.IsTerminal(pod) {
		schedulingUndecidedTime.Delete(named)
		return
	}
	schedulingUndecidedTime.With(named).Set(now.Sub(times.Acknowledged).Seconds())
}

// recordStartup times the start of a pod seen before it started: the gauges while it has not,
// the durations once it is ready. It reports whether the pod's wait is over.
func recordStartup(pod *corev1.Pod, t *tracked, times state.PodTimes, now time.Time) bool {
	named := prometheus.Labels{labelName: pod.Name, labelNamespace: pod.Namespace}
	readyAt, ready := readySince(pod)
	switch {
	case pod.Status.Phase == corev1.PodPending || (t.unstarted && !ready && !podutil.IsTerminal(pod)):
		t.unstarted = true
		unstartedTime.With(named).Set(now.Sub(pod.CreationTimestamp.Time).Seconds())
		setSince(provisioningUnstartedTime, named, times.Schedulable, now)
		return false
	case !t.unstarted:
		return false
	}
	t.unstarted = false
	unstartedTime.Delete(named)
	provisioningUnstartedTime.Delete(named)
	if ready {
		startupDuration.Observe(readyAt.Sub(pod.CreationTimestamp.Time).Seconds())
		if !times.Schedulable.IsZero() {
			provisioningStartupDuration.Observe(nonNegative(readyAt.Sub(times.Schedulable)))
		}
	}
	return true
}

// recordBound times the binding of a pod seen before it was bound.
func recordBound(pod *corev1.Pod, t *tracked, times state.PodTimes, now time.Time) {
	dynamic := prometheus.Labels{labelDynamicResources: strconv.FormatBool(len(pod.Spec.ResourceClaims) > 0)}
	named := prometheus.Labels{labelName: pod.Name, labelNamespace: pod.Namespace, labelDynamicResources: dynamic[labelDynamicResources]}
	boundAt, scheduled := scheduledSince(pod)
	// A pod bound without the scheduler (a static pod's mirror) has no PodScheduled time.
	bound := scheduled || pod.Spec.NodeName != ""
	switch {
	case !bound && !podutil.IsTerminal(pod) && pod.DeletionTimestamp.IsZero():
		t.unbound = true
		unboundTime.With(named).Set(now.Sub(pod.CreationTimestamp.Time).Seconds())
		setSince(provisioningUnboundTime, named, times.Schedulable, now)
		return
	case !t.unbound:
		return
	}
	t.unbound = false
	unboundTime.Delete(named)
	provisioningUnboundTime.Delete(named)
	if scheduled {
		boundDuration.With(dynamic).Observe(boundAt.Sub(pod.CreationTimestamp.Time).Seconds())
		if !times.Schedulable.IsZero() {
			provisioningBoundDuration.With(dynamic).Observe(nonNegative(boundAt.Sub(times.Schedulable)))
		}
	}
}

// setSince sets gauge to the time since since, or deletes it while since is zero.
func setSince(gauge *prometheus.GaugeVec, labels prometheus.Labels, since, now time.Time) {
	if since.IsZero() {
		gauge.Delete(labels)
		return
	}
	gauge.With(labels).Set(nonNegative(now.Sub(since)))
}

// nonNegative is d in seconds, 0 when the moments it comes from were read from two clocks
// that disagree.
func nonNegative(d time.Duration) float64 {
	return max(d, 0).Seconds()
}

// stateLabels are the pod's karpenter_pods_state labels, its node's read from the cache.
func (r *Reconciler) stateLabels(ctx context.Context, pod *corev1.Pod) (prometheus.Labels, error) {
	node := &corev1.Node{}
	if pod.Spec.NodeName != "" {
		if err := r.Client.Get(ctx, types.NamespacedName{Name: pod.Spec.NodeName}, node); client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("getting node %s of pod %s: %w", pod.Spec.NodeName, klog.KObj(pod), err)
		}
	}
	_, ready := readySince(pod)
	return prometheus.Labels{
		labelName:       pod.Name,
		labelNamespace:  pod.Namespace,
		"owner":         owner(pod),
		"node":          pod.Spec.NodeName,
		"scheduled":     strconv.FormatBool(pod.Spec.NodeName != ""),
		"nodepool":      node.Labels[karpv1.LabelNodePool],
		"zone":          node.Labels[corev1.LabelTopologyZone],
		"arch":          node.Labels[corev1.LabelArchStable],
		"capacity_type": node.Labels[karpv1.LabelCapacityType],
		"instance_type": node.Labels[corev1.LabelInstanceTypeStable],
		"phase":         string(pod.Status.Phase),
		"ready":         strconv.FormatBool(ready),
		"managed":       strconv.FormatBool(node.Labels[karpv1.LabelNodePool] != ""),
	}, nil
}

// owner is the path of the pod's first owner, as upstream writes it:
// /apis/<apiVersion>/namespaces/<namespace>/<kind>s/<name>.
func owner(pod *corev1.Pod) string {
	if len(pod.OwnerReferences) == 0 {
		return ""
	}
	ref := pod.OwnerReferences[0]
	return fmt.Sprintf("/apis/%s/namespaces/%s/%ss/%s", ref.APIVersion, pod.Namespace, strings.ToLower(ref.Kind), ref.Name)
}

func isBound(pod *corev1.Pod) bool {
	_, bound := scheduledSince(pod)
	return bound || pod.Spec.NodeName != ""
}

// readySince says whether the pod is ready and since when.
func readySince(pod *corev1.Pod) (time.Time, bool) {
	return conditionSince(pod, corev1.PodReady)
}

// scheduledSince says whether the pod is bound to a node and since when.
func scheduledSince(pod *corev1.Pod) (time.Time, bool) {
	return conditionSince(pod, corev1.PodScheduled)
}

func conditionSince(pod *corev1.Pod, conditionType corev1.PodConditionType) (time.Time, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == conditionType && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}

// SetupWithManager watches every pod.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewControllerManagedBy(mgr).Named("metrics.pod").For(&corev1.Pod{}).Complete(r); err != nil {
		return fmt.Errorf("building the controller: %w", err)
	}
	return nil
}
