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
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// t0 is when every test object was created; steps say their time as an offset from it.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const (
	unknown = metav1.ConditionUnknown
	isTrue  = metav1.ConditionTrue
	isFalse = metav1.ConditionFalse
)

// step reconciles the object as it is at a time, then checks the metrics.
type step struct {
	at time.Duration
	// object is the object as the cache holds it; nil once it is gone.
	object client.Object
	// want are series and their values (a histogram's as name_count and name_sum).
	want map[string]float64
	// absent are series that must not be there.
	absent []string
	// series is how many series a family holds.
	series map[prometheus.Collector]int
}

func TestReconcile(t *testing.T) {
	claimLabels := labels("karpenter_kakaocloud_com_kcnodeclass", "standard", "karpenter_sh_nodepool", "default")
	claimGeneric := labels("group", "karpenter.sh", "kind", "NodeClaim")
	claim := labels("namespace", "", "name", "claim")
	poolGeneric := labels("group", "karpenter.sh", "kind", "NodePool")
	pool := labels("namespace", "", "name", "pool")
	node := labels("namespace", "", "name", "node")
	nodeBefore := labels("karpenter_kakaocloud_com_kcnodeclass", "standard", "karpenter_sh_nodepool", "default", "karpenter_sh_initialized", "")
	nodeAfter := labels("karpenter_kakaocloud_com_kcnodeclass", "standard", "karpenter_sh_nodepool", "default", "karpenter_sh_initialized", "true")
	nodeClass := labels("namespace", "", "name", "standard")

	for _, tc := range []struct {
		name          string
		newReconciler func(client.Client, clock.PassiveClock) reconcile.Reconciler
		request       string
		steps         []step
	}{{
		name: "a NodeClaim from creation to gone",
		newReconciler: func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler {
			return NewNodeClaimReconciler(c, clk)
		},
		request: "claim",
		steps: []step{{
			// Not reconciled by the lifecycle yet: the expected conditions are Unknown since
			// creation, and none of them has changed.
			at:     5 * time.Second,
			object: testNodeClaim("a", nil),
			want: map[string]float64{
				key("operator_nodeclaim_status_condition_count", claim, claimLabels, cond("Launched", unknown, "AwaitingReconciliation")):                  1,
				key("operator_nodeclaim_status_condition_current_status_seconds", claim, claimLabels, cond("Launched", unknown, "AwaitingReconciliation")): 5,
				key("operator_status_condition_count", claim, claimGeneric, cond("Ready", unknown, "AwaitingReconciliation")):                              1,
			},
			series: map[prometheus.Collector]int{
				nodeClaimFamilies.count: 4, nodeClaimFamilies.currentStatus: 4, genericFamilies.count: 4,
				nodeClaimFamilies.transitions: 0, nodeClaimFamilies.transitionSeconds: 0, genericFamilies.transitions: 0,
			},
		}, {
			at: 30 * time.Second,
			object: testNodeClaim("a", nil,
				metaCondition("Launched", isTrue, "Launched", 30*time.Second),
				metaCondition("Registered", unknown, "NodeNotFound", 30*time.Second),
				metaCondition("Ready", unknown, "NodeNotFound", 30*time.Second)),
			want: map[string]float64{
				key("operator_nodeclaim_status_condition_transitions_total", claimLabels, cond("Launched", isTrue, "Launched")):                               1,
				key("operator_nodeclaim_status_condition_transition_seconds_count", claimLabels, change("Launched", unknown, isTrue)):                         1,
				key("operator_nodeclaim_status_condition_transition_seconds_sum", claimLabels, change("Launched", unknown, isTrue)):                           30,
				key("operator_status_condition_transitions_total", claimGeneric, cond("Launched", isTrue, "Launched")):                                        1,
				key("operator_status_condition_transition_seconds_sum", claimGeneric, change("Launched", unknown, isTrue)):                                    30,
				key("operator_nodeclaim_status_condition_count", claim, claimLabels, cond("Registered", unknown, "NodeNotFound")):                             1,
				key("operator_nodeclaim_status_condition_current_status_seconds", claim, claimLabels, cond("Initialized", unknown, "AwaitingReconciliation")): 30,
			},
			absent: []string{
				key("operator_nodeclaim_status_condition_count", claim, claimLabels, cond("Launched", unknown, "AwaitingReconciliation")),
				key("operator_nodeclaim_status_condition_count", claim, claimLabels, cond("Registered", unknown, "AwaitingReconciliation")),
				key("operator_status_condition_count", claim, claimGeneric, cond("Registered", unknown, "AwaitingReconciliation")),
			},
			series: map[prometheus.Collector]int{
				nodeClaimFamilies.count: 4, nodeClaimFamilies.currentStatus: 4, genericFamilies.count: 4,
				// A new reason is no change of status.
				nodeClaimFamilies.transitions: 1, genericFamilies.transitions: 1,
			},
		}, {
			// Registered was Unknown for 60 seconds: since the lifecycle set it, not since
			// creation.
			at: 90 * time.Second,
			object: testNodeClaim("a", nil,
				metaCondition("Launched", isTrue, "Launched", 30*time.Second),
				metaCondition("Registered", isTrue, "Registered", 90*time.Second),
				metaCondition("Ready", unknown, "NotInitialized", 30*time.Second)),
			want: map[string]float64{
				key("operator_nodeclaim_status_condition_transitions_total", claimLabels, cond("Registered", isTrue, "Registered")):         1,
				key("operator_nodeclaim_status_condition_transition_seconds_count", claimLabels, change("Registered", unknown, isTrue)):     1,
				key("operator_nodeclaim_status_condition_transition_seconds_sum", claimLabels, change("Registered", unknown, isTrue)):       60,
				key("operator_nodeclaim_status_condition_current_status_seconds", claim, claimLabels, cond("Launched", isTrue, "Launched")): 60,
			},
			series: map[prometheus.Collector]int{nodeClaimFamilies.transitions: 2, nodeClaimFamilies.count: 4},
		}, {
			// Nothing changed: nothing is counted again, the ages grow.
			at: 100 * time.Second,
			object: testNodeClaim("a", nil,
				metaCondition("Launched", isTrue, "Launched", 30*time.Second),
				metaCondition("Registered", isTrue, "Registered", 90*time.Second),
				metaCondition("Ready", unknown, "NotInitialized", 30*time.Second)),
			want: map[string]float64{
				key("operator_nodeclaim_status_condition_transitions_total", claimLabels, cond("Launched", isTrue, "Launched")):                 1,
				key("operator_nodeclaim_status_condition_transitions_total", claimLabels, cond("Registered", isTrue, "Registered")):             1,
				key("operator_nodeclaim_status_condition_transition_seconds_count", claimLabels, change("Registered", unknown, isTrue)):         1,
				key("operator_nodeclaim_status_condition_current_status_seconds", claim, claimLabels, cond("Launched", isTrue, "Launched")):     70,
				key("operator_status_condition_current_status_seconds", claim, claimGeneric, cond("Registered", isTrue, "Registered")):          10,
				key("operator_nodeclaim_status_condition_current_status_seconds", claim, claimLabels, cond("Ready", unknown, "NotInitialized")): 70,
			},
			series: map[prometheus.Collector]int{nodeClaimFamilies.transitions: 2, nodeClaimFamilies.terminationCurrent: 0},
		}, {
			at: 110 * time.Second,
			object: testNodeClaim("a", ptr(100*time.Second),
				metaCondition("Launched", isTrue, "Launched", 30*time.Second),
				metaCondition("Registered", isTrue, "Registered", 90*time.Second),
				metaCondition("Ready", unknown, "NotInitialized", 30*time.Second)),
			want: map[string]float64{
				key("operator_nodeclaim_termination_current_time_seconds", claim, claimLabels): 10,
				key("operator_termination_current_time_seconds", claim, claimGeneric):          10,
			},
			series: map[prometheus.Collector]int{nodeClaimFamilies.terminationCurrent: 1, nodeClaimFamilies.terminationDuration: 0},
		}, {
			// Gone: its series go, its termination took 30 seconds, its changes stay counted.
			at: 130 * time.Second,
			want: map[string]float64{
				key("operator_nodeclaim_termination_duration_seconds_count", claimLabels):                                       1,
				key("operator_nodeclaim_termination_duration_seconds_sum", claimLabels):                                         30,
				key("operator_termination_duration_seconds_sum", claimGeneric):                                                  30,
				key("operator_nodeclaim_status_condition_transitions_total", claimLabels, cond("Launched", isTrue, "Launched")): 1,
			},
			series: map[prometheus.Collector]int{
				nodeClaimFamilies.count: 0, nodeClaimFamilies.currentStatus: 0, nodeClaimFamilies.terminationCurrent: 0,
				genericFamilies.count: 0, genericFamilies.currentStatus: 0, genericFamilies.terminationCurrent: 0,
				nodeClaimFamilies.transitions: 2,
			},
		}},
	}, {
		name:          "a node whose labels change",
		newReconciler: func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler { return NewNodeReconciler(c, clk) },
		request:       "node",
		steps: []step{{
			at: 10 * time.Second,
			object: testNode(nil, nil,
				corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady", LastTransitionTime: metav1.NewTime(t0)},
				corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", LastTransitionTime: metav1.NewTime(t0)}),
			want: map[string]float64{
				key("operator_node_status_condition_count", node, nodeBefore, cond("Ready", isFalse, "KubeletNotReady")):                  1,
				key("operator_node_status_condition_current_status_seconds", node, nodeBefore, cond("Ready", isFalse, "KubeletNotReady")): 10,
				// First seen False: a change from Unknown, with no time to record.
				key("operator_node_status_condition_transitions_total", nodeBefore, cond("Ready", isFalse, "KubeletNotReady")): 1,
			},
			// A node expects no condition, and upstream has no generic series for nodes.
			series: map[prometheus.Collector]int{
				nodeFamilies.count: 2, nodeFamilies.transitions: 2, nodeFamilies.transitionSeconds: 0,
				genericFamilies.count: 0, genericFamilies.transitions: 0,
			},
		}, {
			at: 45 * time.Second,
			object: testNode(nil, map[string]string{karpv1.LabelInitialized: "true"},
				corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastTransitionTime: metav1.NewTime(t0.Add(40 * time.Second))},
				corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", LastTransitionTime: metav1.NewTime(t0)}),
			want: map[string]float64{
				key("operator_node_status_condition_count", node, nodeAfter, cond("Ready", isTrue, "KubeletReady")):                         1,
				key("operator_node_status_condition_count", node, nodeAfter, cond("MemoryPressure", isFalse, "KubeletHasSufficientMemory")): 1,
				key("operator_node_status_condition_current_status_seconds", node, nodeAfter, cond("Ready", isTrue, "KubeletReady")):        5,
				key("operator_node_status_condition_transition_seconds_sum", nodeAfter, change("Ready", isFalse, isTrue)):                   40,
				key("operator_node_status_condition_transitions_total", nodeAfter, cond("Ready", isTrue, "KubeletReady")):                   1,
			},
			// The series under the old labels go, the unchanged condition's too.
			absent: []string{
				key("operator_node_status_condition_count", node, nodeBefore, cond("Ready", isFalse, "KubeletNotReady")),
				key("operator_node_status_condition_count", node, nodeBefore, cond("MemoryPressure", isFalse, "KubeletHasSufficientMemory")),
				key("operator_node_status_condition_current_status_seconds", node, nodeBefore, cond("MemoryPressure", isFalse, "KubeletHasSufficientMemory")),
			},
			series: map[prometheus.Collector]int{nodeFamilies.count: 2, nodeFamilies.currentStatus: 2, nodeFamilies.transitions: 3},
		}, {
			// Gone without having been seen terminating: no termination to record.
			at:     60 * time.Second,
			series: map[prometheus.Collector]int{nodeFamilies.count: 0, nodeFamilies.currentStatus: 0, nodeFamilies.terminationDuration: 0},
		}},
	}, {
		name: "a NodePool deleted and created again under its name",
		newReconciler: func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler {
			return NewNodePoolReconciler(c, clk)
		},
		request: "pool",
		steps: []step{{
			at: 20 * time.Second,
			object: testNodePool("old", ptr(15*time.Second),
				metaCondition("Ready", isFalse, "NodeClassNotReady", 0),
				metaCondition("ValidationSucceeded", isTrue, "Succeeded", 0),
				metaCondition("NodeClassReady", isFalse, "NodeClassNotReady", 0)),
			want: map[string]float64{
				key("operator_nodepool_status_condition_count", pool, cond("Ready", isFalse, "NodeClassNotReady")):     1,
				key("operator_status_condition_count", pool, poolGeneric, cond("Ready", isFalse, "NodeClassNotReady")): 1,
				key("operator_nodepool_termination_current_time_seconds", pool):                                        5,
				key("operator_termination_current_time_seconds", pool, poolGeneric):                                    5,
			},
			series: map[prometheus.Collector]int{nodePoolFamilies.count: 3, genericFamilies.count: 3, nodePoolFamilies.transitions: 3},
		}, {
			// The old NodePool went between two reconciles; the new one is not a change of the
			// old one's conditions.
			at: 50 * time.Second,
			object: testNodePool("new", nil,
				metaCondition("Ready", isTrue, "Ready", 45*time.Second),
				metaCondition("ValidationSucceeded", isTrue, "Succeeded", 45*time.Second),
				metaCondition("NodeClassReady", isTrue, "Ready", 45*time.Second)),
			want: map[string]float64{
				key("operator_nodepool_termination_duration_seconds_count"):                                 1,
				key("operator_nodepool_termination_duration_seconds_sum"):                                   35,
				key("operator_termination_duration_seconds_sum", poolGeneric):                               35,
				key("operator_nodepool_status_condition_count", pool, cond("Ready", isTrue, "Ready")):       1,
				key("operator_nodepool_status_condition_transitions_total", cond("Ready", isTrue, "Ready")): 1,
			},
			absent: []string{key("operator_nodepool_status_condition_count", pool, cond("Ready", isFalse, "NodeClassNotReady"))},
			series: map[prometheus.Collector]int{
				nodePoolFamilies.count: 3, genericFamilies.count: 3, nodePoolFamilies.terminationCurrent: 0,
				genericFamilies.terminationCurrent: 0, nodePoolFamilies.transitionSeconds: 0,
			},
		}},
	}, {
		name: "a KCNodeClass",
		newReconciler: func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler {
			return NewNodeClassReconciler(c, clk)
		},
		request: "standard",
		steps: []step{{
			at:     time.Second,
			object: testNodeClass(nil, metaCondition("Ready", unknown, "AwaitingReconciliation", time.Second)),
			want: map[string]float64{
				key("operator_kcnodeclass_status_condition_count", nodeClass, cond("Ready", unknown, "AwaitingReconciliation")):        1,
				key("operator_kcnodeclass_status_condition_count", nodeClass, cond("SubnetsReady", unknown, "AwaitingReconciliation")): 1,
			},
			// Ready and the four it depends on; no generic series.
			series: map[prometheus.Collector]int{nodeClassFamilies.count: 5, genericFamilies.count: 0},
		}, {
			at: 61 * time.Second,
			object: testNodeClass(nil,
				metaCondition("Ready", isFalse, "SubnetsNotFound", 60*time.Second),
				metaCondition("SubnetsReady", isFalse, "SubnetsNotFound", 60*time.Second)),
			want: map[string]float64{
				key("operator_kcnodeclass_status_condition_transition_seconds_sum", change("Ready", unknown, isFalse)):           59,
				key("operator_kcnodeclass_status_condition_transition_seconds_sum", change("SubnetsReady", unknown, isFalse)):    60,
				key("operator_kcnodeclass_status_condition_transitions_total", cond("SubnetsReady", isFalse, "SubnetsNotFound")): 1,
			},
			series: map[prometheus.Collector]int{nodeClassFamilies.count: 5, nodeClassFamilies.transitions: 2, genericFamilies.transitions: 0},
		}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			resetFamilies()
			clk := clocktesting.NewFakeClock(t0)
			cache := &swappableClient{}
			r := tc.newReconciler(cache, clk)
			for i, s := range tc.steps {
				clk.SetTime(t0.Add(s.at))
				builder := fake.NewClientBuilder().WithScheme(testenv.Scheme())
				if s.object != nil {
					builder = builder.WithObjects(s.object)
				}
				cache.Client = builder.Build()
				result, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: tc.request}})
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if wantRequeue := s.object != nil; (result.RequeueAfter == refreshPeriod) != wantRequeue {
					t.Errorf("step %d: requeued after %v, want a refresh %v", i, result.RequeueAfter, wantRequeue)
				}
				check(t, i, s)
			}
		})
	}
}

