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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

const (
	buildDelay  = 10 * time.Second
	deleteDelay = 5 * time.Second
)

var resourceOne = resource.MustParse("1")

func TestLifecycle(t *testing.T) { test.RunSuite(t, "NodeClaim lifecycle suite") }

// The suite calls the reconcilers itself and moves a fake clock that the controllers, the
// catalog and the emulated cloud share; VMs build and go when the clock says so.
var (
	controllers *operator.Controllers
	nodeClaims  reconcile.Reconciler // the lifecycle controller, as the manager runs it
	nodeClass   *kcv1.KCNodeClass
	env         = test.Suite(test.EnvironmentOptions{
		FakeClock: true, Direct: true,
		Emulator: emulator.Options{BuildDelay: buildDelay, DeleteDelay: deleteDelay},
	}, func(env *test.Environment) error {
		controllers = env.Controllers()
		nodeClaims = reconcile.AsReconciler(controllers.Lifecycle.Client, controllers.Lifecycle)
		return nil
	})
)

// nodeClass is the Ready KCNodeClass the specs launch from.
var _ = BeforeEach(func() {
	nodeClass = ExpectSharedKCNodeClass(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
})

var _ = BeforeEach(func() { env.Reset() })

// launchedNodeClaim creates a NodeClaim and reconciles it until its VM is launched.
func launchedNodeClaim(opts ...func(*karpv1.NodeClaim)) *karpv1.NodeClaim {
	GinkgoHelper()
	nodeClaim := test.NodeClaim(nodeClass, opts...)
	ExpectApplied(env.Ctx, env.Client, nodeClaim)
	ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
	nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
	Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched)).To(BeTrue(), "launched: %v", nodeClaim.Status.Conditions)
	return nodeClaim
}

// registeredNodeClaim launches a NodeClaim and registers a node for it as its kubelet would.
func registeredNodeClaim(opts ...func(*karpv1.NodeClaim)) (*karpv1.NodeClaim, *corev1.Node) {
	GinkgoHelper()
	nodeClaim := launchedNodeClaim(opts...)
	node := test.Node(nodeClaim)
	ExpectApplied(env.Ctx, env.Client, node)
	ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
	return ExpectExists(env.Ctx, env.Client, nodeClaim), ExpectExists(env.Ctx, env.Client, node)
}

// initializedNodeClaim registers a NodeClaim's node and makes it Ready.
func initializedNodeClaim(opts ...func(*karpv1.NodeClaim)) (*karpv1.NodeClaim, *corev1.Node) {
	GinkgoHelper()
	nodeClaim, node := registeredNodeClaim(opts...)
	node = ready(node)
	ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
	nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
	Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)).To(BeTrue(), "initialized: %v", nodeClaim.Status.Conditions)
	return nodeClaim, node
}

// ready does what the kubelet and the node lifecycle controller do once the node is up.
func ready(node *corev1.Node) *corev1.Node {
	GinkgoHelper()
	node = ExpectExists(env.Ctx, env.Client, node)
	test.NodeReady(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourcePods: resource.MustParse("110")})(node)
	// The API server taints a node not-ready when it registers; the node lifecycle controller
	// removes the taint once the node is Ready.
	node.Spec.Taints = withoutKey(node.Spec.Taints, corev1.TaintNodeNotReady)
	ExpectApplied(env.Ctx, env.Client, node)
	return ExpectExists(env.Ctx, env.Client, node)
}

// condition returns the NodeClaim's condition of that type as stored now.
func condition(nodeClaim *karpv1.NodeClaim, conditionType string) metav1.Condition {
	GinkgoHelper()
	current := ExpectExists(env.Ctx, env.Client, nodeClaim)
	c := meta.FindStatusCondition(current.Status.Conditions, conditionType)
	Expect(c).NotTo(BeNil(), "condition %s of %s: %v", conditionType, nodeClaim.Name, current.Status.Conditions)
	return *c
}

// vm returns the NodeClaim's VM as the emulator has it, and whether it still exists.
func vm(nodeClaim *karpv1.NodeClaim) (kakaocloud.Instance, bool) {
	for _, i := range env.Emulator.Instances() {
		if kcv1.ProviderIDPrefix+i.ID == nodeClaim.Status.ProviderID {
			return i, true
		}
	}
	return kakaocloud.Instance{}, false
}

// vmsNamed counts the VMs named for the NodeClaim that are not being deleted.
func vmsNamed(nodeClaim *karpv1.NodeClaim) int {
	n := 0
	for _, i := range env.Emulator.Instances() {
		if i.Name == nodeClaim.Name && i.Status != kakaocloud.InstanceStatusDeleting {
			n++
		}
	}
	return n
}

// kubeletStops does what the kubelet does once a deleted pod's containers stopped.
func kubeletStops(pods ...*corev1.Pod) {
	GinkgoHelper()
	for _, pod := range pods {
		Expect(client.IgnoreNotFound(env.Client.Delete(env.Ctx, pod, client.GracePeriodSeconds(0)))).To(Succeed())
	}
}
