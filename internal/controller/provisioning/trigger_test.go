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

package provisioning

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// TestPodTrigger: a pod provisioning looks at starts a pass, and another every
// RetryPendingAfter while it stays so, without changing: what kept it pending (a NodePool not
// ready, limits, a failed launch) may change without the pod changing. A bound pod starts
// nothing.
func TestPodTrigger(t *testing.T) {
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Namespace: "default", UID: "uid-pending"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}}
	bound := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bound", Namespace: "default", UID: "uid-bound"}, Spec: corev1.PodSpec{NodeName: "node-a"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	clk := clocktesting.NewFakeClock(time.Now())
	batcher := NewBatcher(clk, 0, 0)
	trigger := &podTrigger{client: fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(pending, bound).Build(), batcher: batcher}
	for _, c := range []struct {
		pod     client.Object
		trigger bool
	}{{pending, true}, {pending, true}, {bound, false}, {&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: "default"}}, false}} {
		result, err := trigger.Reconcile(t.Context(), reqFor(c.pod))
		if err != nil {
			t.Fatal(err)
		}
		// The batch the pod opened closes before its retry comes round.
		clk.Step(RetryPendingAfter)
		if got, _ := batcher.due(); got != c.trigger || (result.RequeueAfter == RetryPendingAfter) != c.trigger {
			t.Errorf("pod %s: batch %v, requeued after %v; want a pass and a retry: %v", c.pod.GetName(), got, result.RequeueAfter, c.trigger)
		}
	}
}

func reqFor(o client.Object) reconcile.Request {
	return reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)}
}
