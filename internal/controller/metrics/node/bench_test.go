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
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics/metricstest"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// BenchmarkNodeMetrics500 publishes the node metrics of 500 nodes with the labels the operator
// gives its nodes and two pods each, as the perf suite's hostname spreading leaves them, and
// reports the heap the published series hold after a collection (retained-B) and how many there
// are. The benchmark checks the count: one series per node, gauge and allocatable resource, one
// lifetime per node.
func BenchmarkNodeMetrics500(b *testing.B) {
	const nodes, resourcesPerNode, gaugesPerResource = 500, 4, 6
	var objects []client.Object
	for i := range nodes {
		name := fmt.Sprintf("node-%03d", i)
		node := newNode(name, fmt.Sprintf("%s%s", kcv1.ProviderIDPrefix, name), map[string]string{
			karpv1.LabelNodePool: "default", corev1.LabelTopologyZone: fmt.Sprintf("kr-central-2-%c", 'a'+i%3),
			corev1.LabelTopologyRegion: "kr-central-2", corev1.LabelInstanceTypeStable: "m2a.xlarge",
			corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux", karpv1.LabelCapacityType: "on-demand",
			kcv1.LabelInstanceFamily: "m2a", kcv1.LabelInstanceSize: "xlarge", kcv1.LabelInstanceCPU: "4",
			kcv1.LabelInstanceMemory: "16384", kcv1.LabelInstanceGPUCount: "0", kcv1.LabelNodeClass: "default",
		})
		for _, list := range []corev1.ResourceList{node.Status.Capacity, node.Status.Allocatable} {
			list[corev1.ResourcePods] = resource.MustParse("110")
			list[corev1.ResourceEphemeralStorage] = resource.MustParse("20Gi")
		}
		objects = append(objects, node,
			newPod(name+"-a", name, resourceList("1", "1Gi"), nil), newPod(name+"-b", name, resourceList("1", "1Gi"), nil))
	}
	full := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).Build()
	empty := fake.NewClientBuilder().WithScheme(testenv.Scheme()).Build()
	clk := clocktesting.NewFakeClock(created.Add(time.Hour))
	ctx := context.Background()
	controller := &Controller{Clock: clk}
	var retained int64
	for b.Loop() {
		// The series of no node first, so that what the heap gains next is the nodes' series.
		controller.Client = empty
		if err := controller.Reconcile(ctx); err != nil {
			b.Fatal(err)
		}
		before := metricstest.LiveHeap()
		controller.Client = full
		if err := controller.Reconcile(ctx); err != nil {
			b.Fatal(err)
		}
		retained = metricstest.LiveHeap() - before
	}
	series := metricstest.Series(b, func(family string) bool { return strings.HasPrefix(family, "karpenter_nodes_") })
	if want := nodes * (resourcesPerNode*gaugesPerResource + 1); series != want {
		b.Fatalf("%d node series published, want %d", series, want)
	}
	b.ReportMetric(float64(retained), "retained-B")
	b.ReportMetric(float64(series), "series")
}
