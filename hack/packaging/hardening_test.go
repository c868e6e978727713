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
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// operatorNamespace is where every install path puts the controller.
const operatorNamespace = "karpenter-kakaocloud"

// kustomizations are the kustomize install paths users apply.
var kustomizations = []string{"config/default", "config/overlays/production", "config/overlays/monitoring", "config/overlays/local", "config/olm"}

// olmKubeSystem is the step a cluster admin takes with an OLM install: what the bundle cannot
// carry.
const olmKubeSystem = "config/olm-kube-system"

// rendered is what an install path creates: the RBAC rules with where they apply, the pod
// templates, and every object.
type rendered struct {
	rules   []scopedRule
	pods    map[string]corev1.PodSpec
	objects []*unstructured.Unstructured
	// byOLM is set for what OLM installs from: OLM issues the serving certificate, and makes
	// from the CSV the Service and APIService of whatif's aggregated API with the bindings an
	// aggregated API server needs (in kube-system, to extension-apiserver-authentication-reader).
	byOLM bool
}

// scopedRule is an RBAC rule and the namespace it applies in ("" for cluster-wide).
type scopedRule struct {
	rbacv1.PolicyRule
	role, namespace string
}

// secretWrites are the verbs that change Secrets.
var secretWrites = []string{"create", "update", "patch", "delete", "deletecollection"}

