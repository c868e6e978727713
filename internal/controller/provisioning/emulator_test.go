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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("Provisioning against the emulator", func() {
	It("turns pending pods into NodeClaims, VMs over both zones at the cost of one, nodes and bound pods, and leaves no VM once they are deleted", func() {
		readyPool("default", nil, nil)
		// 4-vCPU nodes hold three of the 1-CPU pods: ten NodeClaims.
		var pods []*corev1.Pod
		for i := range 30 {
			pods = append(pods, pod(fmt.Sprintf("inflate-%d", i), "1", map[string]string{kcv1.LabelInstanceCPU: "4"}, func(p *corev1.Pod) {
				p.Spec.TerminationGracePeriodSeconds = new(int64(0)) // no kubelet runs here to finish a graceful deletion
			}))
		}
		created := ExpectProvisioned(env.Ctx, env.Client, emulated.Provisioner, pods...)
		Expect(created).To(HaveLen(10))

		By("launching each NodeClaim's VM, with KakaoCloud's provider over HTTP")
		lifecycle := reconcile.AsReconciler(emulated.Lifecycle.Client, emulated.Lifecycle)
		zones, types := map[string]int{}, sets.New[string]()
		for i, nodeClaim := range created {
			ExpectReconciled(env.Ctx, lifecycle, nodeClaim)
			created[i] = ExpectExists(env.Ctx, env.Client, nodeClaim)
			Expect(meta.IsStatusConditionTrue(created[i].Status.Conditions, karpv1.ConditionTypeLaunched)).To(BeTrue(), "%s: %v", nodeClaim.Name, created[i].Status.Conditions)
			zones[created[i].Labels[corev1.LabelTopologyZone]]++
			types.Insert(created[i].Labels[corev1.LabelInstanceTypeStable])
		}
		Expect(zones).To(Equal(map[string]int{zoneA: 5, zoneB: 5}))
		// One instance type, the cheapest of the 4-vCPU ones in either zone: no higher cost.
		Expect(sets.List(types)).To(Equal([]string{"c2a.xlarge"}))
		Expect(liveVMs()).To(HaveLen(10))

		By("acting as the kubelets and the kube-scheduler")
		for i, nodeClaim := range created {
			node := test.Node(nodeClaim)
			ExpectApplied(env.Ctx, env.Client, node)
			ExpectReconciled(env.Ctx, lifecycle, nodeClaim)
			node = ExpectExists(env.Ctx, env.Client, node)
			test.NodeReady(nodeClaim.Status.Allocatable)(node)
			node.Spec.Taints = nil // the not-ready taint, which the node lifecycle controller lifts
			ExpectApplied(env.Ctx, env.Client, node)
			ExpectReconciled(env.Ctx, lifecycle, nodeClaim)
			Expect(meta.IsStatusConditionTrue(ExpectExists(env.Ctx, env.Client, nodeClaim).Status.Conditions, karpv1.ConditionTypeInitialized)).To(BeTrue())
			for _, p := range pods[3*i : 3*i+3] {
				Expect(env.APIClient.SubResource("binding").Create(env.Ctx, p, &corev1.Binding{Target: corev1.ObjectReference{Kind: "Node", Name: node.Name}})).To(Succeed())
			}
		}
		Expect(ExpectProvisioned(env.Ctx, env.Client, emulated.Provisioner)).To(BeEmpty(), "every pod is bound")

		By("emptying the pool as the product documents say: kubectl delete nodeclaims -l karpenter.sh/nodepool=default")
		Expect(env.Client.DeleteAllOf(env.Ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: "default"})).To(Succeed())
		// Each pass drains, deletes the VM, then, once the cloud let it go, the node and the
		// NodeClaim.
		for range 4 {
			for _, nodeClaim := range created {
				_, err := lifecycle.Reconcile(env.Ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(nodeClaim)})
				Expect(err).NotTo(HaveOccurred())
			}
			env.Step(2 * time.Second)
		}
		Expect(nodeClaimsOf("default")).To(BeEmpty())
		Expect(liveVMs()).To(BeEmpty(), "no VM is left running")
		nodes := &corev1.NodeList{}
		Expect(env.Client.List(env.Ctx, nodes)).To(Succeed())
		Expect(nodes.Items).To(BeEmpty())
		for _, p := range pods {
			ExpectNotFound(env.Ctx, env.Client, p)
		}
	})
})

// liveVMs are the emulator's VMs that are not being deleted.
func liveVMs() []kakaocloud.Instance {
	var live []kakaocloud.Instance
	for _, i := range env.Emulator.Instances() {
		if i.Status != kakaocloud.InstanceStatusDeleting {
			live = append(live, i)
		}
	}
	return live
}
