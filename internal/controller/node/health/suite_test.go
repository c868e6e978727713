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

package health_test

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

const buildDelay = 10 * time.Second

func TestHealth(t *testing.T) { test.RunSuite(t, "Node repair suite") }

var (
	controllers *operator.Controllers
	nodeClass   *kcv1.KCNodeClass
	env         = test.Suite(test.EnvironmentOptions{
		FakeClock: true, Direct: true,
		Emulator: emulator.Options{BuildDelay: buildDelay},
	}, func(env *test.Environment) error {
		controllers = env.Controllers(func(o *operator.Options) { o.NodeRepair, o.LegacyNodeRepair = true, true })
		return nil
	})
)

var _ = BeforeEach(func() {
	nodeClass = ExpectSharedKCNodeClass(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
})

var _ = BeforeEach(func() { env.Reset() })

// pool creates a NodePool of the suite's KCNodeClass.
func pool(opts ...func(*karpv1.NodePool)) *karpv1.NodePool {
	GinkgoHelper()
	nodePool := test.NodePool(nodeClass, opts...)
	ExpectApplied(env.Ctx, env.Client, nodePool)
	return nodePool
}

// readyNode launches a NodeClaim of the NodePool, registers its node and makes it Ready, as
// the lifecycle and a kubelet do.
func readyNode(nodePool *karpv1.NodePool) (*karpv1.NodeClaim, *corev1.Node) {
	GinkgoHelper()
	nodeClaim := test.NodeClaim(nodeClass, func(nodeClaim *karpv1.NodeClaim) {
		nodeClaim.Labels[karpv1.LabelNodePool] = nodePool.Name
		nodeClaim.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{nodePool.Name}}}
	})
	ExpectApplied(env.Ctx, env.Client, nodeClaim)
	ExpectObjectReconciled(env.Ctx, controllers.Lifecycle.Client, controllers.Lifecycle, nodeClaim)
	env.Step(buildDelay)
	nodeClaim = ExpectExists(env.Ctx, env.Client, nodeClaim)
	Expect(meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched)).To(BeTrue())
	node := test.Node(nodeClaim, test.NodeReady(corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}))
	ExpectApplied(env.Ctx, env.Client, node)
	ExpectObjectReconciled(env.Ctx, controllers.Lifecycle.Client, controllers.Lifecycle, nodeClaim)
	return ExpectExists(env.Ctx, env.Client, nodeClaim), ExpectExists(env.Ctx, env.Client, node)
}

// notReady does what the node lifecycle controller does once a kubelet stops reporting: the
// node's Ready condition turns Unknown, now.
func notReady(node *corev1.Node) *corev1.Node {
	GinkgoHelper()
	node = ExpectExists(env.Ctx, env.Client, node)
	now := metav1.NewTime(env.Clock.Now())
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", LastHeartbeatTime: now, LastTransitionTime: now}}
	ExpectApplied(env.Ctx, env.Client, node)
	return ExpectExists(env.Ctx, env.Client, node)
}

// deleting reports whether the NodeClaim is being deleted.
func deleting(nodeClaim *karpv1.NodeClaim) bool {
	GinkgoHelper()
	return !ExpectExists(env.Ctx, env.Client, nodeClaim).DeletionTimestamp.IsZero()
}

// nodeByName reads a node.
func nodeByName(name string) *corev1.Node {
	GinkgoHelper()
	return ExpectExists(env.Ctx, env.Client, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

// instanceID is the id of the NodeClaim's VM.
func instanceID(nodeClaim *karpv1.NodeClaim) string {
	return strings.TrimPrefix(nodeClaim.Status.ProviderID, kcv1.ProviderIDPrefix)
}
