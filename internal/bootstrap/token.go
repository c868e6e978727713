/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bootstrap

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// DefaultTokenTTL outlives a launch and a registration (5 + 15 minutes) with room to spare;
// the kube-controller-manager's token cleaner deletes expired tokens.
const DefaultTokenTTL = time.Hour

// TokenGroup is the group bootstrap tokens authenticate as, on top of system:bootstrappers;
// the cluster must let it create node CSRs (and approve them) as for any kubelet TLS
// bootstrap.
const TokenGroup = "system:bootstrappers:karpenter-kakaocloud"

// ClusterSource reads the Kubernetes Engine cluster (its API endpoint).
type ClusterSource interface {
	Cluster(ctx context.Context) (kakaocloud.Cluster, error)
}

// Bootstrapper mints a bootstrap token per NodeClaim and renders the join script.
type Bootstrapper struct {
	Client   client.Client
	Cluster  ClusterSource
	CABundle []byte
	TokenTTL time.Duration
	Now      func() time.Time
}

// +kubebuilder:rbac:groups="",resources=secrets,verbs=create

// UserData returns the user data that joins the NodeClaim's VM to the cluster.
func (b *Bootstrapper) UserData(ctx context.Context, nc *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) (string, error) {
	cluster, err := b.Cluster.Cluster(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the cluster endpoint: %w", err)
	}
	token, err := b.mintToken(ctx, nc.Name)
	if err != nil {
		return "", err
	}
	extra := ""
	if nodeClass.Spec.UserData != nil {
		extra = *nodeClass.Spec.UserData
	}
	taints := append(append([]corev1.Taint{}, nc.Spec.Taints...), nc.Spec.StartupTaints...)
	taints = append(taints, karpv1.UnregisteredNoExecuteTaint)
	return UserData(Options{
		Endpoint:      fmt.Sprintf("https://%s:%d", cluster.ControlPlaneEndpoint.Host, cluster.ControlPlaneEndpoint.Port),
		CABundle:      b.CABundle,
		Token:         token,
		Labels:        nc.Labels,
		Taints:        taints,
		Kubelet:       nodeClass.Spec.Kubelet,
		ExtraUserData: extra,
	})
}

// mintToken creates a bootstrap token Secret in kube-system and returns the token.
func (b *Bootstrapper) mintToken(ctx context.Context, nodeClaim string) (string, error) {
	id, secret := randomString(6), randomString(16)
	ttl, now := b.TokenTTL, time.Now
	if ttl == 0 {
		ttl = DefaultTokenTTL
	}
	if b.Now != nil {
		now = b.Now
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: metav1.NamespaceSystem,
			Name:      "bootstrap-token-" + id,
			Labels:    map[string]string{kcv1.Group + "/nodeclaim": nodeClaim},
		},
		Type: corev1.SecretTypeBootstrapToken,
		StringData: map[string]string{
			"token-id":                       id,
			"token-secret":                   secret,
			"expiration":                     now().Add(ttl).UTC().Format(time.RFC3339),
			"usage-bootstrap-authentication": "true",
			"usage-bootstrap-signing":        "true",
			"auth-extra-groups":              TokenGroup,
			"description":                    "joins the node of NodeClaim " + nodeClaim,
		},
	}
	if err := b.Client.Create(ctx, s); err != nil {
		return "", fmt.Errorf("creating a bootstrap token for NodeClaim %s: %w", nodeClaim, err)
	}
	return id + "." + secret, nil
}

// randomString returns n characters of [a-z0-9], the bootstrap token alphabet.
func randomString(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, 0, n)
	b := make([]byte, 1)
	for len(out) < n {
		if _, err := rand.Read(b); err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		// Reject bytes past the last whole multiple of 36, so every character is equally likely.
		if int(b[0]) < 256-256%len(alphabet) {
			out = append(out, alphabet[int(b[0])%len(alphabet)])
		}
	}
	return string(out)
}
