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
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// operatorNamespace is where every install path puts the controller.
const operatorNamespace = "karpenter-kakaocloud"

// kustomizations are the kustomize install paths users apply.
var kustomizations = []string{"config/default", "config/overlays/production", "config/overlays/monitoring", "config/overlays/local", "config/olm"}

// rendered is what an install path creates: the RBAC rules with where they apply, and the pod
// templates.
type rendered struct {
	rules []scopedRule
	pods  map[string]corev1.PodSpec
}

// scopedRule is an RBAC rule and the namespace it applies in ("" for cluster-wide).
type scopedRule struct {
	rbacv1.PolicyRule
	role, namespace string
}

// TestEveryInstallPathIsLeastPrivilegeAndHardened checks, on the output of every kustomize
// path, of the OLM bundle and of the Helm chart, that no rule uses a wildcard, that Secrets are
// created and deleted (by collection: spent bootstrap tokens) only in kube-system (cluster-wide
// on the OLM path, which cannot make Roles elsewhere, in a rule with those two verbs alone)
// and read only in the operator's namespace, that the finalizers of NodeClaims and NodePools
// may be updated (nodes and NodeClaims are owned with blockOwnerDeletion, which OpenShift's
// owner-reference admission checks), and that the controller runs non-root with a read-only
// root filesystem, no privilege escalation, no capabilities and the runtime's seccomp profile.
func TestEveryInstallPathIsLeastPrivilegeAndHardened(t *testing.T) {
	paths := map[string]rendered{}
	for _, k := range kustomizations {
		paths[k] = renderKustomization(t, k)
	}
	paths["bundle"] = renderBundle(t)
	paths["chart"] = renderChart(t)
	for name, r := range paths {
		olm := name == "bundle" || name == "config/olm"
		t.Run(name, func(t *testing.T) {
			if len(r.rules) == 0 {
				t.Fatal("no RBAC rules")
			}
			finalizers := map[string]bool{}
			for _, rule := range r.rules {
				if slices.Contains(rule.APIGroups, "karpenter.sh") && slices.Contains(rule.Verbs, "update") {
					for _, resource := range rule.Resources {
						finalizers[resource] = true
					}
				}
				for _, field := range [][]string{rule.APIGroups, rule.Resources, rule.Verbs, rule.NonResourceURLs} {
					if slices.Contains(field, "*") {
						t.Errorf("%s has a wildcard: %+v", rule.role, rule.PolicyRule)
					}
				}
				if !grants(rule, "secrets") {
					continue
				}
				for _, verb := range rule.Verbs {
					switch {
					case (verb == "create" || verb == "deletecollection") && rule.namespace == "kube-system":
					case (verb == "create" || verb == "deletecollection") && olm && rule.namespace == "" &&
						len(rule.Verbs) == 2 && slices.Contains(rule.Verbs, "create") && slices.Contains(rule.Verbs, "deletecollection"):
					case slices.Contains([]string{"get", "list", "watch"}, verb) && rule.namespace == operatorNamespace:
					default:
						t.Errorf("%s grants %s on secrets in %q", rule.role, verb, rule.namespace)
					}
				}
			}
			for _, resource := range []string{"nodeclaims/finalizers", "nodepools/finalizers"} {
				if !finalizers[resource] {
					t.Errorf("no rule grants update on karpenter.sh %s", resource)
				}
			}
			// The local overlay installs no Deployment: the manager runs on the machine.
			if len(r.pods) == 0 && name != "config/overlays/local" {
				t.Fatal("no Deployment")
			}
			for deployment, pod := range r.pods {
				checkHardened(t, deployment, pod)
			}
		})
	}
}

func grants(rule scopedRule, resource string) bool {
	return slices.Contains(rule.APIGroups, "") && slices.Contains(rule.Resources, resource)
}

func checkHardened(t *testing.T, deployment string, pod corev1.PodSpec) {
	t.Helper()
	security := pod.SecurityContext
	if security == nil || security.RunAsNonRoot == nil || !*security.RunAsNonRoot {
		t.Errorf("%s: the pod does not require a non-root user", deployment)
	}
	if security == nil || security.SeccompProfile == nil || security.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: the pod's seccomp profile is not RuntimeDefault", deployment)
	}
	for _, c := range pod.Containers {
		s := c.SecurityContext
		switch {
		case s == nil:
			t.Errorf("%s/%s: no security context", deployment, c.Name)
		case s.ReadOnlyRootFilesystem == nil || !*s.ReadOnlyRootFilesystem:
			t.Errorf("%s/%s: the root filesystem is writable", deployment, c.Name)
		case s.AllowPrivilegeEscalation == nil || *s.AllowPrivilegeEscalation:
			t.Errorf("%s/%s: privilege escalation is allowed", deployment, c.Name)
		case s.Privileged != nil && *s.Privileged:
			t.Errorf("%s/%s: privileged", deployment, c.Name)
		case s.Capabilities == nil || !slices.Contains(s.Capabilities.Drop, "ALL") || len(s.Capabilities.Add) > 0:
			t.Errorf("%s/%s: capabilities are not all dropped: %+v", deployment, c.Name, s.Capabilities)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
			t.Errorf("%s/%s: no CPU or memory request", deployment, c.Name)
		}
	}
}

