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

package provisioning_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/fake"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

func TestProvisioning(t *testing.T) { test.RunSuite(t, "Provisioning suite") }

// The specs call the provisioner themselves, on a fake clock. Its instance types come from a
// fake cloud provider the specs set; the KCNodeClass and NodePool controllers, called too,
// make their objects Ready against the emulator. One spec (emulator_test.go) runs provisioning
// with KakaoCloud's own provider against the emulator over HTTP, through launch and removal.
var (
	cloud = fake.New()
	// controllers provision from the fake; emulated from the emulator.
	controllers, emulated *operator.Controllers
	nodePools             reconcile.Reconciler
	env                   = test.Suite(test.EnvironmentOptions{
		FakeClock: true, Direct: true,
		Emulator: emulator.Options{BuildDelay: time.Second, DeleteDelay: time.Second},
	}, func(env *test.Environment) error {
		controllers = env.Controllers(func(o *operator.Options) { o.CloudProvider = cloud })
		emulated = env.Controllers()
		nodePools = controllers.NodePool
		return nil
	})
)

var _ = BeforeEach(func() {
	env.Reset()
	cloud.Reset()
	cloud.InstanceTypes = fake.Families(zoneA, zoneB)
})

var _ = AfterEach(func() { ExpectCleanedUp(env.Ctx, env.Client) })

const (
	zoneA = "kr-central-2-a"
	zoneB = "kr-central-2-b"
)

// readyPool makes a Ready KCNodeClass over subnets in zones a and b and a Ready NodePool of it,
// both named name, of the m2a and c2a families, with the limits and template labels given.
func readyPool(name string, limits corev1.ResourceList, labels map[string]string) *karpv1.NodePool {
	GinkgoHelper()
	nodeClass := test.KCNodeClass(func(nodeClass *kcv1.KCNodeClass) {
		nodeClass.Name = name
		nodeClass.Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}, {Name: "karpenter-subnet-b"}}
	})
	ExpectApplied(env.Ctx, env.Client, nodeClass)
	ExpectKCNodeClassReady(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
	nodePool := test.NodePool(nodeClass, func(np *karpv1.NodePool) {
		np.Name = name
		np.Spec.Template.Labels = labels
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			karpv1.NodeSelectorRequirementWithMinValues{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a", "c2a"}})
		np.Spec.Limits = karpv1.Limits(limits)
	})
	ExpectApplied(env.Ctx, env.Client, nodePool)
	return ExpectNodePoolReady(env.Ctx, env.Client, nodePools, nodePool)
}

// pod is a pod of one container asking for cpu, only for nodes with the labels of
// nodeSelector, shaped by opts.
func pod(name, cpu string, nodeSelector map[string]string, opts ...func(*corev1.Pod)) *corev1.Pod {
	return test.Pod(append([]func(*corev1.Pod){func(p *corev1.Pod) {
		p.Name = name
		p.Spec.NodeSelector = nodeSelector
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	}}, opts...)...)
}

// apart keeps each pod labelled app=name off the nodes of the others.
func apart(name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": name}
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
		}}}}
	}
}

// nodeClaimsOf lists the NodeClaims of a NodePool as stored.
func nodeClaimsOf(pool string) []karpv1.NodeClaim {
	GinkgoHelper()
	list := &karpv1.NodeClaimList{}
	Expect(env.Client.List(env.Ctx, list, client.MatchingLabels{karpv1.LabelNodePool: pool})).To(Succeed())
	return list.Items
}
