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

// Command bundle writes the OLM bundle (registry+v1) from the kustomize output of
// config/manifests, read on stdin: the CSV base completed with the Deployment, the RBAC bound
// to its ServiceAccount, the webhooks as webhookdefinitions, the APIServices as
// apiservicedefinitions and the samples as alm-examples;
// the CRDs and the other objects a bundle may carry beside it; and the bundle's metadata.
// The output depends only on its input and flags, so that a clean tree regenerates to itself.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	operatorversion "github.com/operator-framework/api/pkg/lib/version"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// Package and channel of the bundle.
const (
	packageName = "karpenter-provider-kakaocloud"
	channel     = "candidate"
	// webhookServerPort is where the manager serves its webhooks and its aggregated API; OLM's
	// Service sends 443 there.
	webhookServerPort = 9443
)

func main() {
	out := flag.String("out", "bundle", "directory to write the bundle to (replaced)")
	version := flag.String("version", "0.1.0", "the operator's version (semver)")
	image := flag.String("image", "controller:latest", "the controller image")
	flag.Parse()
	if err := run(os.Stdin, *out, *version, *image); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out, version, image string) error {
	objects, err := readObjects(in)
	if err != nil {
		return err
	}
	b, err := assemble(objects, version, image)
	if err != nil {
		return err
	}
	return b.write(out)
}

// bundle is what a registry+v1 bundle holds.
type bundle struct {
	csv *operatorsv1alpha1.ClusterServiceVersion
	// manifests are the other objects, by file name.
	manifests map[string]any
}

// input is the kustomize output sorted by what the bundle makes of it.
type input struct {
	csv             *operatorsv1alpha1.ClusterServiceVersion
	manifests       map[string]any
	deployments     []appsv1.Deployment
	clusterRoles    map[string]rbacv1.ClusterRole
	roles           map[string]rbacv1.Role
	clusterBindings []rbacv1.ClusterRoleBinding
	bindings        []rbacv1.RoleBinding
	webhooks        []admissionregistrationv1.ValidatingWebhookConfiguration
	// webhookService is the Service of the webhooks, which OLM replaces with its own.
	webhookService  string
	apiServices     []apiService
	examples        []any
	serviceAccounts map[string]bool
}

// apiService is what the bundle reads of an apiregistration.k8s.io/v1 APIService: the group
// and version it serves and the Service that serves them.
type apiService struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Service *struct {
			Name string `json:"name"`
		} `json:"service"`
	} `json:"spec"`
}

//nolint:gocyclo // one case per kind of manifest the bundle is made from
func readInput(objects []*unstructured.Unstructured) (*input, error) {
	in := &input{manifests: map[string]any{}, clusterRoles: map[string]rbacv1.ClusterRole{}, roles: map[string]rbacv1.Role{}, serviceAccounts: map[string]bool{}}
	for _, o := range objects {
		var err error
		switch kind := o.GetKind(); {
		case kind == "ClusterServiceVersion":
			in.csv = &operatorsv1alpha1.ClusterServiceVersion{}
			err = convert(o, in.csv)
		case kind == "CustomResourceDefinition":
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err = convert(o, crd); err == nil {
				in.manifests[crd.Spec.Group+"_"+crd.Spec.Names.Plural+".yaml"] = o.Object
			}
		case kind == "Deployment":
			err = appendConverted(o, &in.deployments)
		case kind == "ServiceAccount":
			in.serviceAccounts[o.GetName()] = true
		case kind == "ClusterRole":
			var r rbacv1.ClusterRole
			if err = convert(o, &r); err == nil {
				in.clusterRoles[r.Name] = r
			}
		case kind == "Role":
			var r rbacv1.Role
			if err = convert(o, &r); err == nil {
				in.roles[r.Name] = r
			}
		case kind == "ClusterRoleBinding":
			err = appendConverted(o, &in.clusterBindings)
		case kind == "RoleBinding":
			err = appendConverted(o, &in.bindings)
		case kind == "ValidatingWebhookConfiguration":
			err = appendConverted(o, &in.webhooks)
		case kind == "APIService":
			err = appendConverted(o, &in.apiServices)
		case kind == "Namespace":
			// OLM installs into the namespace of the OperatorGroup.
		case kind == "Service" && strings.HasSuffix(o.GetName(), "webhook-service"):
			// OLM makes the webhook Service from the webhookdefinitions.
			in.webhookService = o.GetName()
		case o.GetAPIVersion() == "karpenter.kakaocloud.com/v1" || o.GetAPIVersion() == "karpenter.sh/v1" || o.GetAPIVersion() == "autoscaling.x-k8s.io/v1beta1":
			in.examples = append(in.examples, o.Object)
		default:
			o.SetNamespace("")
			in.manifests[manifestName(o)] = o.Object
		}
		if err != nil {
			return nil, err
		}
	}
	return in, nil
}

