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
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/fake"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/provisioning"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Provisioning", func() {
	It("opens just enough NodeClaims for the pending pods, tells each pod which, and opens none again while they are in flight", func() {
		readyPool("default", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}, map[string]string{"team": "checkout"})
		var pods []*corev1.Pod
		for i := range 6 {
			pods = append(pods, pod(fmt.Sprintf("inflate-%d", i), "1", nil))
		}
		created := ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, pods...)
		// Six CPUs fit one 8-vCPU node (7.9 CPUs allocatable), which costs what two 4-vCPU
		// ones do: one NodeClaim, of the cheaper family's types that hold them, with the
		// template's label.
		Expect(created).To(HaveLen(1))
		Expect(created[0].Labels).To(HaveKeyWithValue("team", "checkout"))
		Expect(created[0].Spec.Requirements).To(ContainElement(SatisfyAll(HaveField("Key", karpv1.LabelInstanceType), HaveField("Values", HaveExactElements("c2a.2xlarge", "m2a.2xlarge")))))
		for _, p := range pods {
			Expect(env.Recorder.Notes(p.Name, provisioning.ReasonNominated)).To(ConsistOf("Pod should schedule on: nodeclaim/"+created[0].Name), "pod %s", p.Name)
			// The event names the NodeClaim itself, which kubectl karpenter why reads.
			Expect(env.Recorder.Related(p.Name, provisioning.ReasonNominated)).To(ConsistOf(SatisfyAll(
				HaveField("Kind", "NodeClaim"), HaveField("APIVersion", karpv1.GroupVersion.String()),
				HaveField("Name", created[0].Name), HaveField("UID", created[0].UID))), "pod %s", p.Name)
		}

		By("provisioning again while the NodeClaims are in flight: no second NodeClaim")
		Expect(ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner)).To(BeEmpty())
		Expect(nodeClaimsOf("default")).To(HaveLen(1))
		for _, p := range pods {
			Expect(env.Recorder.Notes(p.Name, provisioning.ReasonNominated)).NotTo(BeEmpty())
		}
	})

	It("creates a pass's NodeClaims side by side: one the API server refuses stops none of the others, and its pods are placed again by the next pass", func() {
		readyPool("default", nil, map[string]string{"team": "checkout"})
		refusedPool := readyPool("refused", nil, map[string]string{"team": "refused"})
		// A real refusal: the API server's admission denies the NodeClaims of NodePool
		// "refused" while the binding exists.
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "refuse-team-refused"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: new(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{karpv1.Group}, APIVersions: []string{"v1"}, Resources: []string{"nodeclaims"}},
					},
				}}},
				Validations: []admissionregistrationv1.Validation{{
					Expression: `!has(object.metadata.labels) || !('team' in object.metadata.labels) || object.metadata.labels['team'] != 'refused'`,
					Message:    "team refused gets no NodeClaim",
				}},
			},
		}
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: policy.Name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		}
		ExpectApplied(env.Ctx, env.Client, policy, binding)
		DeferCleanup(func() { ExpectDeleted(env.Ctx, env.Client, binding, policy) })
		refusedNodeClaim := func() error {
			return env.Client.Create(env.Ctx, test.NodeClaim(test.KCNodeClass(), func(nodeClaim *karpv1.NodeClaim) {
				nodeClaim.Labels["team"] = "refused"
			}), client.DryRunAll)
		}
		// The API server's policy informer must see both objects first.
		Eventually(refusedNodeClaim).Should(MatchError(ContainSubstring("team refused gets no NodeClaim")))

		web := []*corev1.Pod{
			pod("web-0", "1", map[string]string{"team": "checkout"}, apart("web")),
			pod("web-1", "1", map[string]string{"team": "checkout"}, apart("web")),
			pod("web-2", "1", map[string]string{"team": "checkout"}, apart("web")),
		}
		batch := pod("batch", "1", map[string]string{"team": "refused"})
		ExpectPending(env.Ctx, env.Client, append(web, batch)...)
		created, err := controllers.Provisioner.Provision(env.Ctx)
		Expect(err).To(MatchError(SatisfyAll(ContainSubstring("creating a NodeClaim for NodePool refused"), ContainSubstring("team refused gets no NodeClaim"))))
		Expect(created).To(HaveLen(3))
		Expect(nodeClaimsOf("default")).To(HaveLen(3))
		Expect(nodeClaimsOf("refused")).To(BeEmpty())
		for _, p := range web {
			Expect(env.Recorder.Notes(p.Name, provisioning.ReasonNominated)).To(HaveLen(1), "pod %s", p.Name)
		}
		Expect(env.Recorder.Notes(batch.Name, provisioning.ReasonNominated)).To(BeEmpty())

		By("lifting the refusal: the next pass opens the refused pod's NodeClaim, and no second one for the others")
		ExpectDeleted(env.Ctx, env.Client, binding)
		Eventually(refusedNodeClaim).Should(Succeed())
		created = ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner)
		Expect(created).To(HaveLen(1))
		Expect(created[0].Labels).To(HaveKeyWithValue(karpv1.LabelNodePool, refusedPool.Name))
		Expect(nodeClaimsOf("default")).To(HaveLen(3))
	})

	It("keeps a pod on the node its NodeClaim registered as, though a node it prefers could now be launched", func() {
		readyPool("registering", nil, nil)
		preferB := pod("prefers-b", "1", map[string]string{karpv1.LabelNodePool: "registering"}, func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zoneB}}}},
			}}}}
		})
		By("zone b offering nothing: the preference is relaxed, and the pod's NodeClaim launches in a")
		cloud.InstanceTypes = fake.Families(zoneA)
		created := ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, preferB)
		Expect(zonesOf(created)).To(Equal([][]string{{zoneA}}))
		nodes := ExpectInitialized(env.Ctx, env.Client, reconcile.AsReconciler(controllers.Lifecycle.Client, controllers.Lifecycle), created[0])

		By("zone b offering again while the pod waits for its node: the pod stays put, and nothing is launched for it")
		cloud.InstanceTypes = fake.Families(zoneA, zoneB)
		Expect(ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner)).To(BeEmpty())
		Expect(env.Recorder.Notes(preferB.Name, provisioning.ReasonNominated)).To(ContainElement("Pod should schedule on: node/" + nodes[0].Name))
		Expect(env.Recorder.Related(preferB.Name, provisioning.ReasonNominated)).To(ContainElement(SatisfyAll(
			HaveField("Kind", "Node"), HaveField("APIVersion", "v1"), HaveField("Name", nodes[0].Name), HaveField("UID", nodes[0].UID))))
	})

	It("says which subnets' zones rule out a pod that asks for another zone", func() {
		readyPool("zonal", nil, nil)
		zoneC := pod("zone-c-pod", "1", map[string]string{karpv1.LabelNodePool: "zonal", corev1.LabelTopologyZone: "kr-central-2-c"})
		Expect(ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, zoneC)).To(BeEmpty())
		Expect(env.Recorder.Notes(zoneC.Name, provisioning.ReasonFailedScheduling)).To(ContainElement(ContainSubstring(
			"nodepool zonal: the subnets of its KCNodeClass zonal are in zones [kr-central-2-a kr-central-2-b], none of which the pod allows")))
	})

	It("launches nothing from a NodePool whose cpu limit is 0, and says so on the pod", func() {
		readyPool("frozen", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0")}, nil)
		frozen := pod("frozen-pod", "1", map[string]string{karpv1.LabelNodePool: "frozen"})
		Expect(ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, frozen)).To(BeEmpty())
		Expect(env.Recorder.Notes(frozen.Name, provisioning.ReasonFailedScheduling)).To(ContainElement(ContainSubstring("nodepool frozen: would exceed limits cpu")))
	})

	It("counts every NodeClaim, launched or not, against limits.nodes", func() {
		readyPool("two-nodes", corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("2")}, nil)
		var pods []*corev1.Pod
		for i := range 3 {
			pods = append(pods, pod(fmt.Sprintf("apart-%d", i), "1", map[string]string{karpv1.LabelNodePool: "two-nodes"}, apart("two-nodes")))
		}
		Expect(ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, pods...)).To(HaveLen(2))
		var notes []string
		for _, p := range pods {
			notes = append(notes, env.Recorder.Notes(p.Name, provisioning.ReasonFailedScheduling)...)
		}
		Expect(notes).To(ContainElement(ContainSubstring("nodepool two-nodes: would exceed limits nodes")))
		Expect(ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner)).To(BeEmpty(), "the two NodeClaims in flight count, not launched yet")
	})

	It("provisions for a custom label only on a NodePool that defines it, and names the label to a pod no NodePool defines it for", func() {
		readyPool("teams", nil, map[string]string{"example.com/team": "payments"})
		defined := pod("team-payments", "1", map[string]string{"example.com/team": "payments"})
		undefined := pod("team-undefined", "1", map[string]string{"example.com/owner": "nobody"})
		created := ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, defined, undefined)
		Expect(created).To(HaveLen(1))
		Expect(created[0].Labels).To(HaveKeyWithValue("example.com/team", "payments"))
		Expect(created[0].Labels).NotTo(HaveKey("example.com/owner"))
		Expect(env.Recorder.Notes(undefined.Name, provisioning.ReasonFailedScheduling)).To(ContainElement(
			ContainSubstring("nodepool teams: incompatible requirements, label example.com/owner is not defined by the nodepool")))
	})

	It("spreads pods over the zones of its subnets and follows a bound volume to its zone", func() {
		readyPool("spread", nil, nil)
		selector := map[string]string{karpv1.LabelNodePool: "spread"}
		spread := func(p *corev1.Pod) {
			p.Labels = map[string]string{"app": "spread"}
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
			}}
		}
		created := ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, pod("spread-0", "1", selector, spread), pod("spread-1", "1", selector, spread))
		Expect(zonesOf(created)).To(ConsistOf([]string{zoneA}, []string{zoneB}))

		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "data-b"},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "block.csi.example.com", VolumeHandle: "vol-b"}},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zoneB}}},
				}}}},
			},
		}
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: metav1.NamespaceDefault},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeName: pv.Name, StorageClassName: new(""),
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
			},
		}
		ExpectApplied(env.Ctx, env.Client, pv, pvc)
		withVolume := pod("with-volume", "1", selector, func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
			// Kept off the spread pods' nodes: it needs a NodeClaim of its own, which the
			// volume puts in b.
			apart("spread")(p)
			p.Labels = nil
		})
		created = ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, withVolume)
		Expect(zonesOf(created)).To(Equal([][]string{{zoneB}}))
	})

	It("names a NodePool whose KCNodeClass is not ready on the pods it cannot take, and provisions for them once it is", func() {
		nodeClass := test.KCNodeClass(func(nodeClass *kcv1.KCNodeClass) {
			nodeClass.Name = "late"
			nodeClass.Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "no-such-subnet"}}
		})
		ExpectApplied(env.Ctx, env.Client, nodeClass)
		ExpectObjectReconciled(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
		nodePool := test.NodePool(nodeClass, func(np *karpv1.NodePool) { np.Name = "late" })
		ExpectApplied(env.Ctx, env.Client, nodePool)
		ExpectReconciled(env.Ctx, nodePools, nodePool)
		late := pod("late-pod", "1", map[string]string{karpv1.LabelNodePool: "late"})
		Expect(ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, late)).To(BeEmpty())
		Expect(env.Recorder.Notes(late.Name, provisioning.ReasonFailedScheduling)).To(ContainElement(MatchRegexp(`nodepool late: not ready: .*KCNodeClass "late"`)))

		By("fixing the KCNodeClass: the NodePool turns ready, and the next pass provisions for the pod")
		nodeClass = ExpectExists(env.Ctx, env.Client, nodeClass)
		nodeClass.Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}}
		ExpectApplied(env.Ctx, env.Client, nodeClass)
		ExpectKCNodeClassReady(env.Ctx, env.Client, controllers.NodeClass, nodeClass)
		ExpectNodePoolReady(env.Ctx, env.Client, nodePools, nodePool)
		created, err := controllers.Provisioner.Provision(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(created).To(HaveLen(1))
	})

	It("stamps a NodeClaim with the hash of the template it was simulated from when the NodePool changes during the pass", func() {
		nodePool := readyPool("hash", nil, map[string]string{"team": "checkout"})
		simulated := nodePool.Annotations[karpv1.NodePoolHashAnnotationKey]
		// The NodePool changes, and its controller stamps the new hash, after the pass has read
		// the cluster: while it asks for the instance types.
		midPass := &changingProvider{CloudProvider: cloud, change: func() {
			changed := ExpectExists(env.Ctx, env.Client, nodePool)
			changed.Spec.Template.Labels["team"] = "payments"
			ExpectApplied(env.Ctx, env.Client, changed)
			ExpectNodePoolReady(env.Ctx, env.Client, nodePools, changed)
		}}
		provisioner := &provisioning.Provisioner{Client: controllers.Provisioner.Client, CloudProvider: midPass,
			Recorder: controllers.Provisioner.Recorder, Clock: controllers.Provisioner.Clock}
		created := ExpectProvisioned(env.Ctx, env.Client, provisioner, pod("web", "1", nil))
		Expect(midPass.changed).To(BeTrue())
		Expect(created).To(HaveLen(1))
		Expect(ExpectExists(env.Ctx, env.Client, nodePool).Annotations[karpv1.NodePoolHashAnnotationKey]).NotTo(Equal(simulated))
		// What the NodeClaim was made from, so that drift compares the right template with the
		// NodePool's and replaces it.
		Expect(created[0].Labels).To(HaveKeyWithValue("team", "checkout"))
		Expect(created[0].Annotations).To(HaveKeyWithValue(karpv1.NodePoolHashAnnotationKey, simulated))
	})

	It("skips a NodePool whose instance types cannot be listed, and launches from the others", func() {
		readyPool("broken-types", nil, nil)
		readyPool("working", nil, nil)
		cloud.ErrorsFor["broken-types"] = fmt.Errorf("the flavors cannot be listed")
		created := ExpectProvisioned(env.Ctx, env.Client, controllers.Provisioner, pod("anywhere", "1", nil))
		Expect(created).To(HaveLen(1))
		Expect(created[0].Labels).To(HaveKeyWithValue(karpv1.LabelNodePool, "working"))
	})
})

// zonesOf are the zones each NodeClaim's requirements allow, in order.
func zonesOf(nodeClaims []*karpv1.NodeClaim) [][]string {
	var out [][]string
	for _, nodeClaim := range nodeClaims {
		zones := scheduling.FromNodeClaimRequirements(nodeClaim.Spec.Requirements...).Get(corev1.LabelTopologyZone).Values()
		slices.Sort(zones)
		out = append(out, zones)
	}
	return out
}

// changingProvider is the cloud provider that calls change the first time it is asked for a
// NodePool's instance types.
type changingProvider struct {
	cloudprovider.CloudProvider
	change  func()
	changed bool
}

func (p *changingProvider) GetInstanceTypes(ctx context.Context, nodePool *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	if !p.changed {
		p.changed = true
		p.change()
	}
	return p.CloudProvider.GetInstanceTypes(ctx, nodePool)
}
