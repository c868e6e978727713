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

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega" //nolint:revive // the suites' DSL
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/provisioning"
)

// ExpectPending applies the pods unbound, each marked unschedulable as the kube-scheduler
// marks a pod it cannot place: what provisioning looks for.
func ExpectPending(ctx context.Context, c client.Client, pods ...*corev1.Pod) {
	ginkgo.GinkgoHelper()
	for _, pod := range pods {
		Expect(pod.Spec.NodeName).To(BeEmpty(), "pod %s is bound", pod.Name)
		pod.Status.Phase = corev1.PodPending
		pod.Status.Conditions = []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.Now(),
		}}
		ExpectApplied(ctx, c, pod)
	}
}

// ExpectProvisioned makes the pods pending (ExpectPending), runs one provisioning pass, and
// returns the NodeClaims it created, as stored.
func ExpectProvisioned(ctx context.Context, c client.Client, provisioner *provisioning.Provisioner, pods ...*corev1.Pod) []*karpv1.NodeClaim {
	ginkgo.GinkgoHelper()
	ExpectPending(ctx, c, pods...)
	created, err := provisioner.Provision(ctx)
	Expect(err).NotTo(HaveOccurred())
	for i, nodeClaim := range created {
		created[i] = ExpectExists(ctx, c, nodeClaim)
	}
	return created
}

// ExpectNodePoolReady reconciles the NodePool with its controller and expects it Ready.
func ExpectNodePoolReady(ctx context.Context, c client.Client, r reconcile.Reconciler, nodePool *karpv1.NodePool) *karpv1.NodePool {
	ginkgo.GinkgoHelper()
	ExpectReconciled(ctx, r, nodePool)
	nodePool = ExpectExists(ctx, c, nodePool)
	Expect(meta.IsStatusConditionTrue(nodePool.Status.Conditions, karpv1.ConditionTypeReady)).To(BeTrue(), "NodePool %s: %v", nodePool.Name, nodePool.Status.Conditions)
	return nodePool
}

// ExpectCleanedUp deletes what a spec made that the next must not see: pods, NodeClaims,
// nodes, NodePools, KCNodeClasses, persistent volumes and their claims, their finalizers
// removed first, as if their controllers had finished.
func ExpectCleanedUp(ctx context.Context, c client.Client) {
	ginkgo.GinkgoHelper()
	for _, list := range []client.ObjectList{
		&corev1.PodList{}, &karpv1.NodeClaimList{}, &corev1.NodeList{}, &karpv1.NodePoolList{}, &kcv1.KCNodeClassList{},
		&corev1.PersistentVolumeClaimList{}, &corev1.PersistentVolumeList{},
	} {
		Expect(c.List(ctx, list)).To(Succeed())
		Expect(meta.EachListItem(list, func(o runtime.Object) error {
			object := o.(client.Object)
			if len(object.GetFinalizers()) > 0 {
				patch := client.MergeFrom(object.DeepCopyObject().(client.Object))
				object.SetFinalizers(nil)
				if err := c.Patch(ctx, object, patch); err != nil {
					return client.IgnoreNotFound(err)
				}
			}
			return client.IgnoreNotFound(c.Delete(ctx, object, client.GracePeriodSeconds(0)))
		})).To(Succeed())
	}
}