// appendConverted decodes o and appends it to list.
func appendConverted[T any](o *unstructured.Unstructured, list *[]T) error {
	var item T
	if err := convert(o, &item); err != nil {
		return err
	}
	*list = append(*list, item)
	return nil
}

func assemble(objects []*unstructured.Unstructured, version, image string) (*bundle, error) {
	in, err := readInput(objects)
	if err != nil {
		return nil, err
	}
	b := &bundle{csv: in.csv, manifests: in.manifests}
	if b.csv == nil {
		return nil, errors.New("no ClusterServiceVersion base in the input")
	}
	if len(in.deployments) != 1 {
		return nil, fmt.Errorf("want exactly one Deployment, got %d", len(in.deployments))
	}
	deployment := in.deployments[0]
	serviceAccount := deployment.Spec.Template.Spec.ServiceAccountName
	if !in.serviceAccounts[serviceAccount] {
		return nil, fmt.Errorf("the Deployment's ServiceAccount %q is not in the input", serviceAccount)
	}

	csv := b.csv
	csv.Name = packageName + ".v" + version
	csv.Namespace = ""
	semanticVersion, err := semver.Parse(version)
	if err != nil {
		return nil, fmt.Errorf("version %q is not a semantic version: %w", version, err)
	}
	csv.Spec.Version = operatorversion.OperatorVersion{Version: semanticVersion}
	csv.Annotations["containerImage"] = image
	for i := range deployment.Spec.Template.Spec.Containers {
		deployment.Spec.Template.Spec.Containers[i].Image = image
	}
	install := operatorsv1alpha1.StrategyDetailsDeployment{
		DeploymentSpecs: []operatorsv1alpha1.StrategyDeploymentSpec{{
			Name: deployment.Name, Label: deployment.Labels, Spec: deployment.Spec,
		}},
	}
	if err := in.permissions(&install, serviceAccount, b.manifests); err != nil {
		return nil, err
	}
	csv.Spec.InstallStrategy = operatorsv1alpha1.NamedInstallStrategy{StrategyName: operatorsv1alpha1.InstallStrategyNameDeployment, StrategySpec: install}
	if csv.Spec.WebhookDefinitions, err = webhookDefinitions(in.webhooks, deployment.Name); err != nil {
		return nil, err
	}
	if csv.Spec.APIServiceDefinitions.Owned, err = apiServiceDefinitions(csv.Spec.APIServiceDefinitions.Owned, in.apiServices, in.webhookService, deployment.Name); err != nil {
		return nil, err
	}

	examplesJSON, err := json.MarshalIndent(in.examples, "", "  ")
	if err != nil {
		return nil, err
	}
	csv.Annotations["alm-examples"] = string(examplesJSON)
	csv.Spec.RelatedImages = []operatorsv1alpha1.RelatedImage{{Name: "controller", Image: image}}
	return b, nil
}