// TestFamilies checks the names, types, label names and buckets of every family against
// operatorpkg's, from the series of an object of each kind that changes a condition while
// terminating, then goes.
func TestFamilies(t *testing.T) {
	resetFamilies()
	clk := clocktesting.NewFakeClock(t0.Add(time.Minute))
	deleting := ptr(0)
	ready := func(s metav1.ConditionStatus, since time.Duration) metav1.Condition {
		return metaCondition("Ready", s, "Test", since)
	}
	nodeReady := func(s corev1.ConditionStatus, since time.Duration) corev1.NodeCondition {
		return corev1.NodeCondition{Type: corev1.NodeReady, Status: s, Reason: "Test", LastTransitionTime: metav1.NewTime(t0.Add(since))}
	}
	seen := map[string]family{}
	for _, tc := range []struct {
		newReconciler func(client.Client, clock.PassiveClock) reconcile.Reconciler
		name          string
		before, after client.Object
	}{
		{func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler {
			return NewNodeClaimReconciler(c, clk)
		}, "claim",
			testNodeClaim("a", deleting, ready(isFalse, 0)), testNodeClaim("a", deleting, ready(isTrue, time.Second))},
		{func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler {
			return NewNodePoolReconciler(c, clk)
		}, "pool",
			testNodePool("a", deleting, ready(isFalse, 0)), testNodePool("a", deleting, ready(isTrue, time.Second))},
		{func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler { return NewNodeReconciler(c, clk) }, "node",
			testNode(deleting, nil, nodeReady(corev1.ConditionFalse, 0)), testNode(deleting, nil, nodeReady(corev1.ConditionTrue, time.Second))},
		{func(c client.Client, clk clock.PassiveClock) reconcile.Reconciler {
			return NewNodeClassReconciler(c, clk)
		}, "standard",
			testNodeClass(deleting, ready(isFalse, 0)), testNodeClass(deleting, ready(isTrue, time.Second))},
	} {
		cache := &swappableClient{}
		r := tc.newReconciler(cache, clk)
		for _, object := range []client.Object{tc.before, tc.after, nil} {
			builder := fake.NewClientBuilder().WithScheme(testenv.Scheme())
			if object != nil {
				builder = builder.WithObjects(object)
			}
			cache.Client = builder.Build()
			if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: tc.name}}); err != nil {
				t.Fatal(err)
			}
			maps.Copy(seen, gatherFamilies(t))
		}
	}

	claimLabels := []string{"karpenter_kakaocloud_com_kcnodeclass", "karpenter_sh_nodepool"}
	nodeLabels := []string{"karpenter_kakaocloud_com_kcnodeclass", "karpenter_sh_initialized", "karpenter_sh_nodepool"}
	generic := []string{"group", "kind"}
	upstreamBuckets := []float64{0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}
	want := map[string]family{}
	for _, k := range []struct {
		prefix  string
		extra   []string
		buckets []float64
	}{
		{"operator_nodeclaim_", claimLabels, upstreamBuckets},
		{"operator_nodepool_", nil, upstreamBuckets},
		{"operator_node_", nodeLabels, upstreamBuckets},
		{"operator_kcnodeclass_", nil, prometheus.DefBuckets},
		{"operator_", generic, prometheus.DefBuckets},
	} {
		with := func(l ...string) []string { return sorted(append(l, k.extra...)) }
		want[k.prefix+"status_condition_transitions_total"] = family{dto.MetricType_COUNTER, with("type", "status", "reason"), nil}
		want[k.prefix+"status_condition_transition_seconds"] = family{dto.MetricType_HISTOGRAM, with("type", "status", "to_status"), k.buckets}
		want[k.prefix+"status_condition_current_status_seconds"] = family{dto.MetricType_GAUGE, with("namespace", "name", "type", "status", "reason"), nil}
		want[k.prefix+"status_condition_count"] = family{dto.MetricType_GAUGE, with("namespace", "name", "type", "status", "reason"), nil}
		want[k.prefix+"termination_current_time_seconds"] = family{dto.MetricType_GAUGE, with("namespace", "name"), nil}
		want[k.prefix+"termination_duration_seconds"] = family{dto.MetricType_HISTOGRAM, with(), k.buckets}
	}
	for name, w := range want {
		got, ok := seen[name]
		if !ok {
			t.Errorf("%s is not served", name)
			continue
		}
		if got.kind != w.kind || !slices.Equal(got.labels, w.labels) || !slices.Equal(got.buckets, w.buckets) {
			t.Errorf("%s is %v %v %v, want %v %v %v", name, got.kind, got.labels, got.buckets, w.kind, w.labels, w.buckets)
		}
	}
	for name := range seen {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is served, and is none of operatorpkg's", name)
		}
	}
}

