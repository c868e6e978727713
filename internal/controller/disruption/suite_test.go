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

package disruption_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/fake"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

func TestDisruptionSuite(t *testing.T) { test.RunSuite(t, "Disruption suite") }

// The specs call the disruption loop, the NodeClaim controllers and the NodePool and
// KCNodeClass controllers themselves, on a fake clock, and play what envtest does not run:
// kubelets register and ready the nodes, and stop the pods being deleted. The cloud is a fake
// cloud provider the specs set; one spec (emulator_test.go) runs the loop with KakaoCloud's own
// provider against the emulator over HTTP. Each spec gets controllers of its own, so that no
// command, validation or cached answer of one reaches the next.
var (
	cloud = fake.New()
	// controllers work on the fake; emulated on the emulator.
	controllers, emulated *operator.Controllers
	lifecycle             reconcile.Reconciler // the lifecycle controller, as the manager runs it
	env                   = test.Suite(test.EnvironmentOptions{
		FakeClock: true, Direct: true,
		Emulator: emulator.Options{BuildDelay: time.Second, DeleteDelay: time.Second},
	}, nil)
)

var _ = BeforeEach(func() {
	env.Reset()
	cloud.Reset()
	cloud.InstanceTypes = fake.Families(zoneA, zoneB)
	controllers = env.Controllers(func(o *operator.Options) { o.CloudProvider = cloud })
	emulated = env.Controllers()
	lifecycle = reconcile.AsReconciler(controllers.Lifecycle.Client, controllers.Lifecycle)
})

var _ = AfterEach(func() {
	Expect(env.Client.DeleteAllOf(env.Ctx, &policyv1.PodDisruptionBudget{}, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
	ExpectCleanedUp(env.Ctx, env.Client)
})

const (
	zoneA = "kr-central-2-a"
	zoneB = "kr-central-2-b"
)

// readyPool makes a Ready KCNodeClass and a Ready NodePool of it, both named name: m2a nodes
// labelled pool=<name>, expiring after 720h, consolidating at once with every node allowed,
// then shaped by mutate; the KCNodeClass shaped by nodeClassOpts.
func readyPool(name string, mutate func(*karpv1.NodePool), nodeClassOpts ...func(*kcv1.KCNodeClass)) *karpv1.NodePool {
	GinkgoHelper()
	nodeClass := test.KCNodeClass(append([]func(*kcv1.KCNodeClass){func(nodeClass *kcv1.KCNodeClass) { nodeClass.Name = name }}, nodeClassOpts...)...)
	ExpectApplied(env.Ctx, env.Client, nodeClass)
	ExpectKCNodeClassReady(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
	nodePool := test.NodePool(nodeClass, func(np *karpv1.NodePool) {
		np.Name = name
		np.Spec.Template.Labels = map[string]string{"pool": name}
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			karpv1.NodeSelectorRequirementWithMinValues{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a"}})
		np.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration("720h")
		np.Spec.Disruption = karpv1.Disruption{
			ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
			ConsolidateAfter:    karpv1.MustParseNillableDuration("0s"),
			Budgets:             []karpv1.Budget{{Nodes: "100%"}},
		}
	})
	if mutate != nil {
		mutate(nodePool)
	}
	ExpectApplied(env.Ctx, env.Client, nodePool)
	nodePool = ExpectNodePoolReady(env.Ctx, env.Client, controllers.NodePool, nodePool)
	Expect(nodePool.Annotations).To(HaveKey(karpv1.NodePoolHashAnnotationKey))
	return nodePool
}

// updatePool changes the NodePool and has its controller take the change in (its template
// hash among it).
func updatePool(nodePool *karpv1.NodePool, mutate func(*karpv1.NodePool)) *karpv1.NodePool {
	GinkgoHelper()
	nodePool = ExpectExists(env.Ctx, env.Client, nodePool)
	mutate(nodePool)
	ExpectApplied(env.Ctx, env.Client, nodePool)
	return ExpectNodePoolReady(env.Ctx, env.Client, controllers.NodePool, nodePool)
}

// initializedNode creates a NodeClaim of the NodePool for one instance type, as provisioning
// would make it from the template, and brings it up (ExpectInitialized).
func initializedNode(nodePool *karpv1.NodePool, instanceType string) (*karpv1.NodeClaim, *corev1.Node) {
	GinkgoHelper()
	labels := map[string]string{karpv1.LabelNodePool: nodePool.Name}
	maps.Copy(labels, nodePool.Spec.Template.Labels)
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:   test.RandomName(nodePool.Name),
			Labels: labels,
			Annotations: map[string]string{
				karpv1.NodePoolHashAnnotationKey:        nodePool.Annotations[karpv1.NodePoolHashAnnotationKey],
				karpv1.NodePoolHashVersionAnnotationKey: nodePool.Annotations[karpv1.NodePoolHashVersionAnnotationKey],
			},
		},
		Spec: karpv1.NodeClaimSpec{
			Taints: nodePool.Spec.Template.Spec.Taints,
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{nodePool.Name}},
				{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{instanceType}},
			},
			Resources:              karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
			NodeClassRef:           nodePool.Spec.Template.Spec.NodeClassRef,
			ExpireAfter:            nodePool.Spec.Template.Spec.ExpireAfter,
			TerminationGracePeriod: nodePool.Spec.Template.Spec.TerminationGracePeriod,
		},
	}
	ExpectApplied(env.Ctx, env.Client, nodeClaim)
	node := ExpectInitialized(env.Ctx, env.Client, lifecycle, nodeClaim)[0]
	return ExpectExists(env.Ctx, env.Client, nodeClaim), node
}

