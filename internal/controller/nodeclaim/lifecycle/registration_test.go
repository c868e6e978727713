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

package lifecycle_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Registration", func() {
	It("waits for the node, looking again every 10 s", func() {
		nodeClaim := launchedNodeClaim()
		result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(result.RequeueAfter).To(BeNumerically(">", 0))
		Expect(result.RequeueAfter).To(BeNumerically("<=", 10*time.Second))
		registered := condition(nodeClaim, karpv1.ConditionTypeRegistered)
		Expect(registered.Status).To(Equal(metav1.ConditionUnknown))
		Expect(registered.Reason).To(Equal("NodeNotFound"))
	})

	It("makes the node the NodeClaim's: labels, annotations, taints, finalizer, owner, and the unregistered taint removed", func() {
		taint := corev1.Taint{Key: "dedicated", Value: "checkout", Effect: corev1.TaintEffectNoSchedule}
		startup := corev1.Taint{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoExecute}
		created := test.MetricValue("karpenter_nodes_created_total", map[string]string{"nodepool": "default"})
		nodeClaim, node := registeredNodeClaim(func(nodeClaim *karpv1.NodeClaim) {
			nodeClaim.Labels["team"] = "checkout"
			metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, "example.com/owner", "payments")
			nodeClaim.Spec.Taints = []corev1.Taint{taint}
			nodeClaim.Spec.StartupTaints = []corev1.Taint{startup}
		})
		Expect(condition(nodeClaim, karpv1.ConditionTypeRegistered).Status).To(Equal(metav1.ConditionTrue))
		Expect(nodeClaim.Status.NodeName).To(Equal(node.Name))
		Expect(node.Labels).To(HaveKeyWithValue("team", "checkout"))
		Expect(node.Labels).To(HaveKeyWithValue(karpv1.LabelNodePool, "default"))
		Expect(node.Labels).To(HaveKeyWithValue(karpv1.LabelRegistered, "true"))
		Expect(node.Annotations).To(HaveKeyWithValue("example.com/owner", "payments"))
		Expect(node.Spec.Taints).To(ContainElements(taint, startup))
		Expect(node.Spec.Taints).NotTo(ContainElement(HaveField("Key", karpv1.UnregisteredNoExecuteTaint.Key)))
		Expect(controllerutil.ContainsFinalizer(node, karpv1.TerminationFinalizer)).To(BeTrue())
		Expect(node.OwnerReferences).To(ContainElement(SatisfyAll(HaveField("Kind", "NodeClaim"), HaveField("UID", nodeClaim.UID))))
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim) // registered once, counted once
		ExpectMetric("karpenter_nodes_created_total", map[string]string{"nodepool": "default", "zone": node.Labels[corev1.LabelTopologyZone]}, Equal(created+1))
	})

	It("takes a conflict on the node as a requeue, not an error, and registers the node on the next pass", func() {
		nodeClaim := launchedNodeClaim()
		node := test.Node(nodeClaim)
		ExpectApplied(env.Ctx, env.Client, node)
		// The kubelet writes the node between the reconciler's read and its patch, as its
		// heartbeats do all the time: the API server refuses the locked patch with Conflict.
		racing := &nodeWriterBetween{Client: controllers.Lifecycle.Client}
		controllers.Lifecycle.Client = racing
		DeferCleanup(func() { controllers.Lifecycle.Client = racing.Client })

		result := ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(racing.raced).To(BeTrue(), "the node was written between the read and the patch")
		Expect(result.RequeueAfter).To(BeNumerically(">", 0))
		Expect(result.RequeueAfter).To(BeNumerically("<=", time.Second))
		Expect(condition(nodeClaim, karpv1.ConditionTypeRegistered).Status).NotTo(Equal(metav1.ConditionTrue))

		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeRegistered).Status).To(Equal(metav1.ConditionTrue))
		node = ExpectExists(env.Ctx, env.Client, node)
		Expect(node.Annotations).To(HaveKeyWithValue("example.com/heartbeat", "1"), "the kubelet's write is kept")
		Expect(node.Labels).To(HaveKeyWithValue(karpv1.LabelRegistered, "true"))
	})

	It("says so when the node registered without the unregistered taint, and registers it", func() {
		nodeClaim := launchedNodeClaim()
		node := test.Node(nodeClaim, func(node *corev1.Node) { node.Spec.Taints = nil })
		ExpectApplied(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		Expect(condition(nodeClaim, karpv1.ConditionTypeRegistered).Status).To(Equal(metav1.ConditionTrue))
		ExpectEvent(env.Recorder, nodeClaim.Name, lifecycle.ReasonUnregisteredTaintMissing, "Missing karpenter.sh/unregistered taint")

		By("not saying it for a node that registered with it")
		other, _ := registeredNodeClaim()
		ExpectNoEvent(env.Recorder, other.Name, lifecycle.ReasonUnregisteredTaintMissing)
	})

	It("leaves the node's taints alone when it says not to sync them", func() {
		nodeClaim := launchedNodeClaim(func(nodeClaim *karpv1.NodeClaim) {
			nodeClaim.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "checkout", Effect: corev1.TaintEffectNoSchedule}}
		})
		node := test.Node(nodeClaim, func(n *corev1.Node) { n.Labels[karpv1.LabelDoNotSyncTaints] = "true" })
		ExpectApplied(env.Ctx, env.Client, node)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		node = ExpectExists(env.Ctx, env.Client, node)
		Expect(node.Spec.Taints).NotTo(ContainElement(HaveField("Key", "dedicated")))
		Expect(node.Spec.Taints).NotTo(ContainElement(HaveField("Key", karpv1.UnregisteredNoExecuteTaint.Key)))
	})
})

// nodeWriterBetween writes a node through the API server just before the first node patch
// goes out, as another writer racing the reconciler would.
type nodeWriterBetween struct {
	client.Client
	raced bool
}

func (c *nodeWriterBetween) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if node, ok := obj.(*corev1.Node); ok && !c.raced {
		c.raced = true
		current := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(node), current); err != nil {
			return err
		}
		metav1.SetMetaDataAnnotation(&current.ObjectMeta, "example.com/heartbeat", "1")
		if err := c.Update(ctx, current); err != nil {
			return err
		}
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}