// TestEveryInstallPathIsLeastPrivilegeAndHardened checks the output of every kustomize path,
// of the OLM bundle with its required kube-system step, and of the Helm chart:
//   - no rule uses a wildcard;
//   - no ClusterRole grants anything on Secrets, and Secrets are written only in kube-system
//     (bootstrap tokens), read only by name (Kubernetes authorizes list and watch with
//     resourceNames only for a metadata.name field selector);
//   - an admission policy holds the controller's Secret writes in kube-system to bootstrap
//     tokens, for the user the kube-system Role is bound to;
//   - in kube-system, only Secrets are written, and the only other binding there is of the
//     operator's ServiceAccount to Kubernetes' Role extension-apiserver-authentication-reader
//     (whatif's aggregated API reads the front-proxy CA), which OLM makes itself;
//   - tokens are reviewed by one rule, the metrics endpoint's (whatif's users come
//     authenticated by the API server);
//   - kubectl karpenter's reader role may create whatifs and nothing on webhook configurations,
//     and no role proxies to a Service (whatif asks through the APIService);
//   - the APIService of whatif is served by the webhooks' Service and certificate;
//   - no role aggregates to edit (a KCNodeClass's userData runs as root on new nodes);
//   - Leases are created, and otherwise touched only by name;
//   - the finalizers of NodeClaims and NodePools may be updated (nodes and NodeClaims are owned
//     with blockOwnerDeletion, which OpenShift's owner-reference admission checks);
//   - the chart has a PodDisruptionBudget and refuses kube-system by default;
//   - the controller runs non-root with a read-only root filesystem, no privilege escalation,
//     no capabilities and the runtime's seccomp profile.
func TestEveryInstallPathIsLeastPrivilegeAndHardened(t *testing.T) {
	paths := map[string]rendered{}
	for _, path := range append(slices.Clone(kustomizations), "bundle", "chart") {
		paths[path] = renderPath(t, path)
	}
	for _, olm := range []string{"bundle", "config/olm"} {
		paths[olm] = paths[olm].with(renderKustomization(t, olmKubeSystem))
	}
	for name, r := range paths {
		t.Run(name, func(t *testing.T) {
			if len(r.rules) == 0 {
				t.Fatal("no RBAC rules")
			}
			for _, problem := range slices.Concat(leastPrivilegeProblems(r), aggregatedAPIProblems(r)) {
				t.Error(problem)
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
	t.Run("chart defaults", func(t *testing.T) {
		if len(paths["chart"].ofKind("PodDisruptionBudget")) == 0 {
			t.Error("the chart renders no PodDisruptionBudget by default")
		}
		values := parseSettings(t, []string{"controller.clusterName=" + testClusterName})
		if _, err := renderValuesIn(t, tokenNamespace, values); err == nil {
			t.Error("the chart installs into kube-system by default")
		}
	})
}

// TestLeastPrivilegeCatchesEachExcess puts back, one at a time into the chart's output, each
// excess the install paths had or could have, and expects it found.
func TestLeastPrivilegeCatchesEachExcess(t *testing.T) {
	secrets := func(namespace string, verbs ...string) scopedRule {
		return scopedRule{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: verbs}, role: "Role excess", namespace: namespace}
	}
	authReader := func(r rendered) *unstructured.Unstructured {
		for _, o := range r.ofKind("RoleBinding") {
			if name, _, _ := unstructured.NestedString(o.Object, "roleRef", "name"); name == authReaderRole {
				return o
			}
		}
		t.Fatalf("no RoleBinding to %s", authReaderRole)
		return nil
	}
	// editPluginReader edits the rules of the plugin's reader ClusterRole.
	editPluginReader := func(r *rendered, edit func(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule) {
		r.editObjects("ClusterRole", func(o *unstructured.Unstructured) {
			if !strings.Contains(o.GetName(), "plugin-reader") {
				return
			}
			var role rbacv1.ClusterRole
			fromUnstructured(t, o, &role)
			role.Rules = edit(role.Rules)
			o.Object = toUnstructured(t, &role)
		})
	}
	for name, c := range map[string]struct {
		change func(r *rendered)
		want   string
	}{
		"Secret writes cluster-wide (OLM's clusterPermissions)": {func(r *rendered) { r.rules = append(r.rules, secrets("", "create", "deletecollection")) }, "on Secrets cluster-wide"},
		"every Secret of its namespace listed":                  {func(r *rendered) { r.rules = append(r.rules, secrets(operatorNamespace, "get", "list", "watch")) }, "grants list on every Secret"},
		"Secret writes in its namespace":                        {func(r *rendered) { r.rules = append(r.rules, secrets(operatorNamespace, "create")) }, "Secrets are written only in kube-system"},
		"no admission policy":                                   {func(r *rendered) { r.removeObjects("ValidatingAdmissionPolicy") }, "no ValidatingAdmissionPolicy"},
		"editor role aggregated to edit": {func(r *rendered) {
			role := &unstructured.Unstructured{}
			role.SetKind("ClusterRole")
			role.SetName("nodepool-editor-role")
			role.SetLabels(map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true"})
			r.objects = append(slices.Clone(r.objects), role)
		}, "aggregates to edit"},
		"every Lease updated": {func(r *rendered) {
			r.rules = append(r.rules, scopedRule{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create", "update"}}, role: "Role excess", namespace: operatorNamespace})
		}, "grants update on every Lease"},
		"whatif's users' tokens reviewed again": {func(r *rendered) {
			r.rules = append(r.rules, scopedRule{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}}, role: "ClusterRole karpenter-provider-kakaocloud-manager"})
		}, "only the metrics endpoint reviews tokens"},
		"no binding to read the front-proxy CA": {func(r *rendered) {
			binding := authReader(*r)
			r.objects = slices.DeleteFunc(slices.Clone(r.objects), func(o *unstructured.Unstructured) bool { return o == binding })
		}, "is not bound to Role " + authReaderRole},
		"the front-proxy CA read through a ClusterRole": {func(r *rendered) {
			name := authReader(*r).GetName()
			r.editObjects("RoleBinding", func(o *unstructured.Unstructured) {
				if o.GetName() == name {
					_ = unstructured.SetNestedField(o.Object, "ClusterRole", "roleRef", "kind")
				}
			})
		}, "binds ClusterRole " + authReaderRole + " in kube-system"},
		"another role bound in kube-system": {func(r *rendered) {
			binding := authReader(*r).DeepCopy()
			binding.SetName("excess")
			_ = unstructured.SetNestedField(binding.Object, "system:controller:bootstrap-signer", "roleRef", "name")
			r.objects = append(slices.Clone(r.objects), binding)
		}, "binds Role system:controller:bootstrap-signer in kube-system"},
		"ConfigMaps read in kube-system": {func(r *rendered) {
			r.rules = append(r.rules, scopedRule{PolicyRule: rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}, role: "Role excess", namespace: tokenNamespace})
		}, "in kube-system; there the operator only writes bootstrap tokens"},
		"the plugin's proxy role (whatif before its APIService)": {func(r *rendered) {
			role := &rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
				ObjectMeta: metav1.ObjectMeta{Name: "plugin-proxy", Namespace: operatorNamespace}, Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{""}, Resources: []string{"services/proxy"}, ResourceNames: []string{"https:karpenter-provider-kakaocloud-webhook:443"}, Verbs: []string{"create"}},
				}}
			r.objects = append(slices.Clone(r.objects), &unstructured.Unstructured{Object: toUnstructured(t, role)})
		}, "on services/proxy"},
		"the plugin reader on webhook configurations": {func(r *rendered) {
			editPluginReader(r, func(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
				return append(rules, rbacv1.PolicyRule{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, Verbs: []string{"get", "list"}})
			})
		}, "whatif asks the APIService, not the webhooks"},
		"the plugin reader posting to the operator's URL": {func(r *rendered) {
			editPluginReader(r, func(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
				return append(rules, rbacv1.PolicyRule{NonResourceURLs: []string{"/explain/whatif"}, Verbs: []string{"post"}})
			})
		}, "whatif is a resource of the aggregated API"},
		"the plugin reader without whatifs": {func(r *rendered) {
			editPluginReader(r, func(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
				return slices.DeleteFunc(rules, func(rule rbacv1.PolicyRule) bool { return slices.Contains(rule.Resources, explainResource) })
			})
		}, "may not create whatifs"},
	} {
		t.Run(name, func(t *testing.T) {
			r := renderChart(t)
			if problems := leastPrivilegeProblems(r); len(problems) != 0 {
				t.Fatalf("the chart as it is: %v", problems)
			}
			c.change(&r)
			problems := leastPrivilegeProblems(r)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, c.want) }) {
				t.Errorf("problems %q, want one saying %q", problems, c.want)
			}
		})
	}
}

