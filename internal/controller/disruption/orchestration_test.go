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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

func TestNominatedDestinations(t *testing.T) {
	now := testNow
	o := &orchestrator{now: func() time.Time { return now }}
	cmd := &engine.Command{Placed: []simulation.Placement{
		{ExistingNode: destination.NodeNamed("node-b")}, {ExistingNode: destination.NodeClaimNamed("c")}, {NodeClaim: &simulation.NewNodeClaim{}},
	}}
	o.running = []*running{{cmd: cmd, replacements: []string{"r"}}}
	expect := func(what string, existing sets.Set[string], wantClaims []string, wantNodes []destination.Destination) {
		t.Helper()
		claims, nodes := o.nominated(existing)
		if !claims.Equal(sets.New(wantClaims...)) || !nodes.Equal(sets.New(wantNodes...)) {
			t.Errorf("%s: nominated %v and nodes %v, want %v and %v", what, sets.List(claims), nodes.UnsortedList(), wantClaims, wantNodes)
		}
	}
	headed := []destination.Destination{destination.NodeNamed("node-b"), destination.NodeClaimNamed("c")}
	expect("under way", sets.New("a"), nil, headed)

	// The command deleted its candidate a, which drains.
	o.running = nil
	o.completed = []*completed{{replacements: []string{"r"}, candidates: []string{"a"}, destinations: destinations(cmd),
		destinationsUntil: now.Add(DestinationNominationGrace), until: now.Add(NominationGrace)}}
	now = now.Add(time.Hour)
	expect("draining, however long", sets.New("a"), []string{"r"}, headed)

	// a is gone: its pods are bound; the destinations go first, the replacement later.
	now = now.Add(DestinationNominationGrace + time.Second)
	expect("gone a while", sets.New[string](), []string{"r"}, nil)
	now = now.Add(NominationGrace)
	expect("gone long", sets.New[string](), nil, nil)
}

func TestStaticReplacementCountedAtLaunch(t *testing.T) {
	// The decision read a cache; at launch the API server shows a NodeClaim the replica
	// controller has just created, which leaves limits.nodes no room.
	static := testPool("static", karpv1.Budget{Nodes: "100%"})
	static.Spec.Replicas = new(int64(2))
	static.Spec.Limits = karpv1.Limits{karpv1.ResourceNodes: resource.MustParse("3")}
	replacement, err := simulation.StaticNodeClaim(simulation.NodePoolInput{NodePool: static, InstanceTypes: testInstanceTypes()})
	if err != nil {
		t.Fatal(err)
	}
	nodeClaim := func(name string) *karpv1.NodeClaim {
		return &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.LabelNodePool: "static"}}}
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(nodeClaim("a"), nodeClaim("b"), nodeClaim("just-created")).Build()
	o := &orchestrator{client: kube, reader: kube, static: &state.StaticLaunches{Reader: kube}}

	if _, err := o.launch(t.Context(), replacement, "drifted"); err == nil || !strings.Contains(err.Error(), "limits.nodes (3) allows no more: the NodePool has 3 NodeClaims, 0 of them being deleted") {
		t.Fatalf("launch at the limit: %v, want limits.nodes refusal", err)
	}
	list := &karpv1.NodeClaimList{}
	if err := kube.List(t.Context(), list); err != nil || len(list.Items) != 3 {
		t.Fatalf("NodeClaims after a refused launch: %d (%v), want 3", len(list.Items), err)
	}

	if err := kube.Delete(t.Context(), nodeClaim("just-created")); err != nil {
		t.Fatal(err)
	}
	if _, err := o.launch(t.Context(), replacement, "drifted"); err != nil {
		t.Fatalf("launch with room: %v", err)
	}
}