// check compares the metrics with what the step wants.
func check(t *testing.T, i int, s step) {
	t.Helper()
	got := gather(t)
	for name, value := range s.want {
		if v, ok := got[name]; !ok {
			t.Errorf("step %d: no series %s; have:\n%s", i, name, strings.Join(slices.Sorted(maps.Keys(got)), "\n"))
		} else if v != value {
			t.Errorf("step %d: %s is %v, want %v", i, name, v, value)
		}
	}
	for _, name := range s.absent {
		if _, ok := got[name]; ok {
			t.Errorf("step %d: series %s is still there", i, name)
		}
	}
	for collector, n := range s.series {
		if got := testutil.CollectAndCount(collector); got != n {
			t.Errorf("step %d: %d series in %s, want %d", i, got, familyName(collector), n)
		}
	}
}

// gather reads every operator_ series of the registry the manager serves, keyed as key spells
// them.
func gather(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "operator_") {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, pair := range m.GetLabel() {
				l[pair.GetName()] = pair.GetValue()
			}
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM:
				out[key(f.GetName()+"_count", l)] = float64(m.GetHistogram().GetSampleCount())
				out[key(f.GetName()+"_sum", l)] = m.GetHistogram().GetSampleSum()
			case dto.MetricType_COUNTER:
				out[key(f.GetName(), l)] = m.GetCounter().GetValue()
			default:
				out[key(f.GetName(), l)] = m.GetGauge().GetValue()
			}
		}
	}
	return out
}

