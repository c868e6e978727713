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

package preflight_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/preflight"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

// The checks log nothing; controller-runtime's envtest would otherwise warn that no logger is
// set.
func init() { ctrllog.SetLogger(logr.Discard()) }

const (
	namespace      = "karpenter-kakaocloud"
	serviceAccount = "karpenter-kakaocloud-controller-manager"
)

// setup is a cluster and a KakaoCloud emulator as a user has them before the first NodePool:
// the credentials and signing keys Secrets, the operator's RBAC from config/, the bindings that
// let joining nodes ask for certificates, and a KCNodeClass; each spec breaks one of them.
type setup struct {
	kube        client.Client
	kc          *kakaocloud.Client
	credentials kakaocloud.CredentialsProvider
	checker     *preflight.Checker
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	ctx := context.Background()
	kube := test.APIServer(t)
	emu := emulator.New(emulator.Options{})
	server := httptest.NewServer(emu)
	t.Cleanup(server.Close)

	create := func(objects ...client.Object) {
		t.Helper()
		for _, o := range objects {
			if err := kube.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})
	create(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "karpenter-kakaocloud-credentials"},
		StringData: map[string]string{kakaocloud.SecretKeyAccessKeyID: emulator.DefaultAccessKeyID, kakaocloud.SecretKeySecretAccessKey: emulator.DefaultSecretAccessKey},
	}, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "karpenter-kakaocloud-signing-keys"},
		StringData: map[string]string{signing.SecretKeyActiveKeyID: "k1", signing.SecretKeyPrefix + "k1": strings.Repeat("k", 32)},
	})
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: serviceAccount}
	for _, role := range roles(t, "rbac/role.yaml", "rbac-bootstrap/role.yaml") {
		switch role.Kind {
		case "ClusterRole":
			create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, Rules: role.Rules},
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}, Subjects: []rbacv1.Subject{subject}})
		case "Role":
			ns := role.Namespace
			if ns == "system" { // kustomize's placeholder for the operator's namespace
				ns = namespace
			}
			create(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role.Name}, Rules: role.Rules},
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role.Name}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, Subjects: []rbacv1.Subject{subject}})
		}
	}
	// As every install path binds it (OLM by itself): the API server's own Role.
	create(&rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "karpenter-kakaocloud-auth-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
		Subjects:   []rbacv1.Subject{subject},
	})
	for _, clusterRole := range []string{"system:node-bootstrapper", "system:certificates.k8s.io:certificatesigningrequests:nodeclient"} {
		create(&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "karpenter-" + strings.ReplaceAll(clusterRole, ":", "-")},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: bootstrap.TokenGroup}},
		})
	}
	create(&kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}, {Name: "karpenter-subnet-b"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
		},
	})

	credentials := kakaocloud.SecretCredentials{Reader: kube, Secret: client.ObjectKey{Namespace: namespace, Name: "karpenter-kakaocloud-credentials"}}
	kc, err := kakaocloud.New(kakaocloud.Config{
		// As a user's: only IAM and the configuration service are known; the configuration
		// service tells the rest.
		Endpoints:   map[string]string{kakaocloud.ServiceIAM: emu.Endpoints(server.URL)[kakaocloud.ServiceIAM], kakaocloud.ServiceConfig: emu.Endpoints(server.URL)[kakaocloud.ServiceConfig]},
		Credentials: credentials,
		Retry:       kakaocloud.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &setup{kube: kube, kc: kc, credentials: credentials, checker: checker(kube, kc, credentials, "karpenter-demo")}
}

func checker(kube client.Client, kc *kakaocloud.Client, credentials kakaocloud.CredentialsProvider, clusterName string) *preflight.Checker {
	keyring := client.ObjectKey{Namespace: namespace, Name: "karpenter-kakaocloud-signing-keys"}
	return preflight.New(kube, kc, credentials, signing.SecretKeyring{Reader: kube, Secret: keyring},
		client.ObjectKey{Namespace: namespace, Name: serviceAccount}, []client.ObjectKey{{Namespace: namespace, Name: "karpenter-kakaocloud-credentials"}, keyring}, clusterName)
}

// roles reads the Roles and ClusterRoles of files under config/.
func roles(t *testing.T, files ...string) []rbacv1.Role {
	t.Helper()
	var out []rbacv1.Role
	for _, file := range files {
		raw, err := os.ReadFile(filepath.Join("..", "..", "config", file))
		if err != nil {
			t.Fatal(err)
		}
		for doc := range strings.SplitSeq(string(raw), "\n---") {
			var role rbacv1.Role
			if err := yaml.Unmarshal([]byte(doc), &role); err != nil {
				t.Fatal(err)
			}
			if role.Kind == "Role" || role.Kind == "ClusterRole" {
				out = append(out, role)
			}
		}
	}
	return out
}

// failures are the checks that failed, with their messages.
func failures(results []preflight.Result) map[string]string {
	failed := map[string]string{}
	for _, r := range results {
		if r.Err != nil && !r.Warning {
			failed[r.Check] = r.Err.Error()
		}
	}
	return failed
}

func TestPreflightPasses(t *testing.T) {
	s := newSetup(t)
	results := s.checker.Run(context.Background())
	out := preflight.Print(results)
	if preflight.Failed(results) || strings.Contains(out, "warn") {
		t.Fatalf("preflight failed on a cluster with everything in place:\n%s", out)
	}
	for _, want := range []string{
		"ok    token: issued",
		"ok    endpoints: bcs=http://",
		"ok    cluster: karpenter-demo, Kubernetes 1.36.4, Provisioned",
		"ok    KCNodeClass default: Kubernetes 1.36",
		"kr-central-2-a: subnets karpenter-subnet-a,",
		"ok    RBAC: a joining node may have its certificate approved: allowed",
		"ok    RBAC: the operator may read the API server's front-proxy CA (ConfigMap kube-system/extension-apiserver-authentication, for whatif): allowed",
		"ok    signing keys: active key k1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// Each broken input fails its check with what to do.
func TestPreflightFailures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, s *setup)
		check  string
		want   string
		// also are other checks the same break fails.
		also []string
	}{
		{"bad credentials", func(t *testing.T, s *setup) {
			update(t, s.kube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "karpenter-kakaocloud-credentials"}}, func(o client.Object) {
				o.(*corev1.Secret).Data[kakaocloud.SecretKeySecretAccessKey] = []byte("not-the-secret")
			})
		}, "token", "KakaoCloud refused the access key", nil},
		{"missing subnet", func(t *testing.T, s *setup) {
			update(t, s.kube, &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, func(o client.Object) {
				o.(*kcv1.KCNodeClass).Spec.SubnetSelectorTerms = []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet"}}
			})
		}, "KCNodeClass default", "SubnetsReady", nil},
		{"version without images", func(t *testing.T, s *setup) {
			update(t, s.kube, &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, func(o client.Object) {
				o.(*kcv1.KCNodeClass).Spec.Bootstrap.KubernetesVersion = "1.33"
			})
		}, "KCNodeClass default", "ImagesReady", nil},
		{"missing RBAC", func(t *testing.T, s *setup) {
			if err := s.kube.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "karpenter-kakaocloud-bootstrap-tokens"}}); err != nil {
				t.Fatal(err)
			}
		}, "RBAC: the operator may create bootstrap token Secrets in kube-system", "with OLM, apply config/olm-kube-system",
			[]string{"RBAC: the operator may delete spent bootstrap tokens in kube-system"}},
		{"no certificates for joining nodes", func(t *testing.T, s *setup) {
			if err := s.kube.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "karpenter-system-node-bootstrapper"}}); err != nil {
				t.Fatal(err)
			}
		}, "RBAC: a joining node may ask for its certificate", "bind ClusterRole system:node-bootstrapper to Group " + bootstrap.TokenGroup, nil},
		{"no front-proxy CA for whatif", func(t *testing.T, s *setup) {
			if err := s.kube.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "karpenter-kakaocloud-auth-reader"}}); err != nil {
				t.Fatal(err)
			}
		}, "RBAC: the operator may read the API server's front-proxy CA (ConfigMap kube-system/extension-apiserver-authentication, for whatif)", "bind the Role extension-apiserver-authentication-reader in kube-system", nil},
		{"wrong cluster name", func(t *testing.T, s *setup) { s.checker = checker(s.kube, s.kc, s.credentials, "karpenter-dem0") },
			"cluster", `no Kubernetes Engine cluster named "karpenter-dem0"`, nil},
		{"no signing keys", func(t *testing.T, s *setup) {
			if err := s.kube.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "karpenter-kakaocloud-signing-keys"}}); err != nil {
				t.Fatal(err)
			}
		}, "signing keys", "create it with activeKeyID", nil},
		{"operator reads another credentials Secret than its Role names", func(t *testing.T, s *setup) {
			s.checker.Secrets[0].Name = "iam-key"
		}, "RBAC: the operator may read Secret " + namespace + "/iam-key", "install the operator's RBAC", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSetup(t)
			tc.break_(t, s)
			results := s.checker.Run(ctx)
			failed := failures(results)
			// The API server's RBAC authorizer sees a deleted binding a moment later.
			for deadline := time.Now().Add(10 * time.Second); failed[tc.check] == "" && time.Now().Before(deadline); {
				time.Sleep(200 * time.Millisecond)
				results = s.checker.Run(ctx)
				failed = failures(results)
			}
			if !strings.Contains(failed[tc.check], tc.want) {
				t.Errorf("check %q: %q, want a failure saying %q:\n%s", tc.check, failed[tc.check], tc.want, preflight.Print(results))
			}
			for _, check := range tc.also {
				delete(failed, check)
			}
			if len(failed) != 1 {
				t.Errorf("%d checks failed, want only %q and %v:\n%s", len(failed), tc.check, tc.also, preflight.Print(results))
			}
		})
	}
}

func update(t *testing.T, kube client.Client, object client.Object, mutate func(client.Object)) {
	t.Helper()
	ctx := context.Background()
	if err := kube.Get(ctx, client.ObjectKeyFromObject(object), object); err != nil {
		t.Fatal(err)
	}
	mutate(object)
	if err := kube.Update(ctx, object); err != nil {
		t.Fatal(err)
	}
}
