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
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/fake"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
)

// Fixtures of the controller's own tests: a NodePool, its nodes and their pods as the loop
// reads them into the engine's input, and the commands the engine decides on them, for the
// orchestration to carry out. The engine's tests have the full set (internal/disruption).

var testNow = time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)

const testZone = "kr-central-2-a"

// testInstanceTypes are KakaoCloud-shaped types sold in testZone.
func testInstanceTypes() []*cloudprovider.InstanceType { return fake.Families(testZone) }

// testPool is a ready NodePool that consolidates empty nodes at once, with the given budgets
// (the default 10% when none).
func testPool(name string, budgets ...karpv1.Budget) *karpv1.NodePool {
	if len(budgets) == 0 {
		budgets = []karpv1.Budget{{Nodes: "10%"}}
	}
	return &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"},
			}},
			Disruption: karpv1.Disruption{ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmpty, ConsolidateAfter: karpv1.MustParseNillableDuration("0s"), Budgets: budgets},
		},
		Status: karpv1.NodePoolStatus{Conditions: []metav1.Condition{{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: "Ready"}}},
	}
}

// nodeOpt adjusts a test node.
type nodeOpt func(*karpv1.NodeClaim, *corev1.Node)

func withCondition(t string, status metav1.ConditionStatus) nodeOpt {
	return func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions, metav1.Condition{Type: t, Status: status, Reason: t})
	}
}

var isDrifted = withCondition(karpv1.ConditionTypeDrifted, metav1.ConditionTrue)

func withDisruptedTaint(_ *karpv1.NodeClaim, n *corev1.Node) {
	n.Spec.Taints = append(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
}

// cluster collects the objects of the engine's input.
type cluster struct {
	in engine.SnapshotInput
}

func newCluster(pools ...*karpv1.NodePool) *cluster {
	c := &cluster{in: engine.SnapshotInput{Now: testNow, InstanceTypes: map[string][]*cloudprovider.InstanceType{}}}
	for _, np := range pools {
		c.in.NodePools = append(c.in.NodePools, np)
		c.in.InstanceTypes[np.Name] = testInstanceTypes()
	}
	return c
}

// node adds an initialized m2a.large NodeClaim of the pool named and its ready node, and
// returns the node's name.
func (c *cluster) node(name, pool string, opts ...nodeOpt) string {
	it := testInstanceTypes()[slices.IndexFunc(testInstanceTypes(), func(it *cloudprovider.InstanceType) bool { return it.Name == "m2a.large" })]
	labels := map[string]string{karpv1.LabelNodePool: pool, karpv1.LabelTopologyZone: testZone, karpv1.LabelCapacityType: karpv1.CapacityTypeOnDemand}
	maps.Copy(labels, it.Labels)
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(testNow.Add(-time.Hour))},
		Spec:       karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"}},
		Status: karpv1.NodeClaimStatus{
			ProviderID: "kakaocloud://" + name, NodeName: "node-" + name, Capacity: it.Capacity, Allocatable: it.Allocatable(),
			Conditions: []metav1.Condition{
				{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: "Launched"},
				{Type: karpv1.ConditionTypeRegistered, Status: metav1.ConditionTrue, Reason: "Registered"},
				{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized"},
			},
		},
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-" + name, Labels: maps.Clone(labels)},
		Spec:       corev1.NodeSpec{ProviderID: nodeClaim.Status.ProviderID},
		Status: corev1.NodeStatus{Allocatable: it.Allocatable(), Capacity: it.Capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	node.Labels[corev1.LabelHostname] = node.Name
	for _, o := range opts {
		o(nodeClaim, node)
	}
	c.in.NodeClaims = append(c.in.NodeClaims, nodeClaim)
	c.in.Nodes = append(c.in.Nodes, node)
	return node.Name
}

// command is the engine's decision on the cluster, which must be a command of the method
// given whose candidates are the NodeClaims named.
func (c *cluster) command(t *testing.T, method string, names ...string) *engine.Command {
	t.Helper()
	d := engine.NewSnapshot(c.in).Decide(engine.Options{})
	if d.Command == nil {
		t.Fatalf("no command; blocked: %+v", d.Blocked)
	}
	got := d.Command.Names()
	slices.Sort(got)
	slices.Sort(names)
	if d.Command.Method != method || !slices.Equal(got, names) {
		t.Fatalf("command %s of %v, want %s of %v", d.Command.Method, got, method, names)
	}
	return d.Command
}

// alone is a command of the same method and reason with the candidate named alone.
func alone(cmd *engine.Command, name string) *engine.Command {
	i := slices.IndexFunc(cmd.Candidates, func(c *engine.Candidate) bool { return c.Name() == name })
	return &engine.Command{Method: cmd.Method, Reason: cmd.Reason, Candidates: []*engine.Candidate{cmd.Candidates[i]}}
}