// running binds a pod of app, asking for cpu (and a little memory), to the node, Running
// since now, as a ReplicaSet's; evicted, it goes at once (grace period 0).
func running(node *corev1.Node, app, cpu string, opts ...func(*corev1.Pod)) *corev1.Pod {
	GinkgoHelper()
	pod := test.Pod(append([]func(*corev1.Pod){
		test.OnNode(node), test.Labelled(map[string]string{"app": app}), test.OwnedBy("apps/v1", "ReplicaSet", app), test.GracePeriod(0),
		func(p *corev1.Pod) {
			p.Name = test.RandomName(app)
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("256Mi")}
			p.Status.StartTime = &metav1.Time{Time: env.Clock.Now()}
		},
	}, opts...)...)
	ExpectApplied(env.Ctx, env.Client, pod)
	return pod
}

// twoNodes launches two initialized nodes of the NodePool of one instance type, with a pod of
// app on each.
func twoNodes(nodePool *karpv1.NodePool, instanceType, app, cpu string, opts ...func(*corev1.Pod)) (nodeClaims []*karpv1.NodeClaim, pods []*corev1.Pod) {
	GinkgoHelper()
	for range 2 {
		nodeClaim, node := initializedNode(nodePool, instanceType)
		nodeClaims = append(nodeClaims, nodeClaim)
		pods = append(pods, running(node, app, cpu, opts...))
	}
	return nodeClaims, pods
}

// pass brings every NodeClaim's Drifted and Consolidatable conditions up to date, as their
// controller would have, then runs one pass of the loop.
func pass(c *operator.Controllers) {
	GinkgoHelper()
	for _, nodeClaim := range nodeClaims() {
		ExpectObjectReconciled(env.Ctx, env.Client, c.Conditions, nodeClaim)
	}
	ExpectPassed(env.Ctx, c.Disruption)
}

