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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("NodeClaim garbage collection", func() {
	It("removes a registered NodeClaim whose VM is gone, once past the grace period and not before", func() {
		nodeClaim, _ := registeredNodeClaim() // never Ready: its kubelet went with the VM
		Expect(env.KakaoCloud.DeleteInstance(env.Ctx, strings.TrimPrefix(nodeClaim.Status.ProviderID, kcv1.ProviderIDPrefix))).To(Succeed())
		env.Step(deleteDelay)

		collector := controllers.NodeClaimCollector
		deleted, err := collector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(BeEmpty(), "registered less than the grace period ago")

		env.Step(time.Minute)
		deleted, err = collector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(ConsistOf(nodeClaim.Name))
		ExpectEvent(env.Recorder, nodeClaim.Name, "InstanceGone", "is gone from KakaoCloud")
	})

	// Upstream's spec of an instance launched for a NodeClaim that has no instance mapping: its
	// status names a provider id that is not KakaoCloud's, so no VM of ours can be it.
	It("removes a registered NodeClaim whose provider id is not a KakaoCloud one, and lets it go", func() {
		nodeClaim, _ := registeredNodeClaim()
		nodeClaim.Status.ProviderID, nodeClaim.Status.NodeName = "Provider:///AZ/i-01234567890123456", "test-node-name"
		Expect(env.Client.Status().Update(env.Ctx, nodeClaim)).To(Succeed())
		env.Step(time.Minute)
		deleted, err := controllers.NodeClaimCollector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(ConsistOf(nodeClaim.Name))
		// Termination has no VM of ours to delete for it.
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectReconciled(env.Ctx, nodeClaims, nodeClaim)
		ExpectNotFound(env.Ctx, env.Client, nodeClaim)
	})

	It("leaves a NodeClaim whose node is still Ready, whatever the listing says", func() {
		nodeClaim, node := initializedNodeClaim()
		Expect(node.Status.Conditions).To(ContainElement(HaveField("Type", corev1.NodeReady)))
		env.Step(time.Minute)
		deleted, err := controllers.NodeClaimCollector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).NotTo(ContainElement(nodeClaim.Name))
	})
})

// replacingClient makes a new NodeClaim of the same name before the first delete it is asked
// for, as when the NodeClaim the collector listed went and its name was taken again meanwhile.
type replacingClient struct {
	client.Client
	replace func()
}

func (c *replacingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if c.replace != nil {
		c.replace()
		c.replace = nil
	}
	return c.Client.Delete(ctx, obj, opts...)
}

var _ = Describe("NodeClaim garbage collection of a name taken again", func() {
	It("leaves the new NodeClaim of a name whose old NodeClaim's VM is gone", func() {
		nodeClaim, _ := registeredNodeClaim()
		Expect(env.KakaoCloud.DeleteInstance(env.Ctx, strings.TrimPrefix(nodeClaim.Status.ProviderID, kcv1.ProviderIDPrefix))).To(Succeed())
		env.Step(deleteDelay + time.Minute)
		var successor *karpv1.NodeClaim
		collector := *controllers.NodeClaimCollector
		collector.Client = &replacingClient{Client: env.Client, replace: func() {
			stored := &karpv1.NodeClaim{}
			Expect(env.Client.Get(env.Ctx, client.ObjectKeyFromObject(nodeClaim), stored)).To(Succeed())
			stored.Finalizers = nil
			Expect(env.Client.Update(env.Ctx, stored)).To(Succeed())
			Expect(env.Client.Delete(env.Ctx, stored)).To(Succeed())
			ExpectNotFound(env.Ctx, env.Client, stored)
			successor = &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: nodeClaim.Name, Labels: nodeClaim.Labels}, Spec: nodeClaim.Spec}
			Expect(env.Client.Create(env.Ctx, successor)).To(Succeed())
		}}
		deleted, err := collector.Collect(env.Ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted).To(BeEmpty(), "the NodeClaim listed is gone, and its successor is not the collector's")
		stored := &karpv1.NodeClaim{}
		Expect(env.Client.Get(env.Ctx, client.ObjectKeyFromObject(successor), stored)).To(Succeed())
		Expect(stored.UID).To(Equal(successor.UID))
		Expect(stored.DeletionTimestamp).To(BeNil())
	})
})