// permissions turns the RBAC the ServiceAccount is bound to into the CSV's permissions; OLM
// creates and binds it. Roles and ClusterRoles bound to nobody (the admin/editor/viewer and
// plugin roles for users) stay beside the CSV as plain manifests.
func (in *input) permissions(install *operatorsv1alpha1.StrategyDetailsDeployment, serviceAccount string, manifests map[string]any) error {
	bound := map[string]bool{}
	for _, binding := range in.clusterBindings {
		if !boundTo(binding.Subjects, serviceAccount) {
			// A binding of Kubernetes' own roles to groups (the nodes joining with the
			// operator's bootstrap tokens) is no permission of the operator's: it ships
			// beside the CSV, and OLM creates it as it is.
			manifests[binding.Name+"_rbac.authorization.k8s.io_v1_clusterrolebinding.yaml"] = toMap(withKind(binding, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding"))
			continue
		}
		role, ok := in.clusterRoles[binding.RoleRef.Name]
		if !ok {
			return fmt.Errorf("ClusterRoleBinding %s names ClusterRole %s, which is not in the input", binding.Name, binding.RoleRef.Name)
		}
		if len(install.ClusterPermissions) == 0 {
			install.ClusterPermissions = []operatorsv1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: serviceAccount}}
		}
		install.ClusterPermissions[0].Rules = append(install.ClusterPermissions[0].Rules, role.Rules...)
		bound["ClusterRole/"+role.Name] = true
	}
	for _, binding := range in.bindings {
		if !boundTo(binding.Subjects, serviceAccount) {
			continue
		}
		if binding.RoleRef.Kind != "Role" {
			return fmt.Errorf("RoleBinding %s binds a %s; OLM permissions are Roles in the install namespace", binding.Name, binding.RoleRef.Kind)
		}
		role, ok := in.roles[binding.RoleRef.Name]
		if !ok {
			return fmt.Errorf("RoleBinding %s names Role %s, which is not in the input", binding.Name, binding.RoleRef.Name)
		}
		bound["Role/"+role.Name] = true
		if len(install.Permissions) == 0 {
			install.Permissions = []operatorsv1alpha1.StrategyDeploymentPermissions{{ServiceAccountName: serviceAccount}}
		}
		install.Permissions[0].Rules = append(install.Permissions[0].Rules, role.Rules...)
	}
	for name, role := range in.clusterRoles {
		if !bound["ClusterRole/"+name] {
			manifests[name+"_rbac.authorization.k8s.io_v1_clusterrole.yaml"] = toMap(withKind(role, "rbac.authorization.k8s.io/v1", "ClusterRole"))
		}
	}
	for name, role := range in.roles {
		if !bound["Role/"+name] {
			// OLM creates it in the install namespace.
			role.Namespace = ""
			manifests[name+"_rbac.authorization.k8s.io_v1_role.yaml"] = toMap(withKind(role, "rbac.authorization.k8s.io/v1", "Role"))
		}
	}
	return nil
}

// webhookDefinitions are the webhooks as OLM serves them: it issues the certificate, makes the
// Service and the webhook configurations from these definitions, and mounts the certificate
// into the Deployment.
func webhookDefinitions(configurations []admissionregistrationv1.ValidatingWebhookConfiguration, deployment string) ([]operatorsv1alpha1.WebhookDescription, error) {
	var definitions []operatorsv1alpha1.WebhookDescription
	for _, configuration := range configurations {
		for _, w := range configuration.Webhooks {
			if w.ClientConfig.Service == nil || w.ClientConfig.Service.Path == nil {
				return nil, fmt.Errorf("webhook %s has no service path", w.Name)
			}
			definitions = append(definitions, operatorsv1alpha1.WebhookDescription{
				GenerateName:            w.Name,
				Type:                    operatorsv1alpha1.ValidatingAdmissionWebhook,
				DeploymentName:          deployment,
				ContainerPort:           443,
				TargetPort:              ptrIntOrString(webhookServerPort),
				Rules:                   w.Rules,
				FailurePolicy:           w.FailurePolicy,
				MatchPolicy:             w.MatchPolicy,
				ObjectSelector:          w.ObjectSelector,
				SideEffects:             w.SideEffects,
				TimeoutSeconds:          w.TimeoutSeconds,
				AdmissionReviewVersions: w.AdmissionReviewVersions,
				WebhookPath:             w.ClientConfig.Service.Path,
			})
		}
	}
	return definitions, nil
}

// apiServiceDefinitions completes the CSV base's owned APIServices (kind, resource and what
// OperatorHub shows of them) with where they are served: OLM makes each APIService, with the
// Service and certificate it makes for the webhooks, and binds the operator's ServiceAccount
// to system:auth-delegator and, in kube-system, to extension-apiserver-authentication-reader.
// Every APIService of the input must be served by the webhook Service, which OLM replaces with
// the Deployment's, and have its entry in the base; every entry of the base its APIService.
func apiServiceDefinitions(owned []operatorsv1alpha1.APIServiceDescription, services []apiService, webhookService, deployment string) ([]operatorsv1alpha1.APIServiceDescription, error) {
	served := map[string]bool{}
	for _, service := range services {
		if service.Spec.Service == nil || service.Spec.Service.Name != webhookService {
			return nil, fmt.Errorf("APIService %s is not served by the webhook Service %s, the one OLM replaces with the Deployment's", service.Metadata.Name, webhookService)
		}
		served[service.Spec.Version+"."+service.Spec.Group] = true
	}
	var definitions []operatorsv1alpha1.APIServiceDescription
	for _, definition := range owned {
		if !served[definition.GetName()] {
			return nil, fmt.Errorf("the CSV base owns APIService %s, which is not in the input", definition.GetName())
		}
		delete(served, definition.GetName())
		definition.DeploymentName = deployment
		// OLM points the APIService at this port of its Service and sends it to the same port
		// of the container: an APIService has no target port as a webhook has.
		definition.ContainerPort = webhookServerPort
		definitions = append(definitions, definition)
	}
	if len(served) > 0 {
		return nil, fmt.Errorf("APIServices %v have no entry in the CSV base's apiservicedefinitions.owned (kind, resource name, display name and description)", slices.Sorted(maps.Keys(served)))
	}
	return definitions, nil
}