func TestRollbackKeepsReplacements(t *testing.T) {
	// A drift whose replacement registered but never initialized: past the timeout the
	// command is abandoned, the candidate untainted and its DisruptionReason cleared, and the
	// replacement stays, as upstream's queue leaves it.
	c := newCluster(testPool("default", karpv1.Budget{Nodes: "100%"}))
	c.node("a", "default", isDrifted)
	cmd := c.command(t, engine.MethodDrift, "a")
	// The command under way tainted the candidate's node and set its DisruptionReason.
	stored, storedNode := c.in.NodeClaims[0].DeepCopy(), c.in.Nodes[0].DeepCopy()
	withDisruptedTaint(stored, storedNode)
	withCondition(karpv1.ConditionTypeDisruptionReason, metav1.ConditionTrue)(stored, storedNode)
	replacement := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "replacement", Labels: map[string]string{karpv1.LabelNodePool: "default"}}}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithStatusSubresource(&karpv1.NodeClaim{}).
		WithObjects(stored, storedNode, replacement).Build()
	now := testNow
	o := &orchestrator{client: kube, reader: kube, recorder: events.NewFakeRecorder(10), now: func() time.Time { return now }, timeout: DefaultReplacementTimeout}
	o.running = []*running{{id: "1", cmd: cmd, replacements: []string{"replacement"}, started: now}}

	if rolledBack := o.advance(t.Context()); rolledBack != 0 {
		t.Fatalf("rolled back before the timeout")
	}
	now = now.Add(DefaultReplacementTimeout + time.Second)
	if rolledBack := o.advance(t.Context()); rolledBack != 1 || len(o.running) != 0 {
		t.Fatalf("rolled back %d, %d running; want the command abandoned", rolledBack, len(o.running))
	}
	if err := kube.Get(t.Context(), client.ObjectKeyFromObject(replacement), &karpv1.NodeClaim{}); err != nil {
		t.Errorf("the replacement: %v, want it kept", err)
	}
	node := &corev1.Node{}
	if err := kube.Get(t.Context(), client.ObjectKey{Name: "node-a"}, node); err != nil || len(node.Spec.Taints) != 0 {
		t.Errorf("candidate's node taints %v (%v), want none", node.Spec.Taints, err)
	}
	nodeClaim := &karpv1.NodeClaim{}
	if err := kube.Get(t.Context(), client.ObjectKey{Name: "a"}, nodeClaim); err != nil || meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason) {
		t.Errorf("candidate's DisruptionReason %v (%v), want it cleared", meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason), err)
	}
}

func TestCommandsAdvanceEachOnTheirOwn(t *testing.T) {
	// Two drifts under way, started five minutes apart: each deletes its candidate once its
	// own replacement is initialized and gives up at its own timeout, however many commands
	// are queued, rather than a second waiting on the first.
	c := newCluster(testPool("default", karpv1.Budget{Nodes: "100%"}))
	c.node("a", "default", isDrifted)
	c.node("b", "default", isDrifted)
	both := c.command(t, engine.MethodDrift, "a", "b")
	for i := range c.in.Nodes {
		withDisruptedTaint(c.in.NodeClaims[i], c.in.Nodes[i])
	}
	replacement := func(name string, initialized bool) *karpv1.NodeClaim {
		nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.LabelNodePool: "default"}}}
		if initialized {
			nodeClaim.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized"}}
		}
		return nodeClaim
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithStatusSubresource(&karpv1.NodeClaim{}).
		WithObjects(c.in.NodeClaims[0], c.in.Nodes[0], c.in.NodeClaims[1], c.in.Nodes[1], replacement("ra", true), replacement("rb", false)).Build()
	start := testNow
	now := start
	o := &orchestrator{client: kube, reader: kube, recorder: events.NewFakeRecorder(100), now: func() time.Time { return now }, timeout: DefaultReplacementTimeout}
	o.running = []*running{
		{id: "1", cmd: alone(both, "a"), replacements: []string{"ra"}, started: start},
		{id: "2", cmd: alone(both, "b"), replacements: []string{"rb"}, started: start.Add(5 * time.Minute)},
	}
	exists := func(name string) bool {
		err := kube.Get(t.Context(), client.ObjectKey{Name: name}, &karpv1.NodeClaim{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}

	now = start.Add(6 * time.Minute)
	if rolledBack := o.advance(t.Context()); rolledBack != 0 || len(o.running) != 1 || o.running[0].id != "2" {
		t.Fatalf("rolled back %d, running %d; want the first command done and the second waiting", rolledBack, len(o.running))
	}
	if exists("a") || !exists("b") {
		t.Errorf("a exists: %v, b exists: %v; want a deleted, b kept", exists("a"), exists("b"))
	}

	// Past the first command's timeout, not the second's.
	now = start.Add(DefaultReplacementTimeout + time.Minute)
	if rolledBack := o.advance(t.Context()); rolledBack != 0 || len(o.running) != 1 {
		t.Fatalf("rolled back %d, running %d; want the second command still waiting for its own timeout", rolledBack, len(o.running))
	}
	now = start.Add(5*time.Minute + DefaultReplacementTimeout + time.Second)
	if rolledBack := o.advance(t.Context()); rolledBack != 1 || len(o.running) != 0 {
		t.Fatalf("rolled back %d, running %d; want the second command abandoned at its timeout", rolledBack, len(o.running))
	}
	if !exists("b") || !exists("rb") {
		t.Errorf("b exists: %v, rb exists: %v; a rolled-back command keeps its candidate and its replacement", exists("b"), exists("rb"))
	}
}

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