// family is what TestFamilies checks of a metric family.
type family struct {
	kind    dto.MetricType
	labels  []string
	buckets []float64
}

func gatherFamilies(t *testing.T) map[string]family {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]family{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "operator_") || len(f.GetMetric()) == 0 {
			continue
		}
		m := f.GetMetric()[0]
		got := family{kind: f.GetType(), labels: []string{}}
		for _, pair := range m.GetLabel() {
			got.labels = append(got.labels, pair.GetName())
		}
		got.labels = sorted(got.labels)
		for _, b := range m.GetHistogram().GetBucket() {
			got.buckets = append(got.buckets, b.GetUpperBound())
		}
		out[f.GetName()] = got
	}
	return out
}

// key spells a series: its family's name, then its labels sorted by name.
func key(name string, labelSets ...map[string]string) string {
	all := map[string]string{}
	for _, l := range labelSets {
		maps.Copy(all, l)
	}
	pairs := make([]string, 0, len(all))
	for _, k := range slices.Sorted(maps.Keys(all)) {
		pairs = append(pairs, k+"="+all[k])
	}
	return name + "{" + strings.Join(pairs, ",") + "}"
}

func labels(pairs ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i]] = pairs[i+1]
	}
	return out
}

// cond labels a count, current_status_seconds or transitions_total series; on the last, the
// status and reason are those changed to.
func cond(t string, s metav1.ConditionStatus, reason string) map[string]string {
	return labels("type", t, "status", string(s), "reason", reason)
}

