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

package node

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

var created = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

func resourceList(cpu, memory string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
}

func newNode(name, providerID string, labels map[string]string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(created)},
		Spec:       corev1.NodeSpec{ProviderID: providerID},
		Status:     corev1.NodeStatus{Capacity: resourceList("4", "16Gi"), Allocatable: resourceList("3920m", "14Gi")},
	}
}

func newPod(name, node string, requests, limits corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}}},
	}
}

func TestNodeAndClusterMetrics(t *testing.T) {
	managedNode := newNode("managed", "kakaocloud://a", map[string]string{karpv1.LabelNodePool: "default", corev1.LabelTopologyZone: "kr-central-2-a", corev1.LabelInstanceTypeStable: "m2a.xlarge"})
	otherNode := newNode("other", "kakaocloud://b", nil)
	daemon := newPod("daemon", "managed", resourceList("100m", "128Mi"), resourceList("200m", "256Mi"))
	daemon.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "ds", Controller: new(true)}}
	app := newPod("app", "managed", resourceList("1", "1Gi"), nil)
	done := newPod("done", "managed", resourceList("2", "2Gi"), nil)
	done.Status.Phase = corev1.PodSucceeded
	registered := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "registered"}, Status: karpv1.NodeClaimStatus{ProviderID: "kakaocloud://a"}}
	inFlight := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "in-flight"}}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(managedNode, otherNode, daemon, app, done, registered, inFlight).Build()
	clk := clocktesting.NewFakeClock(created.Add(time.Hour))
	synced := true
	controller := &Controller{Client: kube, Clock: clk, HasSynced: func(context.Context) bool { return synced }}
	ctx := context.Background()
	if err := controller.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	g := gauges()
	managedLabels := g.labelsOf(managedNode, true)
	if managedLabels["nodepool"] != "default" || managedLabels["zone"] != "kr-central-2-a" || managedLabels["instance_type"] != "m2a.xlarge" || managedLabels["managed"] != "true" {
		t.Errorf("labels of the managed node: %v", managedLabels)
	}
	for _, tc := range []struct {
		name   string
		gauge  *metrics.SetGauge
		labels prometheus.Labels
		want   float64
	}{
		{"allocatable cpu", g.allocatable, withResourceType(managedLabels, corev1.ResourceCPU), 3.92},
		{"overhead cpu", g.systemOverhead, withResourceType(managedLabels, corev1.ResourceCPU), 0.08},
		{"overhead memory", g.systemOverhead, withResourceType(managedLabels, corev1.ResourceMemory), 2 << 30},
		{"pod requests cpu (the ended pod not counted)", g.totalPodRequests, withResourceType(managedLabels, corev1.ResourceCPU), 1.1},
		{"pod limits memory", g.totalPodLimits, withResourceType(managedLabels, corev1.ResourceMemory), 256 << 20},
		{"daemon requests cpu", g.totalDaemonRequests, withResourceType(managedLabels, corev1.ResourceCPU), 0.1},
		{"daemon limits cpu", g.totalDaemonLimits, withResourceType(managedLabels, corev1.ResourceCPU), 0.2},
		{"daemon requests of a node without DaemonSet pods", g.totalDaemonRequests, withResourceType(g.labelsOf(otherNode, false), corev1.ResourceCPU), 0},
		{"lifetime", g.currentLifetime, managedLabels, 3600},
		{"cluster cpu utilization", g.clusterUtilization, prometheus.Labels{"resource_type": "cpu"}, 100 * 1.1 / 7.84},
	} {
		got, ok := g.set.Value(tc.gauge, tc.labels)
		if !ok || got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("%s = %v (published: %t), want %v", tc.name, got, ok, tc.want)
		}
	}
	for _, tc := range []struct {
		name  string
		gauge prometheus.Gauge
		want  float64
	}{
		{"node count: two nodes and one NodeClaim in flight", g.nodeCount, 3},
		{"synced", g.synced, 1},
	} {
		if got := testutil.ToFloat64(tc.gauge); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(g.set, "karpenter_nodes_total_daemon_limits"); n != 4 {
		t.Errorf("%d daemon limit series, want one per node and allocatable resource (2 x 2), zeros included", n)
	}
	if got := g.labelsOf(otherNode, false)["managed"]; got != "false" {
		t.Errorf("a node without a NodeClaim is managed=%s", got)
	}

	// The other node goes, the cache stops being synced: its series go, the unsynced time grows.
	if err := kube.Delete(ctx, otherNode); err != nil {
		t.Fatal(err)
	}
	synced = false
	if err := controller.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Step(7 * time.Second)
	if err := controller.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(g.set, "karpenter_nodes_current_lifetime_seconds"); n != 1 {
		t.Errorf("%d lifetime series after a node went, want 1", n)
	}
	if got := testutil.ToFloat64(g.synced); got != 0 {
		t.Errorf("synced = %v while the cache is not", got)
	}
	if got := testutil.ToFloat64(g.unsyncedTime); got != 7 {
		t.Errorf("unsynced for %vs, want 7", got)
	}
}