// TestLeastPrivilegeLeavesOLMItsAuthReaderBinding puts back, into an OLM install's required
// kube-system step, the binding to extension-apiserver-authentication-reader that OLM makes
// itself for the CSV's APIService, and expects it found.
func TestLeastPrivilegeLeavesOLMItsAuthReaderBinding(t *testing.T) {
	r := renderPath(t, "bundle").with(renderKustomization(t, olmKubeSystem))
	if problems := leastPrivilegeProblems(r); len(problems) != 0 {
		t.Fatalf("the bundle with %s as it is: %v", olmKubeSystem, problems)
	}
	r.objects = append(slices.Clone(r.objects), slices.DeleteFunc(renderKustomization(t, "config/rbac-bootstrap").ofKind("RoleBinding"), func(o *unstructured.Unstructured) bool {
		name, _, _ := unstructured.NestedString(o.Object, "roleRef", "name")
		return name != authReaderRole
	})...)
	want := "OLM makes that binding itself"
	if problems := leastPrivilegeProblems(r); !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) }) {
		t.Errorf("problems %q, want one saying %q", problems, want)
	}
}

// leastPrivilegeProblems lists what an install path grants beyond what the controller needs.
func leastPrivilegeProblems(r rendered) []string {
	var problems []string
	finalizers := map[string]bool{}
	var tokenReviews []string
	for _, rule := range r.rules {
		if slices.Contains(rule.APIGroups, "authentication.k8s.io") && slices.Contains(rule.Resources, "tokenreviews") {
			tokenReviews = append(tokenReviews, rule.role)
		}
		if slices.Contains(rule.APIGroups, "karpenter.sh") && slices.Contains(rule.Verbs, "update") {
			for _, resource := range rule.Resources {
				finalizers[resource] = true
			}
		}
		for _, field := range [][]string{rule.APIGroups, rule.Resources, rule.Verbs, rule.ResourceNames, rule.NonResourceURLs} {
			if slices.Contains(field, "*") {
				problems = append(problems, fmt.Sprintf("%s has a wildcard: %+v", rule.role, rule.PolicyRule))
			}
		}
		if slices.Contains(rule.APIGroups, "coordination.k8s.io") && slices.Contains(rule.Resources, "leases") && len(rule.ResourceNames) == 0 {
			for _, verb := range rule.Verbs {
				if verb != "create" {
					problems = append(problems, fmt.Sprintf("%s grants %s on every Lease of %q; only create cannot be held to the Lease's name", rule.role, verb, rule.namespace))
				}
			}
		}
		if !grants(rule, "secrets") {
			continue
		}
		for _, verb := range rule.Verbs {
			switch {
			case rule.namespace == "":
				problems = append(problems, fmt.Sprintf("%s grants %s on Secrets cluster-wide", rule.role, verb))
			case slices.Contains(secretWrites, verb) && rule.namespace != tokenNamespace:
				problems = append(problems, fmt.Sprintf("%s grants %s on Secrets in %q; Secrets are written only in kube-system", rule.role, verb, rule.namespace))
			case slices.Contains([]string{"get", "list", "watch"}, verb) && len(rule.ResourceNames) == 0:
				problems = append(problems, fmt.Sprintf("%s grants %s on every Secret of %q; the controller reads its Secrets by name", rule.role, verb, rule.namespace))
			}
		}
	}
	// The metrics endpoint authenticates its scrapers by TokenReview: one rule, the metrics
	// auth role's. whatif once reviewed its users' tokens too.
	if len(tokenReviews) > 1 {
		problems = append(problems, fmt.Sprintf("tokenreviews are granted by %d rules (%v); only the metrics endpoint reviews tokens, whatif's users come authenticated by the API server", len(tokenReviews), tokenReviews))
	}
	for _, resource := range []string{"nodeclaims/finalizers", "nodepools/finalizers"} {
		if !finalizers[resource] {
			problems = append(problems, "no rule grants update on karpenter.sh "+resource)
		}
	}
	for _, role := range r.ofKind("ClusterRole") {
		if role.GetLabels()["rbac.authorization.k8s.io/aggregate-to-edit"] == "true" {
			problems = append(problems, fmt.Sprintf("ClusterRole %s aggregates to edit; as upstream Karpenter's, editor roles aggregate to admin", role.GetName()))
		}
	}
	return slices.Concat(problems, tokenPolicyProblems(r), kubeSystemProblems(r), pluginRoleProblems(r))
}

