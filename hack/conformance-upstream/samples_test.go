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

package main

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The sampler writes a sample only when the cluster changed: the same nodes and pods, listed
// in another order, are the same state; a pod bound or a node added is a new one.
func TestSampleSameState(t *testing.T) {
	now := time.Date(2026, 12, 6, 14, 8, 0, 0, time.UTC)
	node := func(name string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			nodePoolLabel: "default", corev1.LabelInstanceTypeStable: "r2a.4xlarge", corev1.LabelTopologyZone: "kr-central-2-a"}}}
	}
	pod := func(name, nodeName, cpu string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.NewTime(now.Add(-time.Minute))},
			Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")}}}}},
		}
	}
	nodes := []*corev1.Node{node("a"), node("b")}
	pods := []*corev1.Pod{pod("p1", "a", "100m"), pod("p2", "a", "300m"), pod("p3", "b", "700m"), pod("p4", "", "1")}
	first := summarizeNodes(now, nodes, pods)
	if first.Pods != 3 || first.CPU != 1.1 || first.MemoryGiB != 3 {
		t.Fatalf("summary: %d pods, %v CPU, %v GiB; want 3, 1.1, 3", first.Pods, first.CPU, first.MemoryGiB)
	}
	reversedNodes, reversedPods := slices.Clone(nodes), slices.Clone(pods)
	slices.Reverse(reversedNodes)
	slices.Reverse(reversedPods)
	if later := summarizeNodes(now.Add(time.Second), reversedNodes, reversedPods); !later.sameState(first) {
		t.Errorf("the same nodes and pods in another order, a second later: %+v; want the same state as %+v", later, first)
	}
	pods[3].Spec.NodeName = "b"
	if bound := summarizeNodes(now.Add(2*time.Second), nodes, pods); bound.sameState(first) {
		t.Error("a pod bound since: the same state; want a new one")
	}
	pods[3].Spec.NodeName = ""
	if added := summarizeNodes(now.Add(3*time.Second), append(nodes, node("c")), pods); added.sameState(first) {
		t.Error("a node added since: the same state; want a new one")
	} else if len(added.Nodes) != 1 || added.Nodes[0].Count != 3 {
		t.Errorf("three nodes of one offering: %+v; want one entry counting 3", added.Nodes)
	}
	// Nodes are counted by offering: a node replaced by one of the same offering costs the same.
	replaced := append([]*corev1.Node{node("c")}, nodes[1:]...)
	pods[0].Spec.NodeName, pods[1].Spec.NodeName = "c", "c"
	if later := summarizeNodes(now.Add(4*time.Second), replaced, pods); !later.sameState(first) {
		t.Errorf("a node replaced by one of the same offering, its pods with it: %+v; want the same state as %+v", later, first)
	}
}

// Each controller's client-go counter, as its metrics endpoint serves it: ours under
// controller-runtime's name, upstream's under its own, summed by method and code over hosts.
func TestCountRequests(t *testing.T) {
	const exposition = `# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 3145
rest_client_requests_total{code="409",host="127.0.0.1:6443",method="PATCH"} 1646
rest_client_requests_total{code="409",host="10.0.0.1:6443",method="PATCH"} 4
# HELP client_go_request_total Number of HTTP requests, partitioned by status code and method.
# TYPE client_go_request_total counter
client_go_request_total{code="201",method="POST"} 1865
# HELP karpenter_nodeclaims_created_total Number of nodeclaims created.
# TYPE karpenter_nodeclaims_created_total counter
karpenter_nodeclaims_created_total{nodepool="default"} 496
`
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"PATCH 200": 3145, "PATCH 409": 1650, "POST 201": 1865}
	if got := countRequests(families); !maps.Equal(got, want) {
		t.Errorf("countRequests = %v, want %v", got, want)
	}
}
