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

func TestKeepVerdicts(t *testing.T) {
	// Three drifted nodes of a pool whose budget allows one at a time; a's pod holds it.
	c := newCluster(testPool("default", karpv1.Budget{Nodes: "1"}))
	a := c.node("a", "default", isDrifted)
	c.node("b", "default", isDrifted)
	c.node("c", "default", isDrifted)
	c.pods(testPod("job", a, func(p *corev1.Pod) {
		metav1.SetMetaDataAnnotation(&p.ObjectMeta, karpv1.DoNotDisruptAnnotationKey, "true")
	}))
	var objects []client.Object
	for _, nodeClaim := range c.in.NodeClaims {
		objects = append(objects, nodeClaim.DeepCopy())
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).WithStatusSubresource(&karpv1.NodeClaim{}).Build()
	controller := &Controller{Client: kube, APIReader: kube, Recorder: events.NewFakeRecorder(100), Clock: clocktesting.NewFakeClock(testNow)}
	controller.init()
	ctx := context.Background()
	// The snapshot reads the API server's NodeClaims, resource versions and all, as the cache
	// has them.
	refreshed := func() *engine.Snapshot {
		for i, nodeClaim := range c.in.NodeClaims {
			if err := kube.Get(ctx, client.ObjectKeyFromObject(nodeClaim), c.in.NodeClaims[i]); err != nil {
				t.Fatal(err)
			}
		}
		return engine.NewSnapshot(c.in)
	}
	snap := refreshed()
	d := snap.Decide(engine.Options{})
	if d.Command == nil || len(d.Command.Candidates) != 1 {
		t.Fatalf("want one drift command, got %+v", d.Command)
	}
	taken := d.Command.Candidates[0].Name()
	controller.keepVerdicts(ctx, snap, d, false)
	if v := verdictOf(t, kube, "a"); v == nil || v.Reason != engine.ReasonDisruptionBlocked || !strings.Contains(v.Message, "pod default/job is annotated") {
		t.Errorf("a's verdict %+v, want its do-not-disrupt pod named", v)
	}
	if v := verdictOf(t, kube, taken); v != nil {
		t.Errorf("the command's candidate %s has the verdict %+v", taken, v)
	}
	other := map[string]string{"b": "c", "c": "b"}[taken]
	if v := verdictOf(t, kube, other); v == nil || v.Reason != engine.ReasonBudgetExhausted || !strings.Contains(v.Message, "went to candidates before this one") {
		t.Errorf("%s's verdict %+v, want the budget that has no room left for it", other, v)
	}

	// The same pass again writes nothing: the conditions are as they were.
	before := verdictOf(t, kube, "a").LastTransitionTime
	snap = refreshed()
	controller.keepVerdicts(ctx, snap, snap.Decide(engine.Options{}), false)
	if after := verdictOf(t, kube, "a").LastTransitionTime; !after.Equal(&before) {
		t.Errorf("a's verdict was rewritten: %v, then %v", before, after)
	}

	// A pass that tried every method and held nothing clears them; one that did not try
	// every method leaves them.
	quiet := &engine.Decision{}
	controller.keepVerdicts(ctx, refreshed(), quiet, false)
	if verdictOf(t, kube, "a") == nil {
		t.Error("an incomplete pass cleared a's verdict")
	}
	controller.keepVerdicts(ctx, refreshed(), quiet, true)
	for _, name := range []string{"a", "b", "c"} {
		if v := verdictOf(t, kube, name); v != nil {
			t.Errorf("%s keeps the verdict %+v after a complete pass held nothing", name, v)
		}
	}
}
