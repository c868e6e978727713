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

package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"maps"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

var _ = Describe("Signing keyring", func() {
	It("rotates: nodes launched after a new key is made active are signed with it, kubectl shows which nodes still depend on the old key, and the old key leaves once none does", func() {
		keyring := operatorSecret("karpenter-kakaocloud-signing-keys")
		original := maps.Clone(keyring.Data)
		oldKey := string(original["activeKeyID"])
		// Registered before the pool, so that it runs after the pool's VMs are gone: they are
		// signed with the new key, which the original keyring does not hold.
		DeferCleanup(func() {
			update(keyring, func(s *corev1.Secret) { s.Data = maps.Clone(original) })
		})
		createPool("keyring", nil)
		deployment := createDeployment("keyring", 1, poolPod("keyring", "keyring", "1"))
		Eventually(func(g Gomega) int { return running(podsOf("keyring")(g)) }).Should(Equal(1))
		signedBy := func(g Gomega) map[string]string {
			out := map[string]string{}
			for _, c := range claimsOf("keyring")(g) {
				out[c.Name] = c.Labels[kcv1.LabelSigningKey]
			}
			return out
		}
		first := signedBy(Default)
		Expect(first).To(HaveLen(1))
		Expect(first).To(ContainElement(oldKey), "the first node is signed with the active key, %s", oldKey)

		By("adding a new key to the keyring and making it active")
		secret := make([]byte, 48)
		_, _ = rand.Read(secret)
		newKey := "rotated"
		update(keyring, func(s *corev1.Secret) {
			s.Data["keys."+newKey] = []byte(base64.StdEncoding.EncodeToString(secret))
			s.Data["activeKeyID"] = []byte(newKey)
		})
		update(deployment, func(d *appsv1.Deployment) { d.Spec.Replicas = new(int32(2)) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("keyring")(g))).To(Equal(2))
			g.Expect(signedBy(g)).To(ConsistOf(oldKey, newKey), "one node on each key")
		}).Should(Succeed())
		out, err := kubectl("get", "nodeclaims", "-l", karpv1.LabelNodePool+"=keyring", "-L", kcv1.LabelSigningKey)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(And(ContainSubstring("SIGNING-KEY"), ContainSubstring(oldKey), ContainSubstring(newKey)), "kubectl shows which key each node depends on:\n%s", out)

		Eventually(func(g Gomega) []kcv1.SigningKeyUse {
			nodeClass := &kcv1.KCNodeClass{}
			g.Expect(kube.Get(ctx, client.ObjectKey{Name: "keyring"}, nodeClass)).To(Succeed())
			return nodeClass.Status.SigningKeys
		}).Should(ConsistOf(kcv1.SigningKeyUse{KeyID: oldKey, NodeClaims: 1}, kcv1.SigningKeyUse{KeyID: newKey, NodeClaims: 1}),
			"the KCNodeClass counts the NodeClaims each key signs")

		By("removing the old key too early, and deleting the node that depends on it: its VM is kept and reported")
		update(keyring, func(s *corev1.Secret) { delete(s.Data, "keys."+oldKey) })
		var oldVM string
		for name := range first {
			claim := &karpv1.NodeClaim{}
			Expect(kube.Get(ctx, client.ObjectKey{Name: name}, claim)).To(Succeed())
			oldVM = strings.TrimPrefix(claim.Status.ProviderID, kcv1.ProviderIDPrefix)
			Expect(kube.Delete(ctx, claim)).To(Succeed())
			Eventually(eventNotes(name, "InstanceOwnershipUnverified")).Should(ContainElement(ContainSubstring("put that key back into the keyring Secret")))
		}
		Consistently(vmIDs, 5*time.Second).Should(ContainElement(oldVM), "the VM signed with the removed key is not deleted")

		By("putting the old key back: the VM is deleted and the node replaced")
		update(keyring, func(s *corev1.Secret) { s.Data["keys."+oldKey] = original["keys."+oldKey] })
		Eventually(vmIDs).ShouldNot(ContainElement(oldVM))
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("keyring")(g))).To(Equal(2))
			g.Expect(signedBy(g)).To(HaveEach(newKey), "no node depends on the old key")
		}).Should(Succeed())

		By("removing the old key: the nodes, all signed with the new one, stay the operator's")
		update(keyring, func(s *corev1.Secret) { delete(s.Data, "keys."+oldKey) })
		update(deployment, func(d *appsv1.Deployment) { d.Spec.Replicas = new(int32(3)) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("keyring")(g))).To(Equal(3))
			g.Expect(signedBy(g)).To(HaveEach(newKey))
		}).Should(Succeed())
	})
})
