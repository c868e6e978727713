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

package disruption

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// verdictOf is the NodeClaim's DisruptionBlocked condition as the API server has it.
func verdictOf(t *testing.T, kube client.Client, name string) *metav1.Condition {
	t.Helper()
	nodeClaim := &karpv1.NodeClaim{}
	if err := kube.Get(context.Background(), client.ObjectKey{Name: name}, nodeClaim); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(nodeClaim.Status.Conditions, engine.ConditionDisruptionBlocked)
}

// TestKeepVerdicts: the decision's verdicts written to the NodeClaims, with the loop's time
// (the verdicts themselves are the decision's, tested in internal/disruption).
func TestKeepVerdicts(t *testing.T) {
	c := newCluster(testPool("default"))
	c.node("a", "default")
	c.node("b", "default", func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions, metav1.Condition{Type: engine.ConditionDisruptionBlocked,
			Status: metav1.ConditionTrue, Reason: engine.ReasonUnconsolidatable, Message: "no cheaper replacement", LastTransitionTime: metav1.NewTime(testNow)})
	})
	c.node("c", "default")
	var objects []client.Object
	for _, nodeClaim := range c.in.NodeClaims {
		objects = append(objects, nodeClaim.DeepCopy())
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).WithStatusSubresource(&karpv1.NodeClaim{}).Build()
	clock := clocktesting.NewFakeClock(testNow.Add(time.Minute))
	controller := &Controller{Client: kube, APIReader: kube, Recorder: events.NewFakeRecorder(100), Clock: clock}
	controller.init()
	// The copies the decision read, as the cache has them.
	for _, nodeClaim := range c.in.NodeClaims {
		if err := kube.Get(t.Context(), client.ObjectKeyFromObject(nodeClaim), nodeClaim); err != nil {
			t.Fatal(err)
		}
	}

	controller.keepVerdicts(t.Context(), []engine.Verdict{
		{NodeClaim: c.in.NodeClaims[0], Held: true, Reason: engine.ReasonDisruptionBlocked, Message: "pod default/job is annotated karpenter.sh/do-not-disrupt"},
		{NodeClaim: c.in.NodeClaims[1]},
	})
	if v := verdictOf(t, kube, "a"); v == nil || v.Status != metav1.ConditionTrue || v.Reason != engine.ReasonDisruptionBlocked ||
		!strings.Contains(v.Message, "pod default/job") || !v.LastTransitionTime.Time.Equal(clock.Now()) {
		t.Errorf("a's verdict %+v, want the pod named, set now", v)
	}
	if v := verdictOf(t, kube, "b"); v != nil {
		t.Errorf("b keeps the verdict %+v", v)
	}
	if v := verdictOf(t, kube, "c"); v != nil {
		t.Errorf("c has the verdict %+v, which nothing set", v)
	}
}