// authReaderRole is Kubernetes' own Role in kube-system that reads the API server's
// front-proxy configuration (the ConfigMap extension-apiserver-authentication, by name), which
// every aggregated API server needs.
const authReaderRole = "extension-apiserver-authentication-reader"

// kubeSystemProblems checks what a path grants in kube-system: rules on Secrets alone (the
// bootstrap tokens, whose verbs leastPrivilegeProblems checks), and bindings of the path's own
// Roles and of authReaderRole, to which the operator's ServiceAccount must be bound, by the
// path or, for the CSV's APIService, by OLM.
func kubeSystemProblems(r rendered) []string {
	var problems []string
	for _, rule := range r.rules {
		if rule.namespace == tokenNamespace && (!slices.Equal(rule.APIGroups, []string{""}) || !slices.Equal(rule.Resources, []string{"secrets"})) {
			problems = append(problems, fmt.Sprintf("%s grants %v on %v of %v in kube-system; there the operator only writes bootstrap tokens", rule.role, rule.Verbs, rule.Resources, rule.APIGroups))
		}
	}
	own := map[string]bool{}
	for _, role := range r.ofKind("Role") {
		if role.GetNamespace() == tokenNamespace {
			own[role.GetName()] = true
		}
	}
	readers := map[string]bool{}
	for _, binding := range r.bindingsIn(tokenNamespace) {
		switch {
		case binding.RoleRef.Kind == "Role" && binding.RoleRef.Name == authReaderRole && r.byOLM:
			problems = append(problems, fmt.Sprintf("RoleBinding %s binds Role %s in kube-system; OLM makes that binding itself for the CSV's APIService", binding.Name, authReaderRole))
		case binding.RoleRef.Kind == "Role" && binding.RoleRef.Name == authReaderRole:
			for _, user := range serviceAccountUsers(binding.Subjects) {
				readers[user] = true
			}
		case binding.RoleRef.Kind != "Role" || !own[binding.RoleRef.Name]:
			problems = append(problems, fmt.Sprintf("RoleBinding %s binds %s %s in kube-system; there only the path's own Role and Role %s are bound", binding.Name, binding.RoleRef.Kind, binding.RoleRef.Name, authReaderRole))
		}
	}
	if r.byOLM {
		return problems
	}
	for _, user := range r.tokenWriters() {
		if !readers[user] {
			problems = append(problems, fmt.Sprintf("%s is not bound to Role %s in kube-system: whatif's aggregated API cannot read the API server's front-proxy CA", user, authReaderRole))
		}
	}
	return problems
}

