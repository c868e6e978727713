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

package bootstrap

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// DefaultTokenTTL is as long as a NodeClaim may still become a node: a token is minted at the
// NodeClaim's first launch attempt, which is no earlier than its creation, and a NodeClaim whose
// VM did not launch within the launch timeout (5 minutes), or whose node did not register
// within the registration timeout of the launch (15 minutes), is deleted; the operator's tests
// hold this to the lifecycle controller's two. A token is deleted well before it expires once
// its node has registered (DeleteTokens); expiry bounds a token whose deletion was missed.
const DefaultTokenTTL = 20 * time.Minute

// The labels of a NodeClaim's bootstrap token Secret: the NodeClaim's name, for people, and its
// UID, which DeleteTokens selects by (a later NodeClaim may have the same name).
const (
	LabelNodeClaim    = kcv1.Group + "/nodeclaim"
	LabelNodeClaimUID = kcv1.Group + "/nodeclaim-uid"
)

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
	// TokenTTL is how long each token is valid; DefaultTokenTTL when 0.
	TokenTTL time.Duration
	// Keyring derives each NodeClaim's token from the NodeClaim's UID, so that every launch
	// attempt of a NodeClaim hands out the same token and one Secret serves them all; without
	// it every attempt mints a random token.
	Keyring signing.KeyringSource
	// Clock tells the time tokens expire from; the real clock when nil.
	Clock clock.PassiveClock
}

// Creating the token Secrets needs `create` on secrets in kube-system only, where the API
// server reads bootstrap tokens, and deleting them `deletecollection` there: a Role in
// kube-system (config/rbac-bootstrap), not a ClusterRole.

// TokenRightsFix says where the operator's rights in kube-system come from, for a refused
// token write and for preflight: the OLM bundle cannot carry them, its users apply them.
const TokenRightsFix = "the operator's ServiceAccount needs create and deletecollection on Secrets in kube-system: " +
	"the Helm chart and config/default install them; with OLM, apply config/olm-kube-system (docs/install.md, OperatorHub / OLM)"

// explainRefusal adds to a refused write in kube-system what grants it.
func explainRefusal(err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%w; %s", err, TokenRightsFix)
	}
	return err
}

// UserData returns the NodeClaim's join script for each instance type it may launch as: one
// bootstrap token serves them all, and each tells the kubelet what its instance type's model
// holds back.
func (b *Bootstrapper) UserData(ctx context.Context, nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) (func(*cloudprovider.InstanceType) (string, error), error) {
	cluster, err := b.Cluster.Cluster(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster endpoint: %w", err)
	}
	// Checked before a token is minted: a script that cannot be written needs none.
	endpoint, err := APIServerURL(cluster.ControlPlaneEndpoint)
	if err != nil {
		return nil, fmt.Errorf("checking the API server endpoint of Kubernetes Engine cluster %s: %w", cluster.Name, err)
	}
	token, err := b.token(ctx, nodeClaim)
	if err != nil {
		return nil, err
	}
	extra := ""
	if nodeClass.Spec.UserData != nil {
		extra = *nodeClass.Spec.UserData
	}
	taints := append(append([]corev1.Taint{}, nodeClaim.Spec.Taints...), nodeClaim.Spec.StartupTaints...)
	taints = append(taints, karpv1.UnregisteredNoExecuteTaint)
	return func(instanceType *cloudprovider.InstanceType) (string, error) {
		return UserData(Options{
			Endpoint:      endpoint,
			CABundle:      b.CABundle,
			Token:         token,
			Labels:        nodeClaim.Labels,
			Taints:        taints,
			Kubelet:       nodeClass.Spec.Kubelet,
			Reservations:  instancetype.Reservations(nodeClass, instanceType),
			ExtraUserData: extra,
		})
	}, nil
}