// renderKustomization builds a kustomization with the project's kustomize.
func renderKustomization(t *testing.T, path string) rendered {
	t.Helper()
	kustomize, err := filepath.Abs("../../bin/kustomize-v5.8.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kustomize); err != nil {
		t.Skip("kustomize is not built: run make kustomize")
	}
	out, err := exec.Command(kustomize, "build", filepath.Join("../..", path)).Output()
	if err != nil {
		t.Fatalf("kustomize build %s: %v", path, err)
	}
	return parseObjects(t, out)
}

func parseObjects(t *testing.T, out []byte) rendered {
	t.Helper()
	r := rendered{pods: map[string]corev1.PodSpec{}}
	roles := map[string][]rbacv1.PolicyRule{}
	var bindings []rbacv1.RoleBinding
	var clusterBindings []rbacv1.ClusterRoleBinding
	for doc := range bytes.SplitSeq(out, []byte("\n---\n")) {
		o := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &o.Object); err != nil || o.Object == nil {
			continue
		}
		switch o.GetKind() {
		case "ClusterRole", "Role":
			var role rbacv1.ClusterRole
			fromUnstructured(t, o, &role)
			roles[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = role.Rules
		case "RoleBinding":
			var b rbacv1.RoleBinding
			fromUnstructured(t, o, &b)
			bindings = append(bindings, b)
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			fromUnstructured(t, o, &b)
			clusterBindings = append(clusterBindings, b)
		case "Deployment":
			var spec struct {
				Spec struct {
					Template corev1.PodTemplateSpec `json:"template"`
				} `json:"spec"`
			}
			fromUnstructured(t, o, &spec)
			r.pods[o.GetName()] = spec.Spec.Template.Spec
		}
	}
	// Rules count where they are bound: a ClusterRole bound by a RoleBinding applies in that
	// namespace only. Roles bound to nobody grant nothing.
	for _, b := range clusterBindings {
		for _, rule := range roles["ClusterRole//"+b.RoleRef.Name] {
			r.rules = append(r.rules, scopedRule{PolicyRule: rule, role: "ClusterRole " + b.RoleRef.Name})
		}
	}
	for _, b := range bindings {
		key := "Role/" + b.Namespace + "/" + b.RoleRef.Name
		if b.RoleRef.Kind == "ClusterRole" {
			key = "ClusterRole//" + b.RoleRef.Name
		}
		for _, rule := range roles[key] {
			r.rules = append(r.rules, scopedRule{PolicyRule: rule, role: b.RoleRef.Kind + " " + b.RoleRef.Name, namespace: b.Namespace})
		}
	}
	return r
}

// renderChart renders the Helm chart with the monitoring objects on, as helm template would.
func renderChart(t *testing.T) rendered {
	t.Helper()
	chart := mustRender(t, []string{"serviceMonitor.enabled=true", "prometheusRule.enabled=true"})
	var out bytes.Buffer
	for _, o := range chart.Objects {
		out.Write(o.Document)
		out.WriteString("\n---\n")
	}
	return parseObjects(t, out.Bytes())
}

// renderBundle reads what OLM would create from the bundle: clusterPermissions cluster-wide,
// permissions in the install namespace, and the deployments.
func renderBundle(t *testing.T) rendered {
	t.Helper()
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		t.Fatalf("loading the bundle (run make bundle): %v", err)
	}
	r := rendered{pods: map[string]corev1.PodSpec{}}
	install := bundle.CSV.Spec.InstallStrategy.StrategySpec
	for _, p := range install.ClusterPermissions {
		for _, rule := range p.Rules {
			r.rules = append(r.rules, scopedRule{PolicyRule: rule, role: "clusterPermissions"})
		}
	}
	for _, p := range install.Permissions {
		for _, rule := range p.Rules {
			r.rules = append(r.rules, scopedRule{PolicyRule: rule, role: "permissions", namespace: operatorNamespace})
		}
	}
	for _, d := range install.DeploymentSpecs {
		r.pods[d.Name] = d.Spec.Template.Spec
	}
	return r
}

func fromUnstructured(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}