// pluginRoleProblems checks kubectl karpenter's roles: its reader ClusterRole may create
// whatifs, which is what the API server authorizes whatif by, and nothing else than reading;
// and no role of the path proxies to a Service, since whatif asks through the APIService.
func pluginRoleProblems(r rendered) []string {
	var problems []string
	readers := 0
	for _, kind := range []string{"ClusterRole", "Role"} {
		for _, object := range r.ofKind(kind) {
			var role rbacv1.ClusterRole // a Role has the same fields
			if runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &role) != nil {
				continue
			}
			for _, rule := range role.Rules {
				if slices.Contains(rule.Resources, "services/proxy") {
					problems = append(problems, fmt.Sprintf("%s %s grants %v on services/proxy; whatif asks the operator through its APIService", kind, role.Name, rule.Verbs))
				}
			}
			if kind == "ClusterRole" && strings.Contains(role.Name, "plugin-reader") {
				readers++
				problems = append(problems, pluginReaderProblems(role)...)
			}
		}
	}
	if readers != 1 {
		problems = append(problems, fmt.Sprintf("%d plugin reader ClusterRoles, want the one kubectl karpenter's users are bound to", readers))
	}
	return problems
}

// pluginReaderProblems checks the reader ClusterRole: create on whatifs, and neither webhook
// configurations (whatif no longer looks for the operator's webhooks) nor non-resource URLs
// (whatif was a post to /explain/whatif).
func pluginReaderProblems(role rbacv1.ClusterRole) []string {
	var problems []string
	createsWhatIfs := false
	for _, rule := range role.Rules {
		if slices.Contains(rule.APIGroups, explainGroup) && slices.Contains(rule.Resources, explainResource) && slices.Contains(rule.Verbs, "create") {
			createsWhatIfs = true
		}
		if slices.Contains(rule.APIGroups, admissionregistrationv1.GroupName) {
			problems = append(problems, fmt.Sprintf("ClusterRole %s grants %v on %v of %s; whatif asks the APIService, not the webhooks", role.Name, rule.Verbs, rule.Resources, admissionregistrationv1.GroupName))
		}
		if len(rule.NonResourceURLs) > 0 {
			problems = append(problems, fmt.Sprintf("ClusterRole %s grants %v on %v; whatif is a resource of the aggregated API", role.Name, rule.Verbs, rule.NonResourceURLs))
		}
	}
	if !createsWhatIfs {
		problems = append(problems, fmt.Sprintf("ClusterRole %s may not create %s.%s: the API server refuses kubectl karpenter whatif", role.Name, explainResource, explainGroup))
	}
	return problems
}

// tokenPolicyProblems checks that the path ships the admission policy that holds the Secret
// writes of the user bound to the kube-system Role to bootstrap tokens, bound to deny.
func tokenPolicyProblems(r rendered) []string {
	var problems []string
	users := r.tokenWriters()
	if len(users) == 0 {
		return []string{"nobody may create bootstrap tokens in kube-system"}
	}
	denying := map[string]bool{}
	for _, object := range r.ofKind("ValidatingAdmissionPolicyBinding") {
		var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &binding); err == nil && slices.Contains(binding.Spec.ValidationActions, admissionregistrationv1.Deny) {
			denying[binding.Spec.PolicyName] = true
		}
	}
	for _, user := range users {
		found := false
		for _, object := range r.ofKind("ValidatingAdmissionPolicy") {
			var policy admissionregistrationv1.ValidatingAdmissionPolicy
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &policy); err != nil || !denying[policy.Name] {
				continue
			}
			forUser := slices.ContainsFunc(policy.Spec.MatchConditions, func(c admissionregistrationv1.MatchCondition) bool {
				return strings.Contains(c.Expression, "'"+user+"'")
			})
			tokensOnly := slices.ContainsFunc(policy.Spec.Validations, func(v admissionregistrationv1.Validation) bool {
				return strings.Contains(v.Expression, "'"+string(corev1.SecretTypeBootstrapToken)+"'")
			})
			if forUser && tokensOnly {
				found = true
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("no ValidatingAdmissionPolicy, bound to deny, holds the Secret writes of %s to bootstrap tokens", user))
		}
	}
	return problems
}

