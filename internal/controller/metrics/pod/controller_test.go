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
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
)

var created = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

func newPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(created),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "inflate-abc", UID: "rs"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func bind(pod *corev1.Pod, node string, at time.Time) {
	pod.Spec.NodeName = node
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)})
}

func ready(pod *corev1.Pod, at time.Time) {
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)})
}

func summaryCount(t *testing.T) (uint64, float64) {
	t.Helper()
	m := &dto.Metric{}
	if err := startupDuration.(prometheus.Metric).Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetSummary().GetSampleCount(), m.GetSummary().GetSampleSum()
}

func histogramOf(t *testing.T, h prometheus.Observer) (uint64, float64) {
	t.Helper()
	m := &dto.Metric{}
	if err := h.(prometheus.Metric).Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

type fixture struct {
	t          *testing.T
	clock      *clocktesting.FakeClock
	kube       client.Client
	times      *state.PodSchedulingTimes
	reconciler *Reconciler
}

func newFixture(t *testing.T, objects ...client.Object) *fixture {
	clk := clocktesting.NewFakeClock(created)
	kube := fake.NewClientBuilder().WithObjects(objects...).Build()
	times := state.NewPodSchedulingTimes(clk)
	return &fixture{t: t, clock: clk, kube: kube, times: times, reconciler: &Reconciler{Client: kube, Clock: clk, SchedulingTimes: times}}
}

func (f *fixture) reconcile(pod *corev1.Pod) {
	f.t.Helper()
	result, err := f.reconciler.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(pod)})
	if err != nil {
		f.t.Fatal(err)
	}
	if result.RequeueAfter != Resync {
		f.t.Fatalf("requeued after %v, want %v", result.RequeueAfter, Resync)
	}
}

func (f *fixture) update(pod *corev1.Pod) {
	f.t.Helper()
	// Update answers with the stored pod, whose status only Status().Update changes.
	status := *pod.Status.DeepCopy()
	if err := f.kube.Update(context.Background(), pod); err != nil {
		f.t.Fatal(err)
	}
	pod.Status = status
	if err := f.kube.Status().Update(context.Background(), pod); err != nil {
		f.t.Fatal(err)
	}
}

func named(pod *corev1.Pod) prometheus.Labels {
	return prometheus.Labels{labelName: pod.Name, labelNamespace: pod.Namespace}
}

func seriesOf(t *testing.T, gauge *prometheus.GaugeVec, pod *corev1.Pod) int {
	t.Helper()
	n := 0
	// A partial delete on a curried copy would change the vector: count by collecting instead.
	ch := make(chan prometheus.Metric, 1000)
	gauge.Collect(ch)
	close(ch)
	for m := range ch {
		out := &dto.Metric{}
		_ = m.Write(out)
		for _, l := range out.GetLabel() {
			if l.GetName() == labelName && l.GetValue() == pod.Name {
				n++
			}
		}
	}
	return n
}

