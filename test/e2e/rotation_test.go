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
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

var _ = Describe("Credentials", func() {
	It("rotate without a restart: a new access key in the Secret, the old one revoked, the KCNodeClass Ready throughout and nodes still launched", func() {
		createPool("rotation", nil)
		deployment := createDeployment("rotation", 1, poolPod("rotation", "rotation", "1"))
		Eventually(func(g Gomega) int { return running(podsOf("rotation")(g)) }).Should(Equal(1))

		secret := operatorSecret("karpenter-kakaocloud-credentials")
		oldID, oldSecret := string(secret.Data["access-key-id"]), string(secret.Data["secret-access-key"])
		newID, newSecret := "rotated-access-key", fmt.Sprintf("rotated-secret-%d", time.Now().UnixNano())
		DeferCleanup(func() {
			By("putting the first access key back")
			emulatorAdmin(http.MethodPost, "/credentials", emulator.AdminCredential{ID: oldID, Secret: oldSecret})
			update(secret, func(s *corev1.Secret) {
				s.Data = map[string][]byte{"access-key-id": []byte(oldID), "secret-access-key": []byte(oldSecret)}
			})
			emulatorAdmin(http.MethodDelete, "/credentials/"+newID, nil)
		})

		stopReadyWatch := watchNodeClassReady("rotation")

		By("adding a second access key to KakaoCloud and writing it into the Secret")
		issued := emulatorCalls(Default, emulator.OpIssueToken)
		emulatorAdmin(http.MethodPost, "/credentials", emulator.AdminCredential{ID: newID, Secret: newSecret})
		update(secret, func(s *corev1.Secret) {
			s.Data = map[string][]byte{"access-key-id": []byte(newID), "secret-access-key": []byte(newSecret)}
		})
		By("revoking the first key, and with it every token issued with it")
		emulatorAdmin(http.MethodDelete, "/credentials/"+oldID, nil)

		By("scaling up: the next launch needs KakaoCloud, which now knows only the new key")
		update(deployment, func(d *appsv1.Deployment) { d.Spec.Replicas = new(int32(2)) })
		Eventually(func(g Gomega) {
			g.Expect(running(podsOf("rotation")(g))).To(Equal(2))
			g.Expect(nodesOf("rotation")(g)).To(HaveLen(2))
		}).Should(Succeed())
		Expect(emulatorCalls(Default, emulator.OpIssueToken)).To(BeNumerically(">", issued), "a token was issued again, with the new key")
		Expect(stopReadyWatch()).To(BeEmpty(), "the KCNodeClass stayed Ready while the key rotated")
	})
})
