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

// Package config checks that the kustomize packaging under config/ builds and wires its parts
// together: namespace, names, the webhook certificate and its CA injection into the webhook
// configurations and whatif's APIService.
package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// whatif's APIService, and the binding that lets the operator read the API server's
// front-proxy CA in kube-system.
const (
	explainAPIService = "v1alpha1.explain.karpenter.kakaocloud.com"
	authReader        = "karpenter-kakaocloud-auth-reader"
)

func build(t *testing.T, dir string) resmap.ResMap {
	t.Helper()
	root := filepath.Dir(filepath.Dir(testenv.CRDDirectory()))
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root, dir))
	if err != nil {
		t.Fatalf("kustomize build config/%s: %v", dir, err)
	}
	return m
}

func field(t *testing.T, m resmap.ResMap, kind, name, path string) string {
	t.Helper()
	for _, r := range m.Resources() {
		if r.GetKind() == kind && r.GetName() == name {
			v, err := r.GetFieldValue(path)
			if err != nil {
				t.Fatalf("%s/%s %s: %v", kind, name, path, err)
			}
			return fmt.Sprint(v)
		}
	}
	t.Fatalf("%s/%s not in the build", kind, name)
	return ""
}

func TestDefaultOverlay(t *testing.T) {
	m := build(t, "default")

	var crds []string
	for _, r := range m.Resources() {
		switch {
		case r.GetKind() == "CustomResourceDefinition":
			crds = append(crds, r.GetName())
		case r.GetKind() == "Namespace":
			if r.GetName() != "karpenter-kakaocloud" {
				t.Errorf("namespace %q, want karpenter-kakaocloud", r.GetName())
			}
		case r.GetName() == "karpenter-kakaocloud-bootstrap-tokens" && (r.GetKind() == "Role" || r.GetKind() == "RoleBinding"),
			r.GetName() == authReader && r.GetKind() == "RoleBinding":
			// Bootstrap tokens are Secrets the API server reads in kube-system only; the
			// API server's front-proxy CA is published there.
			if r.GetNamespace() != "kube-system" {
				t.Errorf("%s/%s is in namespace %q, want kube-system", r.GetKind(), r.GetName(), r.GetNamespace())
			}
		case r.GetNamespace() != "" && r.GetNamespace() != "karpenter-kakaocloud":
			t.Errorf("%s/%s is in namespace %q, want karpenter-kakaocloud", r.GetKind(), r.GetName(), r.GetNamespace())
		}
	}
	slices.Sort(crds)
	if want := []string{"capacitybuffers.autoscaling.x-k8s.io", "kcnodeclasses.karpenter.kakaocloud.com", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"}; !slices.Equal(crds, want) {
		t.Errorf("CRDs %v, want %v", crds, want)
	}

	const deploy = "karpenter-kakaocloud-controller-manager"
	checks := []struct{ kind, name, path, want string }{
		// Users find the pods with this label (seed 000).
		{"Deployment", deploy, "spec.template.metadata.labels.app\\.kubernetes\\.io/name", "karpenter-provider-kakaocloud"},
		{"Deployment", deploy, "spec.template.spec.serviceAccountName", "karpenter-kakaocloud-controller-manager"},
		{"Deployment", deploy, "spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem", "true"},
		{"Deployment", deploy, "spec.template.spec.securityContext.runAsNonRoot", "true"},
		{"Deployment", deploy, "spec.template.spec.volumes[0].secret.secretName", "webhook-server-cert"},
		{"Deployment", deploy, "spec.template.spec.containers[0].args[3]", "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs"},
		{"Certificate", "karpenter-kakaocloud-serving-cert", "spec.dnsNames[0]", "karpenter-kakaocloud-webhook-service.karpenter-kakaocloud.svc"},
		{"Certificate", "karpenter-kakaocloud-serving-cert", "spec.issuerRef.name", "karpenter-kakaocloud-selfsigned-issuer"},
		{"ValidatingWebhookConfiguration", "karpenter-kakaocloud-validating-webhook-configuration",
			"metadata.annotations.cert-manager\\.io/inject-ca-from", "karpenter-kakaocloud/karpenter-kakaocloud-serving-cert"},
		{"ValidatingWebhookConfiguration", "karpenter-kakaocloud-validating-webhook-configuration",
			"webhooks[0].clientConfig.service.name", "karpenter-kakaocloud-webhook-service"},
		{"ValidatingWebhookConfiguration", "karpenter-kakaocloud-validating-webhook-configuration",
			"webhooks[0].clientConfig.service.namespace", "karpenter-kakaocloud"},
		{"ClusterRoleBinding", "karpenter-kakaocloud-manager-rolebinding", "roleRef.name", "karpenter-kakaocloud-manager-role"},
		{"RoleBinding", "karpenter-kakaocloud-manager-rolebinding", "roleRef.name", "karpenter-kakaocloud-manager-role"},
		// Its own Secrets and price ConfigMap by name, nothing else of its namespace.
		{"Role", "karpenter-kakaocloud-manager-role", "rules[0].resources", "[configmaps]"},
		{"Role", "karpenter-kakaocloud-manager-role", "rules[0].resourceNames", "[karpenter-kakaocloud-prices]"},
		{"Role", "karpenter-kakaocloud-manager-role", "rules[0].verbs", "[get]"},
		{"Role", "karpenter-kakaocloud-manager-role", "rules[1].resources", "[secrets]"},
		{"Role", "karpenter-kakaocloud-manager-role", "rules[1].resourceNames", "[karpenter-kakaocloud-credentials karpenter-kakaocloud-signing-keys]"},
		{"Role", "karpenter-kakaocloud-manager-role", "rules[1].verbs", "[get]"},
		// Its kube-system writes held to bootstrap tokens, for its ServiceAccount.
		{"ValidatingAdmissionPolicy", "karpenter-kakaocloud-bootstrap-token-secrets", "spec.matchConditions[0].expression",
			"request.userInfo.username == 'system:serviceaccount:karpenter-kakaocloud:karpenter-kakaocloud-controller-manager'"},
		{"ValidatingAdmissionPolicyBinding", "karpenter-kakaocloud-bootstrap-token-secrets", "spec.validationActions", "[Deny]"},
		{"Role", "karpenter-kakaocloud-bootstrap-tokens", "rules[0].verbs", "[create deletecollection]"},
		{"RoleBinding", "karpenter-kakaocloud-bootstrap-tokens", "subjects[0].name", "karpenter-kakaocloud-controller-manager"},
		// whatif's aggregated API: served by the webhook Service with its certificate, and
		// trusting the API server's front proxy by the CA Kubernetes' own Role reads.
		{"APIService", explainAPIService, "spec.group", "explain.karpenter.kakaocloud.com"},
		{"APIService", explainAPIService, "spec.version", "v1alpha1"},
		{"APIService", explainAPIService, "spec.groupPriorityMinimum", "1000"},
		{"APIService", explainAPIService, "spec.versionPriority", "100"},
		{"APIService", explainAPIService, "spec.service.name", "karpenter-kakaocloud-webhook-service"},
		{"APIService", explainAPIService, "spec.service.namespace", "karpenter-kakaocloud"},
		{"APIService", explainAPIService, "spec.service.port", "443"},
		{"APIService", explainAPIService, "metadata.annotations.cert-manager\\.io/inject-ca-from", "karpenter-kakaocloud/karpenter-kakaocloud-serving-cert"},
		{"RoleBinding", authReader, "roleRef.kind", "Role"},
		{"RoleBinding", authReader, "roleRef.name", "extension-apiserver-authentication-reader"},
		{"RoleBinding", authReader, "subjects[0].name", "karpenter-kakaocloud-controller-manager"},
		{"RoleBinding", authReader, "subjects[0].namespace", "karpenter-kakaocloud"},
	}
	for _, c := range checks {
		if got := field(t, m, c.kind, c.name, c.path); got != c.want {
			t.Errorf("%s/%s %s = %q, want %q", c.kind, c.name, c.path, got, c.want)
		}
	}
}

// TestLocalOverlay checks that the local cluster's operator, which runs on the machine and
// whose APIService hack/local-up registers at its address, may read the front-proxy CA, and
// that the overlay registers no APIService of its own.
func TestLocalOverlay(t *testing.T) {
	m := build(t, "overlays/local")
	if got := field(t, m, "RoleBinding", authReader, "roleRef.name"); got != "extension-apiserver-authentication-reader" {
		t.Errorf("RoleBinding %s binds %q", authReader, got)
	}
	for _, r := range m.Resources() {
		if r.GetKind() == "APIService" {
			t.Errorf("APIService %s in the local overlay", r.GetName())
		}
	}
}

func TestOptionalComponentsBuild(t *testing.T) {
	for _, dir := range []string{"prometheus", "network-policy", "samples", "olm", "manifests", "overlays/production", "overlays/monitoring", "overlays/local"} {
		if m := build(t, dir); m.Size() == 0 {
			t.Errorf("config/%s builds to nothing", dir)
		}
	}
}
