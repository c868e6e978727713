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

package explain

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// authority is a CA that signs client certificates.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newAuthority(t *testing.T, name string) *authority {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &authority{cert: cert, key: key}
}

func (a *authority) pem() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.cert.Raw})
}

// client signs a client certificate of commonName.
func (a *authority) client(t *testing.T, commonName string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: commonName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, a.cert, &key.PublicKey, a.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestAggregatedAPI serves whatif as the operator does, behind a real API server's front-proxy
// configuration and RBAC: only the API server's front-proxy certificate may name a user, and
// only a user RBAC lets create whatifs gets an answer.
func TestAggregatedAPI(t *testing.T) {
	frontProxyCA, rogueCA := newAuthority(t, "front-proxy-ca"), newAuthority(t, "rogue-ca")
	caFile := filepath.Join(t.TempDir(), "front-proxy-ca.crt")
	if err := os.WriteFile(caFile, frontProxyCA.pem(), 0o600); err != nil {
		t.Fatal(err)
	}
	environment := &envtest.Environment{BinaryAssetsDirectory: testenv.BinaryAssetsDirectory()}
	apiServer := environment.ControlPlane.GetAPIServer().Configure()
	apiServer.Set("requestheader-client-ca-file", caFile)
	apiServer.Set("requestheader-allowed-names", "front-proxy-client")
	apiServer.Set("requestheader-username-headers", "X-Remote-User")
	apiServer.Set("requestheader-group-headers", "X-Remote-Group")
	apiServer.Set("requestheader-extra-headers-prefix", "X-Remote-Extra-")
	config, err := environment.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() { _ = environment.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kube, err := client.New(config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The plugin's reader role as far as whatif goes, bound to a user and to a group.
	if err := kube.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "whatif"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{Group}, Resources: []string{Resource}, Verbs: []string{"create"}},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := kube.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "whatif"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "whatif"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "reader"}, {APIGroup: rbacv1.GroupName, Kind: "Group", Name: "platform-team"}},
	}); err != nil {
		t.Fatal(err)
	}

	np := pool("default", nil)
	a, nodeA := launched("a", np, typeOf(t, "m2a", "8"), zoneA)
	frontProxy, err := NewFrontProxy(kubernetes.NewForConfigOrDie(config))
	if err != nil {
		t.Fatal(err)
	}
	handler := &Handler{Explainer: explainer(workers(), np, a, nodeA), Authenticator: frontProxy, Reviewer: kube}
	mux := http.NewServeMux()
	mux.Handle(Path, handler)
	mux.HandleFunc(GroupVersionPath, Discovery)
	server := httptest.NewUnstartedServer(mux)
	server.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	RequestClientCertificate(server.TLS)
	server.StartTLS()
	t.Cleanup(server.Close)

	upgraded := workers()
	upgraded.TypeMeta = metav1.TypeMeta{APIVersion: kcv1.GroupVersion.String(), Kind: "KCNodeClass"}
	upgraded.Spec.Bootstrap.KubernetesVersion = "1.36"
	manifest, err := yaml.Marshal(upgraded)
	if err != nil {
		t.Fatal(err)
	}
	proxyCert := frontProxyCA.client(t, "front-proxy-client")
	ask := func(method string, certificate *tls.Certificate, header http.Header, body []byte) (int, []byte) {
		t.Helper()
		transport := server.Client().Transport.(*http.Transport).Clone()
		if certificate != nil {
			transport.TLSClientConfig.Certificates = []tls.Certificate{*certificate}
		}
		request, err := http.NewRequestWithContext(ctx, method, server.URL+Path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		maps.Copy(request.Header, header)
		response, err := (&http.Client{Transport: transport}).Do(request)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = response.Body.Close() }()
		var answer bytes.Buffer
		_, _ = answer.ReadFrom(response.Body)
		return response.StatusCode, answer.Bytes()
	}
	user := func(name string, groups ...string) http.Header {
		return http.Header{"X-Remote-User": {name}, "X-Remote-Group": groups}
	}

	// Until the ConfigMap is read, nobody is taken, and the answer says what is missing.
	if code, body := ask(http.MethodPost, &proxyCert, user("reader"), manifest); code != http.StatusServiceUnavailable ||
		!strings.Contains(string(body), "extension-apiserver-authentication") {
		t.Errorf("before the front-proxy CA is read: %d %s, want 503 naming the ConfigMap", code, body)
	}
	go func() { _ = frontProxy.Start(ctx) }()
	for deadline := time.Now().Add(time.Minute); !frontProxy.Ready(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the front-proxy configuration was not read from the API server in a minute")
		}
	}

	rogueCert, otherNameCert := rogueCA.client(t, "front-proxy-client"), frontProxyCA.client(t, "someone-else")
	withCredential := user("reader")
	withCredential.Set("Authorization", "Bearer a-token")
	for _, c := range []struct {
		name        string
		method      string
		certificate *tls.Certificate
		header      http.Header
		body        []byte
		code        int
		says        string
	}{
		{"no client certificate", http.MethodPost, nil, user("reader"), manifest, http.StatusUnauthorized, "not the API server"},
		{"a certificate of another CA", http.MethodPost, &rogueCert, user("reader"), manifest, http.StatusUnauthorized, "not the API server"},
		{"a certificate of a name not allowed", http.MethodPost, &otherNameCert, user("reader"), manifest, http.StatusUnauthorized, "not the API server"},
		{"a user RBAC refuses", http.MethodPost, &proxyCert, user("stranger"), manifest, http.StatusForbidden, "stranger may not create whatifs." + Group},
		{"a credential passed on", http.MethodPost, &proxyCert, withCredential, manifest, http.StatusBadRequest, "takes no credential (header Authorization)"},
		{"not a post", http.MethodGet, &proxyCert, user("reader"), nil, http.StatusMethodNotAllowed, "post the manifest"},
		{"a kind whatif does not take", http.MethodPost, &proxyCert, user("reader"), []byte("kind: Deployment\napiVersion: apps/v1\n"), http.StatusBadRequest, "not apps/v1 Deployment"},
	} {
		code, body := ask(c.method, c.certificate, c.header, c.body)
		if err := ErrorOf(code, body); code != c.code || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %d %v, want %d saying %q", c.name, code, err, c.code, c.says)
		}
	}
	for _, asker := range []http.Header{user("reader"), user("member", "platform-team")} {
		code, body := ask(http.MethodPost, &proxyCert, asker, manifest)
		answer := &WhatIfAnswer{}
		if err := json.Unmarshal(body, answer); code != http.StatusOK || err != nil || len(answer.Drifts) != 1 || answer.Drifts[0].NodeClaim != "a" {
			t.Errorf("%v: %d %s, want a's drift", asker, code, body)
		}
	}

	// The API server's discovery of the group.
	response, err := server.Client().Get(server.URL + GroupVersionPath)
	if err != nil {
		t.Fatal(err)
	}
	resources := &metav1.APIResourceList{}
	if err := json.NewDecoder(response.Body).Decode(resources); err != nil || resources.GroupVersion != Group+"/"+Version ||
		len(resources.APIResources) != 1 || resources.APIResources[0].Name != Resource || !slices.Equal(resources.APIResources[0].Verbs, []string{"create"}) {
		t.Errorf("discovery: %+v (%v), want %s with %s to create", resources, err, Group+"/"+Version, Resource)
	}
	_ = response.Body.Close()

	// A flood of questions is refused before its users are reviewed.
	handler = &Handler{Explainer: handler.Explainer, Authenticator: frontProxy, Reviewer: kube}
	mux = http.NewServeMux()
	mux.Handle(Path, handler)
	server.Config.Handler = mux
	refused := 0
	for range 3 * reviewBurst {
		if code, _ := ask(http.MethodPost, &proxyCert, user("stranger"), manifest); code == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused < reviewBurst {
		t.Errorf("%d of %d questions in a burst refused before their review, want at least %d", refused, 3*reviewBurst, reviewBurst)
	}
}
