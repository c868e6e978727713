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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// TestCandidatesByNodeState: which nodes a method may look at at all, whatever it is looking
// for. Each case is one drifted node with a pod in an otherwise empty cluster, changed one way.
func TestCandidatesByNodeState(t *testing.T) {
	deletingNodeClaim := func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		nodeClaim.DeletionTimestamp = &metav1.Time{Time: testNow}
		nodeClaim.Finalizers = []string{karpv1.TerminationFinalizer}
	}
	deletingNode := func(_ *karpv1.NodeClaim, node *corev1.Node) {
		node.DeletionTimestamp = &metav1.Time{Time: testNow}
		node.Finalizers = []string{karpv1.TerminationFinalizer}
	}
	withoutLabel := func(key string) nodeOpt {
		return func(nodeClaim *karpv1.NodeClaim, node *corev1.Node) {
			delete(nodeClaim.Labels, key)
			delete(node.Labels, key)
		}
	}
	withLabel := func(key, value string) nodeOpt {
		return func(nodeClaim *karpv1.NodeClaim, node *corev1.Node) {
			nodeClaim.Labels[key] = value
			node.Labels[key] = value
		}
	}
	notInitialized := func(nodeClaim *karpv1.NodeClaim, _ *corev1.Node) {
		nodeClaim.Status.Conditions = nodeClaim.Status.Conditions[:2]
	}
	for _, c := range []struct {
		name string
		opts []nodeOpt
		// change alters the cluster after the node is added.
		change    func(*cluster)
		candidate bool
	}{
		{name: "an initialized node of a known NodePool", candidate: true},
		{name: "a NodeClaim whose node has not registered", change: func(c *cluster) { c.in.Nodes = nil }},
		{name: "a node without a NodeClaim", change: func(c *cluster) { c.in.NodeClaims = nil }},
		{name: "a NodeClaim not initialized", opts: []nodeOpt{notInitialized}},
		{name: "a NodeClaim being deleted", opts: []nodeOpt{deletingNodeClaim}},
		{name: "a node being deleted", opts: []nodeOpt{deletingNode}},
		{name: "a NodeClaim this loop deleted, before the cache shows it", change: func(c *cluster) { c.in.Deleted = sets.New("a") }},
		{name: "a node tainted karpenter.sh/disrupted", opts: []nodeOpt{withDisruptedTaint}},
		{name: "a candidate of a command under way", change: func(c *cluster) { c.in.InFlight = sets.New("a") }},
		{name: "a replacement pods are on their way to", change: func(c *cluster) { c.in.Nominated = sets.New("a") }},
		{name: "a NodeClaim without the NodePool label", opts: []nodeOpt{withoutLabel(karpv1.LabelNodePool)}},
		{name: "a NodeClaim of a NodePool that does not exist", opts: []nodeOpt{withLabel(karpv1.LabelNodePool, "gone")}},
		// What a node lacks in labels does not keep it from being disrupted; consolidation
		// then needs its price (TestConsolidation), drift and emptiness do not.
		{name: "a node without an instance type label", opts: []nodeOpt{withoutLabel(karpv1.LabelInstanceType)}, candidate: true},
		{name: "a node of an instance type the NodePool no longer offers", opts: []nodeOpt{withLabel(karpv1.LabelInstanceType, "m1a.large")}, candidate: true},
		{name: "a node without a zone label", opts: []nodeOpt{withoutLabel(karpv1.LabelTopologyZone)}, candidate: true},
		{name: "a node without a capacity type label", opts: []nodeOpt{withoutLabel(karpv1.LabelCapacityType)}, candidate: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newCluster(testPool("default", karpv1.ConsolidationPolicyWhenEmpty, karpv1.Budget{Nodes: "100%"}))
			a := cl.node("a", "default", "m2a.large", append([]nodeOpt{isDrifted}, c.opts...)...)
			cl.pods(testPod("p1", a, "100m", "64Mi"))
			if c.change != nil {
				c.change(cl)
			}
			cands, blocked := cl.snapshot().candidates(drifted)
			if got := len(cands) == 1 && cands[0].Name() == "a"; got != c.candidate || len(cands) > 1 || len(blocked) > 0 {
				t.Fatalf("candidates %d (a: %v), blocked %d; want a candidate: %v", len(cands), got, len(blocked), c.candidate)
			}
			if !c.candidate {
				return
			}
			// And the method acts on it: the drifted node is replaced.
			d := cl.snapshot().Decide(Options{})
			expectCommand(t, d, MethodDrift, DecisionReplace, "a")
			if d.Eligible[karpv1.DisruptionReasonDrifted] != 1 {
				t.Errorf("eligible drifted nodes %d, want 1", d.Eligible[karpv1.DisruptionReasonDrifted])
			}
		})
	}
}