// change labels a transition_seconds series.
func change(t string, from, to metav1.ConditionStatus) map[string]string {
	return labels("type", t, "status", string(from), "to_status", string(to))
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

func familyName(c prometheus.Collector) string {
	ch := make(chan *prometheus.Desc, 1)
	c.Describe(ch)
	return (<-ch).String()
}

// resetFamilies drops every series, so that each case starts from none.
func resetFamilies() {
	for _, f := range []*families{genericFamilies, nodeClaimFamilies, nodePoolFamilies, nodeFamilies, nodeClassFamilies} {
		f.transitions.Reset()
		f.transitionSeconds.Reset()
		f.currentStatus.Reset()
		f.count.Reset()
		f.terminationCurrent.Reset()
		f.terminationDuration.Reset()
	}
}

// swappableClient reads from the fake client of the current step, while the reconciler keeps
// its memory across steps.
type swappableClient struct{ client.Client }

func ptr(since time.Duration) *metav1.Time {
	at := metav1.NewTime(t0.Add(since))
	return &at
}

func metaCondition(t string, s metav1.ConditionStatus, reason string, since time.Duration) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: "test", LastTransitionTime: metav1.NewTime(t0.Add(since))}
}

// objectMeta is a test object's metadata; a deleting object keeps a finalizer, as the fake
// client wants of it.
func objectMeta(name, uid string, deleting *metav1.Time, objectLabels map[string]string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{Name: name, UID: types.UID(uid), CreationTimestamp: metav1.NewTime(t0), Labels: objectLabels, DeletionTimestamp: deleting}
	if deleting != nil {
		meta.Finalizers = []string{karpv1.TerminationFinalizer}
	}
	return meta
}

