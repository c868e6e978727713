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

package packaging

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// tokenPolicyMessage is what the admission policy of every install path answers.
const tokenPolicyMessage = "may write only bootstrap token Secrets (type bootstrap.kubernetes.io/token) in kube-system"

// frontProxyConfigMap is where, in kube-system, the API server publishes how it proxies to
// aggregated APIs, which extension-apiserver-authentication-reader reads.
const frontProxyConfigMap = "extension-apiserver-authentication"

// TestTokenSecretsPolicyOnAPIServer installs, on a real API server, what each install path
// puts in kube-system (the Role, its binding, the admission policy and the binding that reads
// the front-proxy CA) and, as the operator's ServiceAccount, finds an Opaque Secret refused
// with the policy's message, a bootstrap token Secret allowed, a delete by label refused when
// it reaches a Secret that is not a token, and the API server's front-proxy configuration
// readable, and no other ConfigMap there, except on OLM's step (OLM binds that Role itself).
func TestTokenSecretsPolicyOnAPIServer(t *testing.T) {
	config := startAPIServer(t)
	admin, err := client.New(config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}

	for _, path := range []struct {
		name string
		r    rendered
		// readsFrontProxyCA is whether the path lets the operator read the front-proxy CA.
		readsFrontProxyCA bool
	}{
		{"config/default", renderKustomization(t, "config/default"), true},
		{"chart", renderChart(t), true},
		{olmKubeSystem, renderKustomization(t, olmKubeSystem), false},
	} {
		t.Run(path.name, func(t *testing.T) {
			ctx := t.Context()
			var installed []*unstructured.Unstructured
			for _, o := range path.r.objects {
				clusterWide := o.GetKind() == "ValidatingAdmissionPolicy" || o.GetKind() == "ValidatingAdmissionPolicyBinding"
				inKubeSystem := (o.GetKind() == "Role" || o.GetKind() == "RoleBinding") && o.GetNamespace() == tokenNamespace
				if clusterWide || inKubeSystem {
					installed = append(installed, o.DeepCopy())
				}
			}
			for _, o := range installed {
				if err := admin.Create(ctx, o); err != nil {
					t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
				}
			}
			t.Cleanup(func() {
				for _, o := range installed {
					if err := admin.Delete(context.Background(), o); err != nil {
						t.Errorf("deleting %s %s: %v", o.GetKind(), o.GetName(), err)
					}
				}
			})
			users := path.r.tokenWriters()
			if len(users) != 1 {
				t.Fatalf("the path lets %v write Secrets in kube-system, want the operator's ServiceAccount", users)
			}
			operator := impersonate(t, config, users[0])
			policy := ""
			for _, o := range installed {
				if o.GetKind() == "ValidatingAdmissionPolicy" {
					policy = o.GetName()
				}
			}

			// The policy takes effect once the API server has loaded it: until then the
			// Opaque Secret is created, and removed again.
			opaque := func() *corev1.Secret {
				return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tokenNamespace, Name: "not-a-token"}, StringData: map[string]string{"k": "v"}}
			}
			eventually(t, time.Minute, "the operator refused an Opaque Secret in kube-system", func() (bool, string) {
				err := operator.Create(ctx, opaque())
				if err == nil {
					_ = admin.Delete(ctx, opaque())
					return false, "created"
				}
				return apierrors.IsForbidden(err) && strings.Contains(err.Error(), tokenPolicyMessage) && strings.Contains(err.Error(), policy), err.Error()
			})

			token := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: tokenNamespace, Name: "bootstrap-token-abcdef", Labels: map[string]string{"nodeclaim-uid": "uid-1"}},
				Type:       corev1.SecretTypeBootstrapToken,
				StringData: map[string]string{"token-id": "abcdef", "token-secret": "0123456789abcdef"},
			}
			if err := operator.Create(ctx, token); err != nil {
				t.Fatalf("the operator may not create a bootstrap token Secret: %v", err)
			}

			// A Secret that is no token, under the token's label: deleting by that label
			// reaches it, and is refused.
			planted := opaque()
			planted.Labels = token.Labels
			if err := admin.Create(ctx, planted); err != nil {
				t.Fatal(err)
			}
			err := operator.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(tokenNamespace), client.MatchingLabels(token.Labels))
			if err == nil || !strings.Contains(err.Error(), tokenPolicyMessage) {
				t.Errorf("deleting by label a Secret that is no token: %v, want the policy's refusal", err)
			}
			if err := admin.Get(ctx, client.ObjectKeyFromObject(planted), &corev1.Secret{}); err != nil {
				t.Errorf("the Secret that is no token after the refused delete: %v", err)
			}
			if err := admin.Delete(ctx, planted); err != nil {
				t.Fatal(err)
			}
			// As the controller deletes its spent tokens.
			if err := operator.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(tokenNamespace), client.MatchingLabels(token.Labels),
				client.MatchingFields{"type": string(corev1.SecretTypeBootstrapToken)}); err != nil {
				t.Errorf("the operator may not delete its token: %v", err)
			}
			secrets := &corev1.SecretList{}
			if err := admin.List(ctx, secrets, client.InNamespace(tokenNamespace), client.MatchingLabels(token.Labels)); err != nil || len(secrets.Items) != 0 {
				t.Errorf("after the delete: %d Secrets, %v", len(secrets.Items), err)
			}

			// The API server publishes its front-proxy CA in a ConfigMap of kube-system, which
			// whatif's aggregated API reads through Kubernetes' own Role, and no other.
			err = operator.Get(ctx, client.ObjectKey{Namespace: tokenNamespace, Name: frontProxyConfigMap}, &corev1.ConfigMap{})
			if (path.readsFrontProxyCA && err != nil) || (!path.readsFrontProxyCA && !apierrors.IsForbidden(err)) {
				t.Errorf("the operator reading ConfigMap %s/%s: %v; want it read: %t", tokenNamespace, frontProxyConfigMap, err, path.readsFrontProxyCA)
			}
			if err := operator.Get(ctx, client.ObjectKey{Namespace: tokenNamespace, Name: "kube-root-ca.crt"}, &corev1.ConfigMap{}); !apierrors.IsForbidden(err) {
				t.Errorf("the operator reading ConfigMap %s/kube-root-ca.crt: %v, want it forbidden", tokenNamespace, err)
			}
		})
	}
}

// impersonate is a client of the API server acting as a ServiceAccount's user, with the
// groups the API server gives ServiceAccounts.
func impersonate(t *testing.T, config *rest.Config, user string) client.Client {
	t.Helper()
	fields := strings.Split(user, ":")
	if len(fields) != 4 || !slices.Equal(fields[:2], []string{"system", "serviceaccount"}) {
		t.Fatalf("%s is no ServiceAccount's user", user)
	}
	as := rest.CopyConfig(config)
	as.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:serviceaccounts", fmt.Sprintf("system:serviceaccounts:%s", fields[2]), "system:authenticated"}}
	c, err := client.New(as, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
