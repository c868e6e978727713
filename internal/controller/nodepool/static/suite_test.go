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

package static_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

func TestStatic(t *testing.T) { test.RunSuite(t, "Static NodePool suite") }

var (
	controllers *operator.Controllers
	nodeClass   *kcv1.KCNodeClass
	env         = test.Suite(test.EnvironmentOptions{FakeClock: true, Direct: true}, func(env *test.Environment) error {
		controllers = env.Controllers()
		return nil
	})
)

var _ = BeforeEach(func() {
	nodeClass = ExpectSharedKCNodeClass(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
})

var _ = BeforeEach(func() { env.Reset() })

// staticPool creates a static NodePool of replicas nodes and lets the NodePool controller make
// it Ready.
func staticPool(replicas int64, opts ...func(*karpv1.NodePool)) *karpv1.NodePool {
	GinkgoHelper()
	nodePool := test.NodePool(nodeClass, append([]func(*karpv1.NodePool){func(nodePool *karpv1.NodePool) {
		nodePool.Spec.Replicas = &replicas
	}}, opts...)...)
	ExpectApplied(env.Ctx, env.Client, nodePool)
	ExpectReconciled(env.Ctx, controllers.NodePool, nodePool)
	nodePool = ExpectExists(env.Ctx, env.Client, nodePool)
	Expect(meta.IsStatusConditionTrue(nodePool.Status.Conditions, karpv1.ConditionTypeReady)).To(BeTrue())
	return nodePool
}

// liveClaims lists the NodePool's NodeClaims that are not being deleted.
func liveClaims(nodePool *karpv1.NodePool) []karpv1.NodeClaim {
	GinkgoHelper()
	list := &karpv1.NodeClaimList{}
	Expect(env.Client.List(env.Ctx, list, client.MatchingLabels{karpv1.LabelNodePool: nodePool.Name})).To(Succeed())
	var live []karpv1.NodeClaim
	for _, nodeClaim := range list.Items {
		if nodeClaim.DeletionTimestamp.IsZero() {
			live = append(live, nodeClaim)
		}
	}
	return live
}

// scaleTo sets the NodePool's replicas.
func scaleTo(nodePool *karpv1.NodePool, replicas int64) *karpv1.NodePool {
	GinkgoHelper()
	nodePool = ExpectExists(env.Ctx, env.Client, nodePool)
	nodePool.Spec.Replicas = &replicas
	ExpectApplied(env.Ctx, env.Client, nodePool)
	return nodePool
}
