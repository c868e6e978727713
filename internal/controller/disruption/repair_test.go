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
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// notReadySince is a node that has been NotReady since the time given, as the node lifecycle
// controller marks it.
func notReadySince(since time.Time) nodeOpt {
	return func(_ *karpv1.NodeClaim, n *corev1.Node) {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, LastTransitionTime: metav1.NewTime(since)}}
	}
}

// unhealthy records the node as its repair policy finds it: NotReady for lasted, past a
// 30-minute toleration, its drain bounded to nothing.
func (c *cluster) unhealthy(name string, lasted time.Duration) {
	if c.in.Repair == nil {
		c.in.Repair = &engine.RepairInput{Unhealthy: map[string]repair.Finding{}, Held: map[string]string{}}
	}
	bound := new(time.Duration(0))
	c.in.Repair.Unhealthy[name] = repair.Finding{
		Policy: cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown,
			TolerationDuration: 30 * time.Minute, TerminationGracePeriod: bound, Priority: 50},
		Condition: corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			LastTransitionTime: metav1.NewTime(testNow.Add(-lasted))},
		Lasted: lasted, TerminationGracePeriod: bound,
	}
}

// repairPolicies is a cloud provider that only answers RepairPolicies, with the policy the
// findings of unhealthy below meet.
type repairPolicies struct{ cloudprovider.CloudProvider }

func (repairPolicies) RepairPolicies() []cloudprovider.RepairPolicy {
	return []cloudprovider.RepairPolicy{{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown, TolerationDuration: 30 * time.Minute}}
}

// A repair decided on a cache that showed one of five nodes unhealthy is held when the API
// server shows a second one by the time the command would start: a fault over several nodes
// lands one write at a time, and the breaker (20 %, one node of five) must hold it whole.
func TestRepairBreakerCountedAtStart(t *testing.T) {
	sick := notReadySince(testNow.Add(-40 * time.Minute))
	c := newCluster(testPool("default", karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnhealthy}}))
	c.node("n0", "default", sick)
	for _, name := range []string{"n1", "n2", "n3", "n4"} {
		c.node(name, "default")
	}
	c.unhealthy("n0", 40*time.Minute)
	cmd := c.command(t, engine.MethodRepair, "n0")

	apiServer := func(unhealthy ...string) client.Reader {
		builder := fake.NewClientBuilder().WithScheme(testenv.Scheme())
		for _, node := range c.in.Nodes {
			node = node.DeepCopy()
			if slices.Contains(unhealthy, node.Name) {
				sick(nil, node)
			}
			builder.WithObjects(node)
		}
		return builder.Build()
	}
	for _, tc := range []struct {
		name      string
		unhealthy []string
		held      bool
	}{
		{"as decided", []string{"node-n0"}, false},
		{"a second node turned unhealthy", []string{"node-n0", "node-n1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recorder := events.NewFakeRecorder(10)
			controller := &Controller{APIReader: apiServer(tc.unhealthy...), CloudProvider: repairPolicies{}, Recorder: recorder}
			controller.init()
			held, err := controller.repairHeldNow(t.Context(), cmd)
			if err != nil || held != tc.held {
				t.Fatalf("held %t (%v), want %t", held, err, tc.held)
			}
			if !tc.held {
				return
			}
			for range 2 { // the node and its NodeClaim
				if event := <-recorder.Events; !strings.Contains(event, repair.ReasonNodeRepairBlocked) || !strings.Contains(event, "2 of the 5 nodes") {
					t.Errorf("event %q, want %s saying 2 of the 5 nodes are unhealthy", event, repair.ReasonNodeRepairBlocked)
				}
			}
		})
	}
}
