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

package expectations

import (
	"context"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega" //nolint:revive // the suites' DSL
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

// ExpectPassed runs one pass of the disruption loop, which must succeed.
func ExpectPassed(ctx context.Context, loop *disruption.Controller) {
	ginkgo.GinkgoHelper()
	Expect(loop.Pass(ctx)).To(Succeed(), "disruption pass")
}

// ExpectInitialized does what launching, the kubelet and the node lifecycle controller do for
// each NodeClaim: the lifecycle controller launches it, its node registers, turns Ready with
// the NodeClaim's allocatable and loses its not-ready taint, and the NodeClaim is
// initialized. It returns the NodeClaims' nodes.
func ExpectInitialized(ctx context.Context, c client.Client, lifecycle reconcile.Reconciler, nodeClaims ...*karpv1.NodeClaim) []*corev1.Node {
	ginkgo.GinkgoHelper()
	var nodes []*corev1.Node
	for _, nodeClaim := range nodeClaims {
		ExpectReconciled(ctx, lifecycle, nodeClaim)
		nodeClaim = ExpectExists(ctx, c, nodeClaim)
		Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched)).To(BeTrue(), "%s launched: %v", nodeClaim.Name, nodeClaim.Status.Conditions)
		node := test.Node(nodeClaim)
		ExpectApplied(ctx, c, node)
		ExpectReconciled(ctx, lifecycle, nodeClaim) // registered: the unregistered taint goes
		node = ExpectExists(ctx, c, node)
		test.NodeReady(nodeClaim.Status.Allocatable)(node)
		if len(nodeClaim.Status.Capacity) > 0 {
			node.Status.Capacity = nodeClaim.Status.Capacity
		}
		node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
		ExpectApplied(ctx, c, node)
		ExpectReconciled(ctx, lifecycle, nodeClaim)
		nodeClaim = ExpectExists(ctx, c, nodeClaim)
		Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)).To(BeTrue(), "%s initialized: %v", nodeClaim.Name, nodeClaim.Status.Conditions)
		nodes = append(nodes, ExpectExists(ctx, c, node))
	}
	return nodes
}

// ExpectTerminated reconciles each deleted NodeClaim with the lifecycle controller until it is
// gone, playing the kubelet: a pod being deleted on its node stops at once. Drain, the VM's
// deletion and the node's are each a reconcile; between two rounds the clock moves on by
// TerminationRound, in which the emulator's VMs go.
func ExpectTerminated(ctx context.Context, c client.Client, lifecycle reconcile.Reconciler, clock *clocktesting.FakeClock, nodeClaims ...*karpv1.NodeClaim) {
	ginkgo.GinkgoHelper()
	for range 5 {
		left := 0
		for _, nodeClaim := range nodeClaims {
			current := &karpv1.NodeClaim{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(nodeClaim), current); apierrors.IsNotFound(err) {
				continue
			}
			left++
			Expect(current.DeletionTimestamp).NotTo(BeNil(), "%s is not being deleted", nodeClaim.Name)
			_, err := lifecycle.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(nodeClaim)})
			Expect(client.IgnoreNotFound(err)).To(Succeed(), "terminating %s", nodeClaim.Name)
		}
		if left == 0 {
			return
		}
		ExpectKubeletStopped(ctx, c)
		clock.Step(TerminationRound)
	}
	ExpectNotFound(ctx, c, Objects(nodeClaims)...)
}

// TerminationRound is how far ExpectTerminated moves the clock between two rounds.
const TerminationRound = 2 * time.Second

// ExpectKubeletStopped does what the kubelets do with the pods being deleted on their nodes:
// their containers stop and the pod objects go.
func ExpectKubeletStopped(ctx context.Context, c client.Client) {
	ginkgo.GinkgoHelper()
	pods := &corev1.PodList{}
	Expect(c.List(ctx, pods)).To(Succeed())
	for i := range pods.Items {
		if pod := &pods.Items[i]; !pod.DeletionTimestamp.IsZero() {
			Expect(client.IgnoreNotFound(c.Delete(ctx, pod, client.GracePeriodSeconds(0)))).To(Succeed())
		}
	}
}

// Objects are the items as client.Objects, for the expectations that take several.
func Objects[T client.Object](items []T) []client.Object {
	out := make([]client.Object, len(items))
	for i, o := range items {
		out[i] = o
	}
	return out
}