func testNodeClaim(uid string, deleting *metav1.Time, conditions ...metav1.Condition) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: objectMeta("claim", uid, deleting, map[string]string{karpv1.LabelNodePool: "default", kcv1.LabelNodeClass: "standard"}),
		Status:     karpv1.NodeClaimStatus{Conditions: conditions},
	}
}

func testNodePool(uid string, deleting *metav1.Time, conditions ...metav1.Condition) *karpv1.NodePool {
	return &karpv1.NodePool{ObjectMeta: objectMeta("pool", uid, deleting, nil), Status: karpv1.NodePoolStatus{Conditions: conditions}}
}

func testNode(deleting *metav1.Time, extraLabels map[string]string, conditions ...corev1.NodeCondition) *corev1.Node {
	nodeLabels := map[string]string{karpv1.LabelNodePool: "default", kcv1.LabelNodeClass: "standard"}
	maps.Copy(nodeLabels, extraLabels)
	return &corev1.Node{ObjectMeta: objectMeta("node", "node", deleting, nodeLabels), Status: corev1.NodeStatus{Conditions: conditions}}
}

func testNodeClass(deleting *metav1.Time, conditions ...metav1.Condition) *kcv1.KCNodeClass {
	return &kcv1.KCNodeClass{ObjectMeta: objectMeta("standard", "standard", deleting, nil), Status: kcv1.KCNodeClassStatus{Conditions: conditions}}
}
