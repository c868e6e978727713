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
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// secretWatch collects, for the whole suite, every secret the operator holds: the KakaoCloud
// access key's secret, the signing keys and the bootstrap tokens it mints (each lives only
// until its node joins, so they are sampled while the suite runs). After the suite, none may
// appear in the operator's log or in any event.
type secretWatch struct {
	mu sync.Mutex
	// secrets maps a secret value to what it is, for the failure message (never the value).
	secrets    map[string]string
	tokens     int
	nodeClaims bool
	stop       func()
}

var secrets = &secretWatch{secrets: map[string]string{}}

func (w *secretWatch) add(value, what string) {
	// Short values (a key id, a flag) would match by chance and are not secrets.
	if len(value) < 12 {
		return
	}
	w.secrets[value] = what
	// Logged bytes could be the value encoded once more.
	w.secrets[base64.StdEncoding.EncodeToString([]byte(value))] = what + ", base64-encoded"
}

func (w *secretWatch) sample() {
	list := &corev1.SecretList{}
	if kube.List(ctx, list) != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.nodeClaims {
		claims := &karpv1.NodeClaimList{}
		w.nodeClaims = kube.List(ctx, claims) == nil && len(claims.Items) > 0
	}
	for _, s := range list.Items {
		switch {
		case s.Type == corev1.SecretTypeBootstrapToken:
			if _, seen := w.secrets[string(s.Data["token-secret"])]; !seen {
				w.tokens++
			}
			w.add(string(s.Data["token-secret"]), "the secret of bootstrap token "+s.Name)
		case s.Name == "karpenter-kakaocloud-credentials":
			w.add(string(s.Data["secret-access-key"]), "the KakaoCloud access key's secret")
		case s.Name == "karpenter-kakaocloud-signing-keys":
			for key, value := range s.Data {
				if id, ok := strings.CutPrefix(key, "keys."); ok {
					w.add(string(value), "signing key "+id)
					w.add(strings.TrimSpace(string(value)), "signing key "+id)
				}
			}
		}
	}
}

// start samples the secrets at once and then every second until AfterSuite.
func (w *secretWatch) start() {
	w.sample()
	w.stop = sampleEvery(time.Second, func(time.Time) { w.sample() })
}

var _ = AfterSuite(func() {
	if secrets.stop == nil {
		return
	}
	secrets.stop()
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	fmt.Fprintf(GinkgoWriter, "secrets checked: %d values (%d bootstrap tokens)\n", len(secrets.secrets), secrets.tokens)
	Expect(secrets.secrets).To(ContainElement("the KakaoCloud access key's secret"), "the credentials Secret was read")
	Expect(secrets.secrets).To(ContainElement(HavePrefix("signing key ")), "the signing keys were read")
	if secrets.nodeClaims {
		Expect(secrets.tokens).To(BeNumerically(">", 0), "NodeClaims were launched, so bootstrap tokens were minted and sampled")
	}

	var places []string
	if cluster.operatorLog != "" {
		log, err := os.ReadFile(cluster.operatorLog)
		Expect(err).NotTo(HaveOccurred())
		places = append(places, "the operator's log\x00"+string(log))
	}
	events := &eventsv1.EventList{}
	Expect(kube.List(ctx, events)).To(Succeed())
	for _, e := range events.Items {
		places = append(places, fmt.Sprintf("event %s/%s\x00%s %s %s", e.Namespace, e.Name, e.Note, e.Reason, e.Action))
	}
	coreEvents := &corev1.EventList{}
	Expect(kube.List(ctx, coreEvents)).To(Succeed())
	for _, e := range coreEvents.Items {
		places = append(places, fmt.Sprintf("event %s/%s\x00%s %s", e.Namespace, e.Name, e.Message, e.Reason))
	}
	var leaks []string
	for _, place := range places {
		name, text, _ := strings.Cut(place, "\x00")
		for value, what := range secrets.secrets {
			if strings.Contains(text, value) {
				leaks = append(leaks, fmt.Sprintf("%s holds %s", name, what))
			}
		}
	}
	Expect(leaks).To(BeEmpty(), "no secret may be logged or published in an event")
})