func TestPodWaitsThenStarts(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{
		karpv1.LabelNodePool: "default", corev1.LabelTopologyZone: "kr-central-2-a", corev1.LabelArchStable: "amd64",
		karpv1.LabelCapacityType: "on-demand", corev1.LabelInstanceTypeStable: "m2a.large",
	}}}
	pod := newPod("waits")
	f := newFixture(t, pod, node)
	startups, startupSum := summaryCount(t)
	bounds, boundSum := histogramOf(t, boundDuration.WithLabelValues("false"))
	provisioned, provisionedSum := histogramOf(t, provisioningStartupDuration)

	// Provisioning sees it at +2s and finds it a place at +5s.
	f.clock.SetTime(created.Add(2 * time.Second))
	f.times.Acknowledge([]*corev1.Pod{pod})
	f.clock.SetTime(created.Add(4 * time.Second))
	f.reconcile(pod)
	if got := testutil.ToFloat64(schedulingUndecidedTime.With(named(pod))); got != 2 {
		t.Errorf("undecided for %vs, want 2", got)
	}
	f.clock.SetTime(created.Add(5 * time.Second))
	f.times.Decide(pod, true)
	f.clock.SetTime(created.Add(10 * time.Second))
	f.reconcile(pod)
	if n := seriesOf(t, schedulingUndecidedTime, pod); n != 0 {
		t.Errorf("a decided pod keeps %d undecided series", n)
	}
	for _, tc := range []struct {
		name  string
		gauge prometheus.Gauge
		want  float64
	}{
		{"unstarted", unstartedTime.With(named(pod)), 10},
		{"provisioning unstarted", provisioningUnstartedTime.With(named(pod)), 5},
		{"unbound", unboundTime.WithLabelValues(pod.Name, pod.Namespace, "false"), 10},
		{"provisioning unbound", provisioningUnboundTime.WithLabelValues(pod.Name, pod.Namespace, "false"), 5},
	} {
		if got := testutil.ToFloat64(tc.gauge); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	pending := prometheus.Labels{labelName: pod.Name, labelNamespace: "default", "owner": "/apis/apps/v1/namespaces/default/replicasets/inflate-abc",
		"node": "", "scheduled": "false", "nodepool": "", "zone": "", "arch": "", "capacity_type": "", "instance_type": "", "phase": "Pending", "ready": "false", "managed": "false"}
	if got := testutil.ToFloat64(podState.With(pending)); got != 1 {
		t.Errorf("pods_state of the pending pod = %v, want 1", got)
	}

	// Bound at +20s, ready at +30s.
	bind(pod, node.Name, created.Add(20*time.Second))
	ready(pod, created.Add(30*time.Second))
	f.update(pod)
	f.clock.SetTime(created.Add(31 * time.Second))
	f.reconcile(pod)
	f.reconcile(pod) // a later reconcile counts nothing again

	if n, sum := summaryCount(t); n-startups != 1 || sum-startupSum != 30 {
		t.Errorf("startup: %d samples, %vs; want 1 of 30s", n-startups, sum-startupSum)
	}
	if n, sum := histogramOf(t, boundDuration.WithLabelValues("false")); n-bounds != 1 || sum-boundSum != 20 {
		t.Errorf("bound: %d samples, %vs; want 1 of 20s", n-bounds, sum-boundSum)
	}
	if n, sum := histogramOf(t, provisioningStartupDuration); n-provisioned != 1 || sum-provisionedSum != 25 {
		t.Errorf("provisioning startup: %d samples, %vs; want 1 of 25s", n-provisioned, sum-provisionedSum)
	}
	for name, gauge := range map[string]*prometheus.GaugeVec{"unstarted": unstartedTime, "provisioning unstarted": provisioningUnstartedTime, "unbound": unboundTime, "provisioning unbound": provisioningUnboundTime} {
		if n := seriesOf(t, gauge, pod); n != 0 {
			t.Errorf("a started pod keeps %d %s series", n, name)
		}
	}
	if n := seriesOf(t, podState, pod); n != 1 {
		t.Errorf("%d pods_state series for one pod, want its current one only", n)
	}
	running := prometheus.Labels{labelName: pod.Name, labelNamespace: "default", "owner": "/apis/apps/v1/namespaces/default/replicasets/inflate-abc",
		"node": "node-a", "scheduled": "true", "nodepool": "default", "zone": "kr-central-2-a", "arch": "amd64", "capacity_type": "on-demand",
		"instance_type": "m2a.large", "phase": "Running", "ready": "true", "managed": "true"}
	if got := testutil.ToFloat64(podState.With(running)); got != 1 {
		t.Errorf("pods_state of the running pod = %v, want 1", got)
	}
	if !f.times.Get(pod).Acknowledged.IsZero() {
		t.Error("a started pod's scheduling times are still kept")
	}

	// Gone: no series is left.
	if err := f.kube.Delete(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reconciler.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(pod)}); err != nil {
		t.Fatal(err)
	}
	if n := seriesOf(t, podState, pod); n != 0 {
		t.Errorf("a deleted pod keeps %d pods_state series", n)
	}
}

func TestPodRunningWhenFirstSeenIsNotTimed(t *testing.T) {
	pod := newPod("old")
	bind(pod, "node-b", created.Add(time.Second))
	ready(pod, created.Add(time.Hour))
	f := newFixture(t, pod)
	startups, _ := summaryCount(t)
	bounds, _ := histogramOf(t, boundDuration.WithLabelValues("false"))
	f.clock.SetTime(created.Add(2 * time.Hour))
	f.reconcile(pod)
	if n, _ := summaryCount(t); n != startups {
		t.Error("the startup of a pod that started before it was seen was counted")
	}
	if n, _ := histogramOf(t, boundDuration.WithLabelValues("false")); n != bounds {
		t.Error("the binding of a pod bound before it was seen was counted")
	}
}

func TestPodEndsPendingWithoutStarting(t *testing.T) {
	pod := newPod("fails")
	f := newFixture(t, pod)
	startups, _ := summaryCount(t)
	f.reconcile(pod)
	pod.Status.Phase = corev1.PodFailed
	f.update(pod)
	f.reconcile(pod)
	if n, _ := summaryCount(t); n != startups {
		t.Error("a pod that failed before starting was counted as started")
	}
	for name, gauge := range map[string]*prometheus.GaugeVec{"unstarted": unstartedTime, "unbound": unboundTime} {
		if n := seriesOf(t, gauge, pod); n != 0 {
			t.Errorf("a failed pod keeps %d %s series", n, name)
		}
	}
}

func TestPodRecreatedUnderTheSameName(t *testing.T) {
	first := newPod("same")
	f := newFixture(t, first)
	f.times.Acknowledge([]*corev1.Pod{first})
	f.reconcile(first)
	if err := f.kube.Delete(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	second := newPod("same")
	second.UID = "uid-second"
	second.Status.Phase = corev1.PodRunning
	if err := f.kube.Create(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	startups, _ := summaryCount(t)
	ready(second, created.Add(time.Minute))
	f.update(second)
	f.reconcile(second)
	if n, _ := summaryCount(t); n != startups {
		t.Error("the first pod's wait was counted as the second's start")
	}
	if !f.times.Get(second).Acknowledged.IsZero() {
		t.Error("the second pod has the first one's scheduling times")
	}
}