// token returns the NodeClaim's bootstrap token, creating its Secret in kube-system unless an
// earlier launch attempt of the NodeClaim did.
func (b *Bootstrapper) token(ctx context.Context, nodeClaim *karpv1.NodeClaim) (string, error) {
	id, secret, err := b.tokenFor(ctx, nodeClaim)
	if err != nil {
		return "", err
	}
	ttl := b.TokenTTL
	if ttl == 0 {
		ttl = DefaultTokenTTL
	}
	clk := b.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: metav1.NamespaceSystem,
			Name:      "bootstrap-token-" + id,
			Labels:    map[string]string{LabelNodeClaim: nodeClaim.Name},
		},
		Type: corev1.SecretTypeBootstrapToken,
		StringData: map[string]string{
			"token-id":                       id,
			"token-secret":                   secret,
			"expiration":                     clk.Now().Add(ttl).UTC().Format(time.RFC3339),
			"usage-bootstrap-authentication": "true",
			// Not usage-bootstrap-signing: the join script carries the cluster CA, so the node
			// needs no signed kube-public/cluster-info, and a signing token would publish a JWS
			// of its secret there, readable by anyone, for every NodeClaim.
			"auth-extra-groups": TokenGroup,
			"description":       "joins the node of NodeClaim " + nodeClaim.Name,
		},
	}
	if nodeClaim.UID != "" {
		s.Labels[LabelNodeClaimUID] = string(nodeClaim.UID)
		// Kubernetes' garbage collector deletes the token once the NodeClaim is gone, whatever
		// became of this controller meanwhile. The NodeClaim's deletion waits for nothing here.
		s.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: karpv1.GroupVersion.String(), Kind: "NodeClaim", Name: nodeClaim.Name, UID: nodeClaim.UID,
		}}
	}
	// A derived token's Secret that exists already is this NodeClaim's, from an earlier attempt:
	// its value is the one derived again here, so nothing needs reading back.
	if err := b.Client.Create(ctx, s); err != nil && !(apierrors.IsAlreadyExists(err) && b.Keyring != nil && nodeClaim.UID != "") {
		return "", fmt.Errorf("creating a bootstrap token for NodeClaim %s in kube-system: %w", nodeClaim.Name, explainRefusal(err))
	}
	return id + "." + secret, nil
}

// DeleteTokens deletes the bootstrap token Secrets of the NodeClaim whose UID is
// nodeClaimUID: there is none left to delete when the call returns without an error.
func DeleteTokens(ctx context.Context, c client.Client, nodeClaimUID types.UID) error {
	err := c.DeleteAllOf(ctx, &corev1.Secret{},
		client.InNamespace(metav1.NamespaceSystem),
		client.MatchingLabels{LabelNodeClaimUID: string(nodeClaimUID)},
		client.MatchingFields{"type": string(corev1.SecretTypeBootstrapToken)},
	)
	if err != nil {
		return fmt.Errorf("deleting the bootstrap token of NodeClaim %s in kube-system: %w", nodeClaimUID, explainRefusal(err))
	}
	return nil
}

// tokenFor is the NodeClaim's token id and secret: derived from its UID under the active
// signing key when there is a keyring and a UID, random otherwise.
func (b *Bootstrapper) tokenFor(ctx context.Context, nodeClaim *karpv1.NodeClaim) (string, string, error) {
	if b.Keyring == nil || nodeClaim.UID == "" {
		return randomString(6), randomString(16), nil
	}
	ring, err := b.Keyring.Keyring(ctx)
	if err != nil {
		return "", "", fmt.Errorf("reading the signing keys for the bootstrap token: %w", err)
	}
	derived := tokenAlphabetString(func(block int) []byte {
		return ring.Derive("bootstrap-token", string(nodeClaim.UID)+"/"+strconv.Itoa(block))
	}, 6+16)
	return derived[:6], derived[6:], nil
}

// randomString returns n characters of the bootstrap token alphabet from crypto/rand.
func randomString(n int) string {
	return tokenAlphabetString(func(int) []byte {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		return b
	}, n)
}

// tokenAlphabetString returns n characters of [a-z0-9], the bootstrap token alphabet, drawn
// from the blocks of bytes source returns. Bytes past the last whole multiple of 36 are
// skipped, so that every character is equally likely.
func tokenAlphabetString(source func(block int) []byte, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, 0, n)
	for block := 0; len(out) < n; block++ {
		for _, c := range source(block) {
			if len(out) == n {
				break
			}
			if int(c) < 256-256%len(alphabet) {
				out = append(out, alphabet[int(c)%len(alphabet)])
			}
		}
	}
	return string(out)
}
