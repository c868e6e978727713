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
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics/metricstest"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// BenchmarkStatusMetrics500 reports the status condition series of 500 NodeClaims and their 500
// nodes, each with the conditions a running one has, and the live heap those series hold after a
// collection (retained-B). The benchmark checks the count: a count and an age series for each
// condition of each object, in its kind's families and, for NodeClaims, the generic ones.
func BenchmarkStatusMetrics500(b *testing.B) {
	const objects = 500
	claimConditions := []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized, karpv1.ConditionTypeConsolidatable, karpv1.ConditionTypeReady}
	nodeConditions := []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure}
	var all []client.Object
	for i := range objects {
		nodeClaim := testNodeClaim(fmt.Sprintf("uid-%d", i), nil)
		nodeClaim.Name = fmt.Sprintf("default-%05d", i)
		for _, conditionType := range claimConditions {
			nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions, metaCondition(conditionType, isTrue, conditionType, time.Second))
		}
		node := testNode(nil, map[string]string{karpv1.LabelInitialized: "true"})
		node.Name, node.UID = nodeClaim.Name, types.UID("node-"+nodeClaim.Name)
		for _, conditionType := range nodeConditions {
			status := corev1.ConditionFalse
			if conditionType == corev1.NodeReady {
				status = corev1.ConditionTrue
			}
			node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: conditionType, Status: status, Reason: string(conditionType), LastTransitionTime: metav1.NewTime(t0)})
		}
		all = append(all, nodeClaim, node)
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(all...).Build()
	clk := clocktesting.NewFakeClock(t0.Add(time.Minute))
	ctx := context.Background()
	var retained int64
	for b.Loop() {
		resetFamilies()
		nodeClaims, nodes := NewNodeClaimReconciler(kube, clk), NewNodeReconciler(kube, clk)
		before := metricstest.LiveHeap()
		for _, object := range all {
			var reconciler reconcile.Reconciler = nodes
			if _, ok := object.(*karpv1.NodeClaim); ok {
				reconciler = nodeClaims
			}
			if _, err := reconciler.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(object)}); err != nil {
				b.Fatal(err)
			}
		}
		// What the reconcilers remember of each object is counted too: it is theirs to keep.
		retained = metricstest.LiveHeap() - before
		runtime.KeepAlive(nodeClaims)
		runtime.KeepAlive(nodes)
	}
	series := metricstest.Series(b, func(family string) bool {
		return strings.HasSuffix(family, "status_condition_count") || strings.HasSuffix(family, "status_condition_current_status_seconds")
	})
	if want := objects * 2 * (2*len(claimConditions) + len(nodeConditions)); series != want {
		b.Fatalf("%d condition series published, want %d", series, want)
	}
	b.ReportMetric(float64(retained), "retained-B")
	b.ReportMetric(float64(series), "series")
}