func boundTo(subjects []rbacv1.Subject, serviceAccount string) bool {
	return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool { return s.Kind == "ServiceAccount" && s.Name == serviceAccount })
}

// write replaces out with the bundle: manifests/, metadata/annotations.yaml and
// tests/scorecard/config.yaml.
func (b *bundle) write(out string) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	files := map[string]any{
		filepath.Join("manifests", packageName+".clusterserviceversion.yaml"): toMap(withKind(b.csv, operatorsv1alpha1.SchemeGroupVersion.String(), "ClusterServiceVersion")),
		filepath.Join("metadata", "annotations.yaml"):                         map[string]any{"annotations": Annotations()},
		filepath.Join("tests", "scorecard", "config.yaml"):                    scorecardConfig(),
	}
	for name, object := range b.manifests {
		files[filepath.Join("manifests", name)] = object
	}
	for name, content := range files {
		data, err := yaml.Marshal(content)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		path := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Annotations are the bundle's metadata, which bundle.Dockerfile repeats as labels.
func Annotations() map[string]string {
	return map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1":       "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":        "metadata/",
		"operators.operatorframework.io.bundle.package.v1":         packageName,
		"operators.operatorframework.io.bundle.channels.v1":        channel,
		"operators.operatorframework.io.bundle.channel.default.v1": channel,
		"operators.operatorframework.io.test.mediatype.v1":         "scorecard+v1",
		"operators.operatorframework.io.test.config.v1":            "tests/scorecard/",
	}
}

// scorecardConfig runs operator-sdk scorecard's basic and OLM checks on the bundle.
func scorecardConfig() map[string]any {
	test := func(name string) map[string]any {
		return map[string]any{
			"entrypoint": []string{"scorecard-test", name},
			"image":      "quay.io/operator-framework/scorecard-test:v1.42.0",
			"labels":     map[string]string{"suite": map[bool]string{true: "basic", false: "olm"}[name == "basic-check-spec"], "test": name + "-test"},
		}
	}
	return map[string]any{
		"apiVersion": "scorecard.operatorframework.io/v1alpha3",
		"kind":       "Configuration",
		"metadata":   map[string]string{"name": "config"},
		"stages": []map[string]any{{
			"parallel": true,
			"tests": []map[string]any{
				test("basic-check-spec"), test("olm-bundle-validation"), test("olm-crds-have-validation"),
				test("olm-crds-have-resources"), test("olm-spec-descriptors"), test("olm-status-descriptors"),
			},
		}},
	}
}

// manifestName is operator-sdk's file name for an extra bundle object.
func manifestName(o *unstructured.Unstructured) string {
	gv := strings.ReplaceAll(o.GetAPIVersion(), "/", "_")
	if !strings.Contains(o.GetAPIVersion(), "/") {
		gv = "v1"
	}
	return o.GetName() + "_" + gv + "_" + strings.ToLower(o.GetKind()) + ".yaml"
}

func readObjects(in io.Reader) ([]*unstructured.Unstructured, error) {
	var objects []*unstructured.Unstructured
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	var doc bytes.Buffer
	flush := func() error {
		defer doc.Reset()
		if strings.TrimSpace(doc.String()) == "" {
			return nil
		}
		o := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc.Bytes(), &o.Object); err != nil {
			return err
		}
		objects = append(objects, o)
		return nil
	}
	for scanner.Scan() {
		if scanner.Text() == "---" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		doc.WriteString(scanner.Text() + "\n")
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	return objects, flush()
}

func convert(o *unstructured.Unstructured, into any) error {
	data, err := json.Marshal(o.Object)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
	}
	return nil
}

// withKind sets the type meta typed objects lose in conversion.
func withKind(object any, apiVersion, kind string) any {
	m := toMap(object)
	m["apiVersion"], m["kind"] = apiVersion, kind
	return m
}

func toMap(object any) map[string]any {
	if m, ok := object.(map[string]any); ok {
		return m
	}
	data, err := json.Marshal(object)
	if err != nil {
		panic(err) // API types always marshal
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return m
}

func ptrIntOrString(port int) *intstr.IntOrString {
	v := intstr.FromInt32(int32(port))
	return &v
}