// nodeClaims are the NodeClaims as stored, by name.
func nodeClaims() []*karpv1.NodeClaim {
	GinkgoHelper()
	list := &karpv1.NodeClaimList{}
	Expect(env.Client.List(env.Ctx, list)).To(Succeed())
	out := make([]*karpv1.NodeClaim, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	slices.SortFunc(out, func(a, b *karpv1.NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// launched are the NodeClaims the loop created (not among before) that are not initialized yet.
func launched(before ...*karpv1.NodeClaim) []*karpv1.NodeClaim {
	GinkgoHelper()
	var out []*karpv1.NodeClaim
	for _, nodeClaim := range nodeClaims() {
		if !slices.ContainsFunc(before, func(b *karpv1.NodeClaim) bool { return b.Name == nodeClaim.Name }) && nodeClaim.Status.NodeName == "" {
			out = append(out, nodeClaim)
		}
	}
	return out
}

// deleting are the NodeClaims being deleted.
func deleting() []*karpv1.NodeClaim {
	GinkgoHelper()
	return slices.DeleteFunc(nodeClaims(), func(nodeClaim *karpv1.NodeClaim) bool { return nodeClaim.DeletionTimestamp.IsZero() })
}

// disrupted says, of each NodeClaim, whether a command has it: its node tainted
// karpenter.sh/disrupted or the NodeClaim being deleted.
func disrupted(nodeClaims ...*karpv1.NodeClaim) []string {
	GinkgoHelper()
	var out []string
	for _, nodeClaim := range nodeClaims {
		current := &karpv1.NodeClaim{}
		if err := env.Client.Get(env.Ctx, client.ObjectKeyFromObject(nodeClaim), current); err != nil {
			Expect(client.IgnoreNotFound(err)).To(Succeed())
			continue // gone: its disruption is over
		}
		node := &corev1.Node{}
		Expect(env.Client.Get(env.Ctx, client.ObjectKey{Name: current.Status.NodeName}, node)).To(Succeed())
		if !current.DeletionTimestamp.IsZero() || slices.ContainsFunc(node.Spec.Taints, isDisruptedTaint) {
			out = append(out, nodeClaim.Name)
		}
	}
	return out
}

func isDisruptedTaint(t corev1.Taint) bool { return t.Key == karpv1.DisruptedNoScheduleTaint.Key }

// expectUntouched fails if a command has any of the NodeClaims.
func expectUntouched(nodeClaims ...*karpv1.NodeClaim) {
	GinkgoHelper()
	Expect(disrupted(nodeClaims...)).To(BeEmpty(), "no command disrupts these nodes")
	for _, nodeClaim := range nodeClaims {
		ExpectExists(env.Ctx, env.Client, nodeClaim)
	}
}

// consolidate runs a consolidation command through: a pass decides it, the clock moves on by
// the validation delay and a pass validates and starts it; its replacements come up and a pass
// deletes its candidates, which terminate. It returns the replacements.
func consolidate(c *operator.Controllers) []*karpv1.NodeClaim {
	GinkgoHelper()
	before := nodeClaims()
	pass(c)
	env.Step(engine.DefaultValidationDelay)
	pass(c)
	replacements := launched(before...)
	if len(replacements) > 0 {
		ExpectInitialized(env.Ctx, env.Client, lifecycle, replacements...)
		pass(c)
	}
	candidates := deleting()
	Expect(candidates).NotTo(BeEmpty(), "the command deletes its candidates")
	ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, candidates...)
	return replacements
}

// withoutDisruptions makes the NodePool allow no disruption (its budgets nodes: "0").
func withoutDisruptions(np *karpv1.NodePool) {
	np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0"}}
}

// replaceAll carries out the commands the loop starts until none of old is left: each round
// a pass, the replacements it launched brought up, a pass, and the NodeClaims it deleted
// terminated. check runs after every pass.
func replaceAll(c *operator.Controllers, lifecycle reconcile.Reconciler, old []*karpv1.NodeClaim, check func()) {
	GinkgoHelper()
	passAndCheck := func() {
		pass(c)
		if check != nil {
			check()
		}
	}
	for range 2 * len(old) {
		if len(remaining(old)) == 0 {
			break
		}
		passAndCheck()
		if replacements := launched(old...); len(replacements) > 0 {
			ExpectInitialized(env.Ctx, env.Client, lifecycle, replacements...)
			passAndCheck()
		}
		candidates := deleting()
		ExpectTerminated(env.Ctx, env.Client, lifecycle, env.Clock, candidates...)
		if len(candidates) > 0 {
			// The nodes that took a command's pods stay off the candidate list for a while,
			// so that the pods are not moved twice in a row.
			env.Step(disruption.DestinationNominationGrace)
		}
	}
	ExpectNotFound(env.Ctx, env.Client, Objects(old)...)
}

// remaining are the NodeClaims among old that still exist.
func remaining(old []*karpv1.NodeClaim) []*karpv1.NodeClaim {
	GinkgoHelper()
	current := nodeClaims()
	return slices.DeleteFunc(slices.Clone(old), func(o *karpv1.NodeClaim) bool {
		return !slices.ContainsFunc(current, func(c *karpv1.NodeClaim) bool { return c.Name == o.Name })
	})
}