// tokenWriters are the users of the ServiceAccounts a kube-system RoleBinding lets create
// Secrets, through a Role of the path.
func (r rendered) tokenWriters() []string {
	writers := map[string]bool{}
	for _, object := range r.ofKind("Role") {
		var role rbacv1.Role
		if runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &role) != nil || role.Namespace != tokenNamespace {
			continue
		}
		writers[role.Name] = slices.ContainsFunc(role.Rules, func(rule rbacv1.PolicyRule) bool {
			return grants(scopedRule{PolicyRule: rule}, "secrets") && slices.Contains(rule.Verbs, "create")
		})
	}
	var users []string
	for _, binding := range r.bindingsIn(tokenNamespace) {
		if binding.RoleRef.Kind == "Role" && writers[binding.RoleRef.Name] {
			users = append(users, serviceAccountUsers(binding.Subjects)...)
		}
	}
	return users
}

// bindingsIn are the path's RoleBindings in a namespace.
func (r rendered) bindingsIn(namespace string) []rbacv1.RoleBinding {
	var bindings []rbacv1.RoleBinding
	for _, object := range r.ofKind("RoleBinding") {
		var binding rbacv1.RoleBinding
		if runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &binding) == nil && binding.Namespace == namespace {
			bindings = append(bindings, binding)
		}
	}
	return bindings
}

// serviceAccountUsers are the users of the ServiceAccounts among subjects.
func serviceAccountUsers(subjects []rbacv1.Subject) []string {
	var users []string
	for _, subject := range subjects {
		if subject.Kind == rbacv1.ServiceAccountKind {
			users = append(users, "system:serviceaccount:"+subject.Namespace+":"+subject.Name)
		}
	}
	return users
}

func (r rendered) ofKind(kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range r.objects {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// with is r and what other creates beside it.
func (r rendered) with(other rendered) rendered {
	pods := maps.Clone(r.pods)
	maps.Copy(pods, other.pods)
	return rendered{
		rules:   slices.Concat(r.rules, other.rules),
		pods:    pods,
		objects: slices.Concat(r.objects, other.objects),
		byOLM:   r.byOLM || other.byOLM,
	}
}

// installedByOLM is r as what OLM installs from.
func (r rendered) installedByOLM() rendered {
	r.byOLM = true
	return r
}

// editObjects replaces each object of a kind with an edited copy, leaving the objects r was
// rendered with as they are.
func (r *rendered) editObjects(kind string, edit func(o *unstructured.Unstructured)) {
	r.objects = slices.Clone(r.objects)
	for i, o := range r.objects {
		if o.GetKind() == kind {
			r.objects[i] = o.DeepCopy()
			edit(r.objects[i])
		}
	}
}

// removeObjects leaves out the objects of a kind.
func (r *rendered) removeObjects(kind string) {
	r.objects = slices.DeleteFunc(slices.Clone(r.objects), func(o *unstructured.Unstructured) bool { return o.GetKind() == kind })
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
		r.objects = append(r.objects, o)
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
// permissions in the install namespace, the deployments and the other manifests.
func renderBundle(t *testing.T) rendered {
	t.Helper()
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		t.Fatalf("loading the bundle (run make bundle): %v", err)
	}
	// The bundle's other manifests (its ClusterRoles among them) OLM creates as they are.
	r := rendered{pods: map[string]corev1.PodSpec{}, objects: bundle.Objects}
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

func toUnstructured(t *testing.T, object runtime.Object) map[string]any {
	t.Helper()
	converted, err := runtime.DefaultUnstructuredConverter.ToUnstructured(object)
	if err != nil {
		t.Fatalf("converting %T: %v", object, err)
	}
	return converted
}
