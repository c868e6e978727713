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
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/strvals"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// The chart and the kustomize packaging it must agree with, from this module's directory.
const (
	chartDir       = "../../charts/karpenter-provider-kakaocloud"
	configDir      = "../../config"
	repositoryRoot = "../.."
)

// The release the product documents install: its name, namespace and the label the
// controller pods are selected by; and kube-system, where the API server reads bootstrap
// tokens and so the one other namespace the chart puts anything in.
const (
	releaseName      = "karpenter-provider-kakaocloud"
	releaseNamespace = "karpenter-kakaocloud"
	podNameLabel     = "karpenter-provider-kakaocloud"
	testClusterName  = "test-cluster"
	tokenNamespace   = "kube-system"
)

// prometheusOperatorAPIs is what Helm's discovery reports for a cluster with the Prometheus
// Operator's CRDs: the group/version and one group/version/kind per resource.
var prometheusOperatorAPIs = []string{
	"monitoring.coreos.com/v1",
	"monitoring.coreos.com/v1/ServiceMonitor",
	"monitoring.coreos.com/v1/PrometheusRule",
}

// renderKubeVersion is the Kubernetes version the render tests claim, so that they do not
// depend on the client-go version Helm was built with.
var renderKubeVersion = chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}

// manifestObject is one object of a rendered manifest, with enough of its header to find it.
type manifestObject struct {
	Kind      string
	Name      string
	Namespace string
	Labels    map[string]string
	Document  []byte
}

// manifest is a multi-document YAML stream split into its objects, in order.
type manifest []manifestObject

// parseManifest splits a manifest into objects, leaving out documents without a kind (Helm
// writes a "# Source:" comment before each template's output).
func parseManifest(t *testing.T, text []byte) manifest {
	t.Helper()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(text)))
	var objects manifest
	for {
		document, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objects
		}
		if err != nil {
			t.Fatalf("reading a manifest: %v", err)
		}
		var header struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(document, &header); err != nil {
			t.Fatalf("parsing a manifest document: %v\n%s", err, document)
		}
		if header.Kind == "" {
			continue
		}
		objects = append(objects, manifestObject{
			Kind:      header.Kind,
			Name:      header.Metadata.Name,
			Namespace: header.Metadata.Namespace,
			Labels:    header.Metadata.Labels,
			Document:  document,
		})
	}
}

// ofKind returns the objects of one kind.
func (m manifest) ofKind(kind string) []manifestObject {
	var objects []manifestObject
	for _, object := range m {
		if object.Kind == kind {
			objects = append(objects, object)
		}
	}
	return objects
}

// decode unmarshals the object of that kind and name into target, failing the test when it
// is not there.
func (m manifest) decode(t *testing.T, kind, name string, target any) {
	t.Helper()
	for _, object := range m {
		if object.Kind == kind && object.Name == name {
			if err := yaml.UnmarshalStrict(object.Document, target); err != nil {
				t.Fatalf("decoding %s %s: %v", kind, name, err)
			}
			return
		}
	}
	t.Fatalf("no %s %s among %v", kind, name, m.names())
}

// decodeOnly unmarshals the single object of a kind into target.
func (m manifest) decodeOnly(t *testing.T, kind string, target any) {
	t.Helper()
	objects := m.ofKind(kind)
	if len(objects) != 1 {
		t.Fatalf("%d objects of kind %s, want 1 (objects: %v)", len(objects), kind, m.names())
	}
	m.decode(t, kind, objects[0].Name, target)
}

func (m manifest) names() []string {
	var names []string
	for _, object := range m {
		names = append(names, object.Kind+"/"+object.Name)
	}
	return names
}

// rendering is what Helm makes of the chart for one set of values.
type rendering struct {
	Objects manifest
	Notes   string
}

// loadChart loads the chart as helm install reads a chart directory (.helmignore applied).
func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	loaded, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	return loaded
}

// parseSettings turns --set style settings into a values map, as the helm command does.
func parseSettings(t *testing.T, settings []string) map[string]any {
	t.Helper()
	values := map[string]any{}
	for _, setting := range settings {
		if err := strvals.ParseInto(setting, values); err != nil {
			t.Fatalf("parsing %q: %v", setting, err)
		}
	}
	return values
}

// render runs helm install --dry-run in client-only mode (what helm template does) with the
// given --set settings, against a cluster that serves the built-in APIs plus apiVersions.
func render(t *testing.T, settings []string, apiVersions ...string) (rendering, error) {
	t.Helper()
	return renderValues(t, parseSettings(t, settings), apiVersions...)
}

func renderValues(t *testing.T, values map[string]any, apiVersions ...string) (rendering, error) {
	t.Helper()
	return renderValuesIn(t, releaseNamespace, values, apiVersions...)
}

func renderValuesIn(t *testing.T, namespace string, values map[string]any, apiVersions ...string) (rendering, error) {
	t.Helper()
	install := action.NewInstall(&action.Configuration{Log: t.Logf})
	install.DryRun = true
	install.ClientOnly = true
	install.ReleaseName = releaseName
	install.Namespace = namespace
	install.KubeVersion = &renderKubeVersion
	install.APIVersions = apiVersions
	rendered, err := install.Run(loadChart(t), values)
	if err != nil {
		return rendering{}, err
	}
	return rendering{Objects: parseManifest(t, []byte(rendered.Manifest)), Notes: rendered.Info.Notes}, nil
}

// mustRender renders with controller.clusterName set (the one required value) and the
// given settings, failing the test on any error.
func mustRender(t *testing.T, settings []string, apiVersions ...string) rendering {
	t.Helper()
	rendered, err := render(t, append([]string{"controller.clusterName=" + testClusterName}, settings...), apiVersions...)
	if err != nil {
		t.Fatalf("rendering the chart with %v: %v", settings, err)
	}
	return rendered
}

// makefileVariable reads a `NAME ?= value` default from the repository's Makefile, so that
// the tests use the tool versions the build pins rather than a copy of them.
func makefileVariable(t *testing.T, name string) string {
	t.Helper()
	makefile, err := os.ReadFile(filepath.Join(repositoryRoot, "Makefile"))
	if err != nil {
		t.Fatalf("reading the Makefile: %v", err)
	}
	match := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*\?=\s*(\S+)`).FindSubmatch(makefile)
	if match == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return string(match[1])
}

// kustomizeBuild runs the kustomize binary `make kustomize` installs on an overlay.
func kustomizeBuild(t *testing.T, overlay string) manifest {
	t.Helper()
	binary, err := filepath.Abs(filepath.Join(repositoryRoot, "bin", "kustomize-"+makefileVariable(t, "KUSTOMIZE_VERSION")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(binary); err != nil {
		t.Skipf("%s is missing; run make kustomize to compare the chart with the kustomize packaging", binary)
	}
	var stderr bytes.Buffer
	command := exec.Command(binary, "build", filepath.Join(configDir, overlay))
	command.Stderr = &stderr
	output, err := command.Output()
	if err != nil {
		t.Fatalf("kustomize build %s: %v\n%s", overlay, err, stderr.String())
	}
	return parseManifest(t, output)
}

// readManifestFile parses a YAML file of the repository.
func readManifestFile(t *testing.T, path string) manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseManifest(t, data)
}

// controllerDeployment decodes the chart's Deployment and its controller container.
func controllerDeployment(t *testing.T, objects manifest) (appsv1.Deployment, corev1.Container) {
	t.Helper()
	var deployment appsv1.Deployment
	objects.decodeOnly(t, "Deployment", &deployment)
	containers := deployment.Spec.Template.Spec.Containers
	if len(containers) != 1 || containers[0].Name != "controller" {
		t.Fatalf("Deployment containers %v, want the one container controller", containers)
	}
	return deployment, containers[0]
}

// TestChartMetadata checks the chart's identity: what helm search and helm history show, and
// what controller.image.tag defaults to.
func TestChartMetadata(t *testing.T) {
	metadata := loadChart(t).Metadata
	if metadata.APIVersion != chart.APIVersionV2 || metadata.Name != releaseName || metadata.Version != "0.1.0" || metadata.AppVersion != "0.1.0" {
		t.Errorf("Chart.yaml has apiVersion %s, name %s, version %s, appVersion %s; want v2, %s, 0.1.0, 0.1.0",
			metadata.APIVersion, metadata.Name, metadata.Version, metadata.AppVersion, releaseName)
	}
}

// TestChartDefaultsRenderControllerRBACAndWebhooks renders the defaults (with the required
// cluster name) for a cluster without the Prometheus Operator: the controller, its RBAC, the
// Services, the webhooks and whatif's APIService are there, every namespaced object is in the
// release namespace but the bootstrap token Role and its binding and the binding that reads
// the front-proxy CA (kube-system), and the notes tell to delete NodeClaims before
// uninstalling.
func TestChartDefaultsRenderControllerRBACAndWebhooks(t *testing.T) {
	rendered := mustRender(t, nil)
	counts := map[string]int{}
	for _, object := range rendered.Objects {
		counts[object.Kind]++
		switch object.Kind {
		case "ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "APIService":
			if object.Namespace != "" {
				t.Errorf("%s %s has namespace %s, want none", object.Kind, object.Name, object.Namespace)
			}
		case "Role", "RoleBinding":
			want := releaseNamespace
			if object.Name == releaseName+"-bootstrap-tokens" || object.Name == releaseName+"-auth-reader" {
				want = tokenNamespace
			}
			if object.Namespace != want {
				t.Errorf("%s %s has namespace %q, want %s", object.Kind, object.Name, object.Namespace, want)
			}
		default:
			if object.Namespace != releaseNamespace {
				t.Errorf("%s %s has namespace %q, want %s", object.Kind, object.Name, object.Namespace, releaseNamespace)
			}
		}
		if object.Labels["app.kubernetes.io/name"] != podNameLabel || object.Labels["app.kubernetes.io/instance"] != releaseName {
			t.Errorf("%s %s has labels %v, want app.kubernetes.io/name and instance", object.Kind, object.Name, object.Labels)
		}
	}
	want := map[string]int{
		"ServiceAccount":                 1,
		"ClusterRole":                    4,
		"ClusterRoleBinding":             4,
		"Role":                           3,
		"RoleBinding":                    4,
		"Deployment":                     1,
		"Service":                        2,
		"Secret":                         1,
		"ValidatingWebhookConfiguration": 1,
		// kubectl karpenter whatif's aggregated API.
		"APIService": 1,
		// The controller's writes in kube-system held to bootstrap tokens.
		"ValidatingAdmissionPolicy":        1,
		"ValidatingAdmissionPolicyBinding": 1,
		// Two replicas by default.
		"PodDisruptionBudget": 1,
	}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("objects by kind = %v, want %v (no ServiceMonitor or PrometheusRule without the monitoring.coreos.com/v1 API)", counts, want)
	}

	deployment, container := controllerDeployment(t, rendered.Objects)
	if deployment.Name != releaseName {
		t.Errorf("Deployment name %s, want %s", deployment.Name, releaseName)
	}
	if got := deployment.Spec.Template.Labels["app.kubernetes.io/name"]; got != podNameLabel {
		t.Errorf("pod label app.kubernetes.io/name = %q, want %q (the product documents select the pods by it)", got, podNameLabel)
	}
	if deployment.Spec.Replicas == nil || *deployment.Spec.Replicas != 2 || !slices.Contains(container.Args, "--leader-elect") {
		t.Errorf("replicas %v, args %v; want 2 replicas with --leader-elect", deployment.Spec.Replicas, container.Args)
	}
	if got := deployment.Spec.Template.Spec.PriorityClassName; got != "system-cluster-critical" {
		t.Errorf("priorityClassName %q, want system-cluster-critical", got)
	}
	wantEnv := []corev1.EnvVar{
		{Name: "CLUSTER_NAME", Value: testClusterName},
		{Name: "CREDENTIALS_SECRET", Value: "karpenter-kakaocloud-credentials"},
		{Name: "SIGNING_KEYRING_SECRET", Value: "karpenter-kakaocloud-signing-keys"},
		{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
	}
	if !reflect.DeepEqual(container.Env, wantEnv) {
		t.Errorf("env = %+v, want %+v", container.Env, wantEnv)
	}

	for _, want := range []string{"kubectl delete nodeclaims --all", "helm uninstall", "crds/"} {
		if !strings.Contains(rendered.Notes, want) {
			t.Errorf("NOTES.txt does not mention %q:\n%s", want, rendered.Notes)
		}
	}
}

// TestChartSecretNames checks that the Secrets the controller reads are the ones the values
// name (the chart refers to them and never creates them).
func TestChartSecretNames(t *testing.T) {
	rendered := mustRender(t, []string{"credentials.secretName=iam-key", "signingKeys.secretName=marker-keys"})
	_, container := controllerDeployment(t, rendered.Objects)
	env := map[string]string{}
	for _, variable := range container.Env {
		env[variable.Name] = variable.Value
	}
	if env["CREDENTIALS_SECRET"] != "iam-key" || env["SIGNING_KEYRING_SECRET"] != "marker-keys" {
		t.Errorf("CREDENTIALS_SECRET %q, SIGNING_KEYRING_SECRET %q; want iam-key, marker-keys", env["CREDENTIALS_SECRET"], env["SIGNING_KEYRING_SECRET"])
	}
	for _, secret := range rendered.Objects.ofKind("Secret") {
		if secret.Name == "iam-key" || secret.Name == "marker-keys" {
			t.Errorf("the chart renders Secret %s; users create it", secret.Name)
		}
	}
	// The Role grants reading those two by name, and no other Secret.
	for _, rule := range roleRules(t, rendered.Objects, "Role", releaseName+"-manager") {
		if slices.Contains(rule.Resources, "secrets") && !reflect.DeepEqual(rule.ResourceNames, []string{"iam-key", "marker-keys"}) {
			t.Errorf("the manager Role reads Secrets %v, want iam-key and marker-keys", rule.ResourceNames)
		}
	}
}

// TestChartRefusesKubeSystem checks that the chart does not install into kube-system unless
// allowKubeSystem says so, and says why.
func TestChartRefusesKubeSystem(t *testing.T) {
	values := parseSettings(t, []string{"controller.clusterName=" + testClusterName})
	if _, err := renderValuesIn(t, tokenNamespace, values); err == nil || !strings.Contains(err.Error(), "allowKubeSystem=true") {
		t.Errorf("rendering into kube-system gave %v, want a refusal that names allowKubeSystem", err)
	}
	values["allowKubeSystem"] = true
	if _, err := renderValuesIn(t, tokenNamespace, values); err != nil {
		t.Errorf("rendering into kube-system with allowKubeSystem: %v", err)
	}
	if _, err := renderValuesIn(t, releaseNamespace, parseSettings(t, []string{"controller.clusterName=" + testClusterName})); err != nil {
		t.Errorf("rendering into %s: %v", releaseNamespace, err)
	}
}

// TestChartPodDisruptionBudget checks that the controller pods have a budget that selects
// them when there are two or more, none with one replica or when turned off, and that
// minAvailable replaces maxUnavailable.
func TestChartPodDisruptionBudget(t *testing.T) {
	for name, c := range map[string]struct {
		settings                     []string
		want                         bool
		maxUnavailable, minAvailable string
	}{
		"default":      {want: true, maxUnavailable: "1"},
		"one replica":  {settings: []string{"controller.replicas=1"}},
		"off":          {settings: []string{"podDisruptionBudget.enabled=false"}},
		"minAvailable": {settings: []string{"controller.replicas=3", "podDisruptionBudget.minAvailable=2"}, want: true, minAvailable: "2"},
	} {
		t.Run(name, func(t *testing.T) {
			rendered := mustRender(t, c.settings).Objects
			budgets := rendered.ofKind("PodDisruptionBudget")
			if got := len(budgets) == 1; got != c.want || len(budgets) > 1 {
				t.Fatalf("%d PodDisruptionBudgets, want one: %v", len(budgets), c.want)
			}
			if !c.want {
				return
			}
			var budget policyv1.PodDisruptionBudget
			rendered.decodeOnly(t, "PodDisruptionBudget", &budget)
			deployment, _ := controllerDeployment(t, rendered)
			if !reflect.DeepEqual(budget.Spec.Selector, deployment.Spec.Selector) {
				t.Errorf("the budget selects %v, the Deployment's pods are %v", budget.Spec.Selector, deployment.Spec.Selector)
			}
			if got := intOrString(budget.Spec.MaxUnavailable); got != c.maxUnavailable {
				t.Errorf("maxUnavailable %q, want %q", got, c.maxUnavailable)
			}
			if got := intOrString(budget.Spec.MinAvailable); got != c.minAvailable {
				t.Errorf("minAvailable %q, want %q", got, c.minAvailable)
			}
		})
	}
}

func intOrString(value *intstr.IntOrString) string {
	if value == nil {
		return ""
	}
	return value.String()
}

// TestChartWebhookCertificateFromCertManager checks that with cert-manager the chart renders
// no key material, the same output twice (what a GitOps tool compares), a Certificate for the
// webhook Service's names writing the Secret the pods mount, and the CA injection annotation.
func TestChartWebhookCertificateFromCertManager(t *testing.T) {
	settings := []string{"webhook.certificate.certManager.enabled=true"}
	first, second := mustRender(t, settings).Objects, mustRender(t, settings).Objects
	if !reflect.DeepEqual(first, second) {
		t.Error("two renders with cert-manager differ")
	}
	if secrets := first.ofKind("Secret"); len(secrets) != 0 {
		t.Errorf("the chart renders Secret %s with cert-manager", secrets[0].Name)
	}
	var certificate struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta `json:"metadata"`
		Spec            struct {
			SecretName string            `json:"secretName"`
			DNSNames   []string          `json:"dnsNames"`
			IssuerRef  map[string]string `json:"issuerRef"`
		} `json:"spec"`
	}
	first.decode(t, "Certificate", releaseName+"-webhook-cert", &certificate)
	service := releaseName + "-webhook." + releaseNamespace + ".svc"
	if certificate.Spec.SecretName != releaseName+"-webhook-cert" || !slices.Contains(certificate.Spec.DNSNames, service) {
		t.Errorf("the Certificate writes %s for %v; want %s-webhook-cert for %s", certificate.Spec.SecretName, certificate.Spec.DNSNames, releaseName, service)
	}
	var issuer struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta `json:"metadata"`
		Spec            map[string]any    `json:"spec"`
	}
	first.decode(t, "Issuer", certificate.Spec.IssuerRef["name"], &issuer)
	if _, ok := issuer.Spec["selfSigned"]; !ok || issuer.Metadata.Namespace != releaseNamespace {
		t.Errorf("Issuer %s in %q: %v; want a self-signed one in %s", issuer.Metadata.Name, issuer.Metadata.Namespace, issuer.Spec, releaseNamespace)
	}
	var webhooks admissionregistrationv1.ValidatingWebhookConfiguration
	first.decodeOnly(t, "ValidatingWebhookConfiguration", &webhooks)
	if got := webhooks.Annotations["cert-manager.io/inject-ca-from"]; got != releaseNamespace+"/"+releaseName+"-webhook-cert" {
		t.Errorf("inject-ca-from %q", got)
	}
	for _, webhook := range webhooks.Webhooks {
		if len(webhook.ClientConfig.CABundle) != 0 {
			t.Errorf("webhook %s has a caBundle; cert-manager injects it", webhook.Name)
		}
	}

	own := mustRender(t, append(settings, "webhook.certificate.certManager.issuerRef.kind=ClusterIssuer", "webhook.certificate.certManager.issuerRef.name=internal-ca")).Objects
	if issuers := own.ofKind("Issuer"); len(issuers) != 0 {
		t.Error("the chart makes an Issuer although one is given")
	}
	own.decode(t, "Certificate", releaseName+"-webhook-cert", &certificate)
	if certificate.Spec.IssuerRef["kind"] != "ClusterIssuer" || certificate.Spec.IssuerRef["name"] != "internal-ca" {
		t.Errorf("issuerRef %v, want the ClusterIssuer given", certificate.Spec.IssuerRef)
	}
}

// TestChartRequiresClusterName checks that rendering without controller.clusterName fails,
// and with a message that says which value to set.
func TestChartRequiresClusterName(t *testing.T) {
	for name, settings := range map[string][]string{
		"unset": nil,
		"empty": {"controller.clusterName="},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := render(t, settings)
			if err == nil {
				t.Fatal("rendering without controller.clusterName succeeded, want an error")
			}
			if !strings.Contains(err.Error(), "controller.clusterName is required") {
				t.Errorf("error %q does not say controller.clusterName is required", err)
			}
		})
	}
}

// hasMonitoring reports whether a rendering holds a ServiceMonitor and a PrometheusRule.
func hasMonitoring(rendered rendering) (serviceMonitor, prometheusRule bool) {
	return len(rendered.Objects.ofKind("ServiceMonitor")) == 1, len(rendered.Objects.ofKind("PrometheusRule")) == 1
}

// TestChartMonitoringAutoWithoutPrometheusOperator checks that auto (the default) creates
// neither object where the cluster does not serve monitoring.coreos.com/v1, which would
// otherwise fail the install.
func TestChartMonitoringAutoWithoutPrometheusOperator(t *testing.T) {
	serviceMonitor, prometheusRule := hasMonitoring(mustRender(t, nil))
	if serviceMonitor || prometheusRule {
		t.Errorf("ServiceMonitor %v, PrometheusRule %v; want neither without the monitoring.coreos.com/v1 API", serviceMonitor, prometheusRule)
	}
}

// TestChartMonitoringAutoWithPrometheusOperator checks that auto creates both where the
// cluster serves them, and that the ServiceMonitor scrapes the metrics Service's https port
// and no other Service.
func TestChartMonitoringAutoWithPrometheusOperator(t *testing.T) {
	rendered := mustRender(t, nil, prometheusOperatorAPIs...)
	serviceMonitor, prometheusRule := hasMonitoring(rendered)
	if !serviceMonitor || !prometheusRule {
		t.Fatalf("ServiceMonitor %v, PrometheusRule %v; want both with the monitoring.coreos.com/v1 API", serviceMonitor, prometheusRule)
	}
	var monitor struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   metav1.ObjectMeta `json:"metadata"`
		Spec       struct {
			Endpoints []map[string]any     `json:"endpoints"`
			Selector  metav1.LabelSelector `json:"selector"`
		} `json:"spec"`
	}
	rendered.Objects.decodeOnly(t, "ServiceMonitor", &monitor)
	if len(monitor.Spec.Endpoints) != 1 || monitor.Spec.Endpoints[0]["port"] != "https" || monitor.Spec.Endpoints[0]["scheme"] != "https" {
		t.Errorf("ServiceMonitor endpoints %v, want one on port https over https", monitor.Spec.Endpoints)
	}
	var selected []string
	for _, object := range rendered.Objects.ofKind("Service") {
		var service corev1.Service
		rendered.Objects.decode(t, "Service", object.Name, &service)
		if labelsMatch(monitor.Spec.Selector.MatchLabels, service.Labels) {
			selected = append(selected, service.Name)
			if len(service.Spec.Ports) != 1 || service.Spec.Ports[0].Name != "https" || service.Spec.Ports[0].TargetPort.IntValue() != 8443 {
				t.Errorf("Service %s ports %v, want https to 8443", service.Name, service.Spec.Ports)
			}
		}
	}
	if len(selected) != 1 || selected[0] != releaseName+"-metrics" {
		t.Errorf("the ServiceMonitor selects Services %v, want only %s-metrics", selected, releaseName)
	}
}

// labelsMatch reports whether labels has every key and value of selector.
func labelsMatch(selector, labels map[string]string) bool {
	for key, value := range selector {
		if labels[key] != value {
			return false
		}
	}
	return len(selector) > 0
}

// TestChartMonitoringForcedOn checks that true creates both objects even where discovery
// does not show the API (helm template, or CRDs installed in the same change), whether --set
// gives a boolean or --set-string a string.
func TestChartMonitoringForcedOn(t *testing.T) {
	for name, values := range map[string]map[string]any{
		"boolean": parseSettings(t, []string{"controller.clusterName=" + testClusterName, "serviceMonitor.enabled=true", "prometheusRule.enabled=true"}),
		"string":  {"controller": map[string]any{"clusterName": testClusterName}, "serviceMonitor": map[string]any{"enabled": "true"}, "prometheusRule": map[string]any{"enabled": "true"}},
	} {
		t.Run(name, func(t *testing.T) {
			rendered, err := renderValues(t, values)
			if err != nil {
				t.Fatal(err)
			}
			serviceMonitor, prometheusRule := hasMonitoring(rendered)
			if !serviceMonitor || !prometheusRule {
				t.Errorf("ServiceMonitor %v, PrometheusRule %v; want both when forced true", serviceMonitor, prometheusRule)
			}
		})
	}
}

// TestChartMonitoringForcedOff checks that false creates neither even where the API exists.
func TestChartMonitoringForcedOff(t *testing.T) {
	rendered := mustRender(t, []string{"serviceMonitor.enabled=false", "prometheusRule.enabled=false"}, prometheusOperatorAPIs...)
	serviceMonitor, prometheusRule := hasMonitoring(rendered)
	if serviceMonitor || prometheusRule {
		t.Errorf("ServiceMonitor %v, PrometheusRule %v; want neither when false", serviceMonitor, prometheusRule)
	}
}

// TestChartMonitoringRejectsUnknownSetting checks that a misspelt enabled value fails with
// a message naming the value rather than silently meaning false.
func TestChartMonitoringRejectsUnknownSetting(t *testing.T) {
	_, err := render(t, []string{"controller.clusterName=" + testClusterName, "serviceMonitor.enabled=yes"})
	if err == nil || !strings.Contains(err.Error(), "serviceMonitor.enabled must be auto, true or false") {
		t.Errorf("rendering with serviceMonitor.enabled=yes: error %v, want one naming the allowed values", err)
	}
}

// prometheusRule is the part of a monitoring.coreos.com/v1 PrometheusRule the tests read.
type prometheusRule struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       struct {
		Groups []struct {
			Name  string      `json:"name"`
			Rules []alertRule `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

type alertRule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// kustomizeAlerts reads the alerts of config/prometheus/alerts.yaml.
func kustomizeAlerts(t *testing.T) prometheusRule {
	t.Helper()
	var rule prometheusRule
	readManifestFile(t, filepath.Join(configDir, "prometheus", "alerts.yaml")).decodeOnly(t, "PrometheusRule", &rule)
	if len(rule.Spec.Groups) != 1 || len(rule.Spec.Groups[0].Rules) != 3 {
		t.Fatalf("config/prometheus/alerts.yaml has groups %+v, want one group of three alerts", rule.Spec.Groups)
	}
	return rule
}

// TestChartAlertsMatchKustomize checks that with default values the chart's alerts are
// config/prometheus/alerts.yaml's: same group, names, expressions, durations, labels and
// annotations, Prometheus' {{ $labels.* }} templates left intact.
func TestChartAlertsMatchKustomize(t *testing.T) {
	var chartRule prometheusRule
	mustRender(t, nil, prometheusOperatorAPIs...).Objects.decodeOnly(t, "PrometheusRule", &chartRule)
	if !reflect.DeepEqual(chartRule.Spec, kustomizeAlerts(t).Spec) {
		t.Errorf("the chart's alerts differ from config/prometheus/alerts.yaml:\nchart:     %+v\nkustomize: %+v", chartRule.Spec, kustomizeAlerts(t).Spec)
	}
}

// TestChartAlertLabelsAndRunbookURL checks that prometheusRule.alertLabels reach every alert
// (and win over the alert's own labels) and that runbookBaseURL gives each alert an anchor
// of its lower-cased name.
func TestChartAlertLabelsAndRunbookURL(t *testing.T) {
	const runbookBaseURL = "https://wiki.example.com/karpenter/runbooks"
	var rule prometheusRule
	mustRender(t, []string{
		"prometheusRule.alertLabels.team=platform",
		"prometheusRule.alertLabels.service=nodes",
		"prometheusRule.runbookBaseURL=" + runbookBaseURL,
	}, prometheusOperatorAPIs...).Objects.decodeOnly(t, "PrometheusRule", &rule)

	want := kustomizeAlerts(t).Spec.Groups[0].Rules
	rules := rule.Spec.Groups[0].Rules
	if len(rules) != len(want) {
		t.Fatalf("%d alerts, want %d", len(rules), len(want))
	}
	for index, alert := range rules {
		if alert.Alert != want[index].Alert {
			t.Errorf("alert %d is %s, want %s", index, alert.Alert, want[index].Alert)
		}
		wantLabels := map[string]string{"severity": want[index].Labels["severity"], "service": "nodes", "team": "platform"}
		if !reflect.DeepEqual(alert.Labels, wantLabels) {
			t.Errorf("%s labels %v, want %v", alert.Alert, alert.Labels, wantLabels)
		}
		if got, wantURL := alert.Annotations["runbook_url"], runbookBaseURL+"#"+strings.ToLower(alert.Alert); got != wantURL {
			t.Errorf("%s runbook_url %q, want %q", alert.Alert, got, wantURL)
		}
	}
}

// TestChartMonitoringAdditionalLabels checks that additionalLabels (what a Prometheus selects
// its ServiceMonitors and rules by) reach the two objects, next to the chart's labels.
func TestChartMonitoringAdditionalLabels(t *testing.T) {
	rendered := mustRender(t, []string{
		"serviceMonitor.additionalLabels.release=kube-prometheus-stack",
		"prometheusRule.additionalLabels.release=rules-stack",
		"prometheusRule.additionalLabels.role=alert-rules",
	}, prometheusOperatorAPIs...)
	for kind, want := range map[string]map[string]string{
		"ServiceMonitor": {"release": "kube-prometheus-stack"},
		"PrometheusRule": {"release": "rules-stack", "role": "alert-rules"},
	} {
		objects := rendered.Objects.ofKind(kind)
		if len(objects) != 1 {
			t.Fatalf("%d objects of kind %s, want 1", len(objects), kind)
		}
		for key, value := range want {
			if objects[0].Labels[key] != value {
				t.Errorf("%s label %s = %q, want %q", kind, key, objects[0].Labels[key], value)
			}
		}
		if objects[0].Labels["app.kubernetes.io/name"] != podNameLabel {
			t.Errorf("%s lost the chart's labels: %v", kind, objects[0].Labels)
		}
	}
}

// TestChartImage checks the image string controller.image.* give.
func TestChartImage(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	cases := []struct {
		name     string
		settings []string
		image    string
		policy   corev1.PullPolicy
	}{
		{name: "defaults", image: "karpenter-provider-kakaocloud:0.1.0", policy: corev1.PullIfNotPresent},
		{
			name:     "repository and tag",
			settings: []string{"controller.image.repository=registry.example.com/karpenter/controller", "controller.image.tag=1.2.3", "controller.image.pullPolicy=Always"},
			image:    "registry.example.com/karpenter/controller:1.2.3",
			policy:   corev1.PullAlways,
		},
		{
			name:     "digest next to the default tag",
			settings: []string{"controller.image.repository=registry.example.com/karpenter/controller", "controller.image.digest=" + digest},
			image:    "registry.example.com/karpenter/controller:0.1.0@" + digest,
			policy:   corev1.PullIfNotPresent,
		},
		{
			name:     "digest next to a tag",
			settings: []string{"controller.image.tag=1.2.3", "controller.image.digest=" + digest},
			image:    "karpenter-provider-kakaocloud:1.2.3@" + digest,
			policy:   corev1.PullIfNotPresent,
		},
	}
	for _, testCase := range cases {
		t.Run(testCase.name, func(t *testing.T) {
			_, container := controllerDeployment(t, mustRender(t, testCase.settings).Objects)
			if container.Image != testCase.image || container.ImagePullPolicy != testCase.policy {
				t.Errorf("image %q pull policy %s, want %q %s", container.Image, container.ImagePullPolicy, testCase.image, testCase.policy)
			}
		})
	}
	t.Run("not a digest", func(t *testing.T) {
		_, err := render(t, []string{"controller.clusterName=" + testClusterName, "controller.image.digest=0123abcd"})
		if err == nil || !strings.Contains(err.Error(), "controller.image.digest") {
			t.Errorf("error %v, want one naming controller.image.digest", err)
		}
	})
}

// TestChartCRDsAreConfigCRDs checks that crds/ holds byte-identical copies of
// config/crd/bases (what make manifests generates), and that Helm sees all of them as CRDs
// to install.
func TestChartCRDsAreConfigCRDs(t *testing.T) {
	generated, err := filepath.Glob(filepath.Join(configDir, "crd", "bases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	copies, err := filepath.Glob(filepath.Join(chartDir, "crds", "*"))
	if err != nil {
		t.Fatal(err)
	}
	baseNames := func(paths []string) []string {
		var names []string
		for _, path := range paths {
			names = append(names, filepath.Base(path))
		}
		return names
	}
	if len(generated) != 4 || !slices.Equal(baseNames(generated), baseNames(copies)) {
		t.Fatalf("crds/ holds %v, config/crd/bases %v; want the same four files", baseNames(copies), baseNames(generated))
	}
	chartCRDs := map[string][]byte{}
	for _, crd := range loadChart(t).CRDObjects() {
		chartCRDs[filepath.Base(crd.Name)] = crd.File.Data
	}
	for _, path := range generated {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		got, err := os.ReadFile(filepath.Join(chartDir, "crds", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("crds/%s differs from config/crd/bases/%s: copy it again after make manifests", name, name)
		}
		if !bytes.Equal(chartCRDs[name], want) {
			t.Errorf("Helm does not load crds/%s as the CRD config/crd/bases/%s", name, name)
		}
	}
}

// roleRules decodes the rules of a ClusterRole or Role of a manifest.
func roleRules(t *testing.T, objects manifest, kind, name string) []rbacv1.PolicyRule {
	t.Helper()
	if kind == "ClusterRole" {
		var role rbacv1.ClusterRole
		objects.decode(t, kind, name, &role)
		return role.Rules
	}
	var role rbacv1.Role
	objects.decode(t, kind, name, &role)
	return role.Rules
}

// TestChartRBACMatchesKustomize checks that the chart grants the controller exactly what
// config/rbac and config/rbac-bootstrap grant it (role.yaml being generated from the code's
// RBAC markers), Kubernetes' Role that reads the front-proxy CA included, binds every role to
// the chart's ServiceAccount, uses no wildcard, and lets the controller create and delete
// Secrets only in kube-system and read them only in its namespace, by name.
func TestChartRBACMatchesKustomize(t *testing.T) {
	rendered := mustRender(t, nil).Objects
	generated := readManifestFile(t, filepath.Join(configDir, "rbac", "role.yaml"))
	leaderElection := readManifestFile(t, filepath.Join(configDir, "rbac", "leader_election_role.yaml"))
	metricsAuth := readManifestFile(t, filepath.Join(configDir, "rbac", "metrics_auth_role.yaml"))
	metricsReader := readManifestFile(t, filepath.Join(configDir, "rbac", "metrics_reader_role.yaml"))
	pluginReader := readManifestFile(t, filepath.Join(configDir, "rbac", "plugin_reader_role.yaml"))
	bootstrapTokens := readManifestFile(t, filepath.Join(configDir, "rbac-bootstrap", "role.yaml"))
	var authReader rbacv1.RoleBinding
	readManifestFile(t, filepath.Join(configDir, "rbac-bootstrap", "auth_reader_role_binding.yaml")).decodeOnly(t, "RoleBinding", &authReader)
	for _, pair := range []struct {
		kind, chartName string
		source          manifest
		sourceName      string
	}{
		{"ClusterRole", releaseName + "-manager", generated, "manager-role"},
		{"Role", releaseName + "-manager", generated, "manager-role"},
		{"Role", releaseName + "-leader-election", leaderElection, "leader-election-role"},
		{"Role", releaseName + "-bootstrap-tokens", bootstrapTokens, "karpenter-kakaocloud-bootstrap-tokens"},
		{"ClusterRole", releaseName + "-metrics-auth", metricsAuth, "metrics-auth-role"},
		{"ClusterRole", releaseName + "-metrics-reader", metricsReader, "metrics-reader"},
		{"ClusterRole", releaseName + "-plugin-reader", pluginReader, "plugin-reader-role"},
	} {
		got := roleRules(t, rendered, pair.kind, pair.chartName)
		want := roleRules(t, pair.source, pair.kind, pair.sourceName)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s rules differ from config/rbac's %s:\nchart:     %+v\nkustomize: %+v", pair.kind, pair.chartName, pair.sourceName, got, want)
		}
	}

	for _, kind := range []string{"ClusterRole", "Role"} {
		for _, object := range rendered.ofKind(kind) {
			for _, rule := range roleRules(t, rendered, kind, object.Name) {
				for _, field := range [][]string{rule.APIGroups, rule.Resources, rule.Verbs, rule.ResourceNames, rule.NonResourceURLs} {
					if slices.Contains(field, "*") {
						t.Errorf("%s %s has a wildcard rule %+v", kind, object.Name, rule)
					}
				}
				if !slices.Contains(rule.APIGroups, "") || !slices.Contains(rule.Resources, "secrets") {
					continue
				}
				for _, verb := range rule.Verbs {
					managingTokens := (verb == "create" || verb == "deletecollection") && object.Namespace == tokenNamespace
					reading := verb == "get" && len(rule.ResourceNames) > 0 && object.Namespace == releaseNamespace
					if kind == "ClusterRole" || (!managingTokens && !reading) {
						t.Errorf("%s %s grants %s on Secrets in %q; want create and deletecollection in %s and get by name in %s only", kind, object.Name, verb, object.Namespace, tokenNamespace, releaseNamespace)
					}
				}
			}
		}
	}

	var serviceAccount corev1.ServiceAccount
	rendered.decodeOnly(t, "ServiceAccount", &serviceAccount)
	deployment, _ := controllerDeployment(t, rendered)
	if deployment.Spec.Template.Spec.ServiceAccountName != serviceAccount.Name {
		t.Errorf("the Deployment runs as %s, the chart creates ServiceAccount %s", deployment.Spec.Template.Spec.ServiceAccountName, serviceAccount.Name)
	}
	wantSubjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccount.Name, Namespace: releaseNamespace}}
	// The bindings of Kubernetes' own roles to the group of joining nodes are kustomize's.
	nodeBindings := map[string][]rbacv1.Subject{}
	for _, object := range readManifestFile(t, filepath.Join(configDir, "rbac-bootstrap", "node_bootstrap.yaml")).ofKind("ClusterRoleBinding") {
		var binding rbacv1.ClusterRoleBinding
		if err := yaml.Unmarshal(object.Document, &binding); err != nil {
			t.Fatal(err)
		}
		nodeBindings[binding.RoleRef.Name] = binding.Subjects
	}
	bound := map[string]bool{}
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		for _, object := range rendered.ofKind(kind) {
			var binding rbacv1.RoleBinding // a ClusterRoleBinding has the same fields
			if err := yaml.Unmarshal(object.Document, &binding); err != nil {
				t.Fatal(err)
			}
			if subjects, ok := nodeBindings[binding.RoleRef.Name]; ok && kind == "ClusterRoleBinding" {
				if !reflect.DeepEqual(binding.Subjects, subjects) {
					t.Errorf("%s %s subjects %+v, want kustomize's %+v", kind, binding.Name, binding.Subjects, subjects)
				}
				delete(nodeBindings, binding.RoleRef.Name)
				continue
			}
			if !reflect.DeepEqual(binding.Subjects, wantSubjects) {
				t.Errorf("%s %s subjects %+v, want %+v", kind, binding.Name, binding.Subjects, wantSubjects)
			}
			bound[binding.RoleRef.Kind+"/"+binding.RoleRef.Name] = true
			// Kubernetes' own Role, bound where kustomize binds it.
			if binding.RoleRef == authReader.RoleRef {
				if binding.Namespace != authReader.Namespace {
					t.Errorf("%s %s binds %s in %q, want %s", kind, binding.Name, authReader.RoleRef.Name, binding.Namespace, authReader.Namespace)
				}
				continue
			}
			if !slices.ContainsFunc(rendered.ofKind(binding.RoleRef.Kind), func(role manifestObject) bool {
				return role.Name == binding.RoleRef.Name && role.Namespace == binding.Namespace
			}) {
				t.Errorf("%s %s refers to %s %s, which the chart does not render next to it", kind, binding.Name, binding.RoleRef.Kind, binding.RoleRef.Name)
			}
		}
	}
	for role := range nodeBindings {
		t.Errorf("the chart does not bind ClusterRole %s to the joining nodes' group, as config/rbac-bootstrap does", role)
	}
	// Every role but metrics-reader and the plugin's, which are for scrapers and people, is
	// bound to the controller.
	for _, name := range []string{"ClusterRole/" + releaseName + "-manager", "Role/" + releaseName + "-manager", "Role/" + releaseName + "-leader-election", "Role/" + releaseName + "-bootstrap-tokens",
		"ClusterRole/" + releaseName + "-metrics-auth", "Role/" + authReaderRole} {
		if !bound[name] {
			t.Errorf("%s is not bound to the controller's ServiceAccount", name)
		}
	}
}

// TestChartDeploymentMatchesKustomize checks that the chart runs the controller as the
// kustomize Deployment of config/default does: same command, arguments, environment, ports,
// probes, resources, hardening, placement and certificate mount.
func TestChartDeploymentMatchesKustomize(t *testing.T) {
	var kustomizeDeployment appsv1.Deployment
	kustomizeBuild(t, "default").decodeOnly(t, "Deployment", &kustomizeDeployment)
	kustomizeContainer := kustomizeDeployment.Spec.Template.Spec.Containers[0]
	// The kustomize Deployment carries a placeholder cluster name; render the chart with it so
	// that the whole environment can be compared.
	var clusterName string
	for _, variable := range kustomizeContainer.Env {
		if variable.Name == "CLUSTER_NAME" {
			clusterName = variable.Value
		}
	}
	rendered, err := render(t, []string{"controller.clusterName=" + clusterName})
	if err != nil {
		t.Fatal(err)
	}
	deployment, container := controllerDeployment(t, rendered.Objects)

	for _, field := range []struct {
		name             string
		chart, kustomize any
	}{
		{"command", container.Command, kustomizeContainer.Command},
		{"args", container.Args, kustomizeContainer.Args},
		{"env", container.Env, kustomizeContainer.Env},
		{"ports", container.Ports, kustomizeContainer.Ports},
		{"livenessProbe", container.LivenessProbe, kustomizeContainer.LivenessProbe},
		{"readinessProbe", container.ReadinessProbe, kustomizeContainer.ReadinessProbe},
		{"resources", container.Resources, kustomizeContainer.Resources},
		{"container securityContext", container.SecurityContext, kustomizeContainer.SecurityContext},
		{"volumeMounts", container.VolumeMounts, kustomizeContainer.VolumeMounts},
		{"pod securityContext", deployment.Spec.Template.Spec.SecurityContext, kustomizeDeployment.Spec.Template.Spec.SecurityContext},
		{"priorityClassName", deployment.Spec.Template.Spec.PriorityClassName, kustomizeDeployment.Spec.Template.Spec.PriorityClassName},
		{"nodeAffinity", deployment.Spec.Template.Spec.Affinity.NodeAffinity, kustomizeDeployment.Spec.Template.Spec.Affinity.NodeAffinity},
		{"terminationGracePeriodSeconds", deployment.Spec.Template.Spec.TerminationGracePeriodSeconds, kustomizeDeployment.Spec.Template.Spec.TerminationGracePeriodSeconds},
		{"replicas", deployment.Spec.Replicas, kustomizeDeployment.Spec.Replicas},
		{"strategy", deployment.Spec.Strategy, kustomizeDeployment.Spec.Strategy},
	} {
		if !reflect.DeepEqual(field.chart, field.kustomize) {
			t.Errorf("%s differs:\nchart:     %+v\nkustomize: %+v", field.name, field.chart, field.kustomize)
		}
	}

	// The certificate volume must be the Secret the chart issues, a TLS Secret.
	volumes := deployment.Spec.Template.Spec.Volumes
	if len(volumes) != 1 || volumes[0].Name != "webhook-certs" || volumes[0].Secret == nil {
		t.Fatalf("volumes %+v, want the webhook-certs Secret volume", volumes)
	}
	var secret corev1.Secret
	rendered.Objects.decode(t, "Secret", volumes[0].Secret.SecretName, &secret)
	if secret.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret %s has type %s, want %s", secret.Name, secret.Type, corev1.SecretTypeTLS)
	}
}

// TestChartWebhooksMatchKustomize checks that the chart registers the webhooks of
// config/webhook/manifests.yaml pointed at its own Service, that the Service reaches the
// container's webhook port, and that the caBundle verifies the serving certificate for the
// Service's DNS name.
func TestChartWebhooksMatchKustomize(t *testing.T) {
	rendered := mustRender(t, nil).Objects
	var configuration admissionregistrationv1.ValidatingWebhookConfiguration
	rendered.decodeOnly(t, "ValidatingWebhookConfiguration", &configuration)
	var kustomizeConfiguration admissionregistrationv1.ValidatingWebhookConfiguration
	readManifestFile(t, filepath.Join(configDir, "webhook", "manifests.yaml")).decodeOnly(t, "ValidatingWebhookConfiguration", &kustomizeConfiguration)

	serviceName := releaseName + "-webhook"
	var secret corev1.Secret
	rendered.decode(t, "Secret", releaseName+"-webhook-cert", &secret)
	want := kustomizeConfiguration.DeepCopy().Webhooks
	for index := range want {
		want[index].ClientConfig.Service.Name = serviceName
		want[index].ClientConfig.Service.Namespace = releaseNamespace
		want[index].ClientConfig.CABundle = secret.Data["ca.crt"]
	}
	if !reflect.DeepEqual(configuration.Webhooks, want) {
		t.Errorf("webhooks differ from config/webhook/manifests.yaml's (with the chart's Service and CA):\nchart: %+v\nwant:  %+v", configuration.Webhooks, want)
	}

	var service corev1.Service
	rendered.decode(t, "Service", serviceName, &service)
	deployment, container := controllerDeployment(t, rendered)
	if !reflect.DeepEqual(service.Spec.Selector, deployment.Spec.Selector.MatchLabels) {
		t.Errorf("webhook Service selector %v, Deployment selector %v", service.Spec.Selector, deployment.Spec.Selector.MatchLabels)
	}
	if len(service.Spec.Ports) != 1 || service.Spec.Ports[0].Port != 443 || service.Spec.Ports[0].TargetPort.IntValue() != 9443 {
		t.Errorf("webhook Service ports %+v, want 443 to 9443", service.Spec.Ports)
	}
	if !slices.ContainsFunc(container.Ports, func(port corev1.ContainerPort) bool { return port.ContainerPort == 9443 }) {
		t.Errorf("container ports %+v do not include 9443", container.Ports)
	}

	verifyServingCertificate(t, secret.Data, serviceName+"."+releaseNamespace+".svc")
}

// TestChartAPIServiceMatchesKustomize checks that the chart registers whatif's APIService as
// config/apiservice does, pointed at its webhook Service and trusting its webhooks' CA: the
// generated CA, or with cert-manager the injection from the webhooks' Certificate.
func TestChartAPIServiceMatchesKustomize(t *testing.T) {
	var kustomizeAPIService registeredAPIService
	readManifestFile(t, filepath.Join(configDir, "apiservice", "apiservice.yaml")).decodeOnly(t, "APIService", &kustomizeAPIService)
	want := kustomizeAPIService.Spec
	want.Service.Name = releaseName + "-webhook"
	want.Service.Namespace = releaseNamespace

	rendered := mustRender(t, nil).Objects
	var apiService registeredAPIService
	rendered.decodeOnly(t, "APIService", &apiService)
	var secret corev1.Secret
	rendered.decode(t, "Secret", releaseName+"-webhook-cert", &secret)
	generated := want
	generated.CABundle = secret.Data["ca.crt"]
	if apiService.Metadata.Name != kustomizeAPIService.Metadata.Name || !reflect.DeepEqual(apiService.Spec, generated) {
		t.Errorf("APIService %s differs from config/apiservice's %s (with the chart's Service and CA):\nchart: %+v\nwant:  %+v",
			apiService.Metadata.Name, kustomizeAPIService.Metadata.Name, apiService.Spec, generated)
	}

	rendered = mustRender(t, []string{"webhook.certificate.certManager.enabled=true"}).Objects
	var injected registeredAPIService
	rendered.decodeOnly(t, "APIService", &injected)
	var webhooks admissionregistrationv1.ValidatingWebhookConfiguration
	rendered.decodeOnly(t, "ValidatingWebhookConfiguration", &webhooks)
	if !reflect.DeepEqual(injected.Spec, want) {
		t.Errorf("with cert-manager the APIService is\n%+v, want\n%+v (no caBundle: cert-manager injects it)", injected.Spec, want)
	}
	if got := injected.Metadata.Annotations[injectCAFrom]; got == "" || got != webhooks.Annotations[injectCAFrom] {
		t.Errorf("with cert-manager the APIService's %s is %q, the webhooks' %q", injectCAFrom, got, webhooks.Annotations[injectCAFrom])
	}
}

// verifyServingCertificate checks that the Secret's ca.crt verifies its tls.crt for dnsName,
// and that tls.key is the certificate's key.
func verifyServingCertificate(t *testing.T, data map[string][]byte, dnsName string) {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(data["ca.crt"]) {
		t.Fatalf("ca.crt holds no PEM certificate")
	}
	keyPair, err := tls.X509KeyPair(data["tls.crt"], data["tls.key"])
	if err != nil {
		t.Fatalf("tls.crt and tls.key are not a key pair: %v", err)
	}
	block, _ := pem.Decode(data["tls.crt"])
	if block == nil {
		t.Fatal("tls.crt holds no PEM block")
	}
	certificate, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(keyPair.Certificate) != 1 {
		t.Errorf("tls.crt holds %d certificates, want 1", len(keyPair.Certificate))
	}
	if _, err := certificate.Verify(x509.VerifyOptions{Roots: roots, DNSName: dnsName, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("the serving certificate does not verify for %s with ca.crt: %v", dnsName, err)
	}
}

// restClientGetter gives Helm's action package the envtest API server: the
// genericclioptions.RESTClientGetter that helm builds from a kubeconfig, built from a
// rest.Config instead. The discovery client and REST mapper are shared so that Helm's
// invalidations after installing CRDs reach every later lookup.
type restClientGetter struct {
	config    *rest.Config
	namespace string

	once      sync.Once
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
	err       error
}

func (g *restClientGetter) ToRESTConfig() (*rest.Config, error) {
	return rest.CopyConfig(g.config), nil
}

func (g *restClientGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	g.once.Do(func() {
		client, err := discovery.NewDiscoveryClientForConfig(g.config)
		if err != nil {
			g.err = err
			return
		}
		g.discovery = memory.NewMemCacheClient(client)
		g.mapper = restmapper.NewDeferredDiscoveryRESTMapper(g.discovery)
	})
	return g.discovery, g.err
}

func (g *restClientGetter) ToRESTMapper() (meta.RESTMapper, error) {
	if _, err := g.ToDiscoveryClient(); err != nil {
		return nil, err
	}
	return g.mapper, nil
}

// ToRawKubeConfigLoader only serves the default namespace: Helm reads nothing else from it
// once ToRESTConfig is given.
func (g *restClientGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return clientcmd.NewDefaultClientConfig(*clientcmdapi.NewConfig(), &clientcmd.ConfigOverrides{Context: clientcmdapi.Context{Namespace: g.namespace}})
}

// envtestAssets returns the directory of kube-apiserver and etcd, $KUBEBUILDER_ASSETS, which
// make test-packaging sets from hack/build-k8s-binaries.sh.
func envtestAssets(t *testing.T) string {
	t.Helper()
	return os.Getenv("KUBEBUILDER_ASSETS")
}

// startAPIServer starts a kube-apiserver and etcd (envtest) for the test, stopped when it ends.
func startAPIServer(t *testing.T) *rest.Config {
	t.Helper()
	assets := envtestAssets(t)
	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		t.Skipf("no kube-apiserver in KUBEBUILDER_ASSETS=%q (make test-packaging sets it): %v", assets, err)
	}
	environment := &envtest.Environment{BinaryAssetsDirectory: assets}
	config, err := environment.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() {
		if err := environment.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	})
	return config
}

// TestChartHelmLifecycle runs what the product documents tell operators to do, with the Helm
// SDK against a real API server: install, upgrade --reuse-values with a new image tag,
// history, rollback to revision 1, uninstall. Nothing waits for pods: envtest runs no
// kubelet, and what is tested is what Helm does to the API objects.
func TestChartHelmLifecycle(t *testing.T) {
	config := startAPIServer(t)
	ctx := t.Context()
	clients := kubernetes.NewForConfigOrDie(config)
	crdClient := apiextensionsclientset.NewForConfigOrDie(config)

	helm := new(action.Configuration)
	if err := helm.Init(&restClientGetter{config: config, namespace: releaseNamespace}, releaseNamespace, "secret", t.Logf); err != nil {
		t.Fatalf("initialising Helm: %v", err)
	}

	deploymentImage := func() (string, map[string]string) {
		t.Helper()
		deployment, err := clients.AppsV1().Deployments(releaseNamespace).Get(ctx, releaseName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the Deployment: %v", err)
		}
		return deployment.Spec.Template.Spec.Containers[0].Image, containerEnv(deployment)
	}
	webhookCertificate := func() map[string][]byte {
		t.Helper()
		secret, err := clients.CoreV1().Secrets(releaseNamespace).Get(ctx, releaseName+"-webhook-cert", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the webhook certificate Secret: %v", err)
		}
		return secret.Data
	}
	apiServices := dynamic.NewForConfigOrDie(config).Resource(apiServicesResource)
	// caBundles are the webhooks' and whatif's APIService's.
	caBundles := func() [][]byte {
		t.Helper()
		configuration, err := clients.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, releaseName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the webhook configuration: %v", err)
		}
		var bundles [][]byte
		for _, webhook := range configuration.Webhooks {
			bundles = append(bundles, webhook.ClientConfig.CABundle)
		}
		apiService, err := apiServices.Get(ctx, explainAPIService, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the APIService: %v", err)
		}
		var registered registeredAPIService
		fromUnstructured(t, apiService, &registered)
		return append(bundles, registered.Spec.CABundle)
	}

	// helm install karpenter-provider-kakaocloud <chart> -n karpenter-kakaocloud --create-namespace --set controller.clusterName=...
	install := action.NewInstall(helm)
	install.ReleaseName = releaseName
	install.Namespace = releaseNamespace
	install.CreateNamespace = true
	install.Timeout = time.Minute
	installed, err := install.RunWithContext(ctx, loadChart(t), parseSettings(t, []string{
		"controller.clusterName=lifecycle-cluster",
		"credentials.secretName=lifecycle-credentials",
	}))
	if err != nil {
		t.Fatalf("helm install: %v", err)
	}
	if installed.Version != 1 || installed.Info.Status != release.StatusDeployed {
		t.Fatalf("installed revision %d status %s, want 1 deployed", installed.Version, installed.Info.Status)
	}
	for _, crd := range []string{"kcnodeclasses.karpenter.kakaocloud.com", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"} {
		if _, err := crdClient.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd, metav1.GetOptions{}); err != nil {
			t.Errorf("CRD %s after install: %v", crd, err)
		}
	}
	image, env := deploymentImage()
	if image != "karpenter-provider-kakaocloud:0.1.0" || env["CLUSTER_NAME"] != "lifecycle-cluster" {
		t.Errorf("installed image %s, CLUSTER_NAME %s; want karpenter-provider-kakaocloud:0.1.0, lifecycle-cluster", image, env["CLUSTER_NAME"])
	}
	installedCertificate := webhookCertificate()
	verifyServingCertificate(t, installedCertificate, releaseName+"-webhook."+releaseNamespace+".svc")
	for _, bundle := range caBundles() {
		if !bytes.Equal(bundle, installedCertificate["ca.crt"]) {
			t.Errorf("a webhook's or the APIService's caBundle is not the Secret's ca.crt")
		}
	}

	// helm upgrade --reuse-values --set controller.image.tag=0.1.1
	upgrade := action.NewUpgrade(helm)
	upgrade.Namespace = releaseNamespace
	upgrade.ReuseValues = true
	upgrade.Timeout = time.Minute
	upgraded, err := upgrade.RunWithContext(ctx, releaseName, loadChart(t), parseSettings(t, []string{"controller.image.tag=0.1.1"}))
	if err != nil {
		t.Fatalf("helm upgrade --reuse-values: %v", err)
	}
	if upgraded.Version != 2 {
		t.Errorf("upgraded revision %d, want 2", upgraded.Version)
	}
	image, env = deploymentImage()
	if image != "karpenter-provider-kakaocloud:0.1.1" {
		t.Errorf("image after upgrade %s, want karpenter-provider-kakaocloud:0.1.1", image)
	}
	if env["CLUSTER_NAME"] != "lifecycle-cluster" || env["CREDENTIALS_SECRET"] != "lifecycle-credentials" {
		t.Errorf("after upgrade --reuse-values CLUSTER_NAME %q, CREDENTIALS_SECRET %q; want the installed lifecycle-cluster, lifecycle-credentials", env["CLUSTER_NAME"], env["CREDENTIALS_SECRET"])
	}
	// The running pods serve the certificate issued at install: an upgrade must not replace it.
	if !reflect.DeepEqual(webhookCertificate(), installedCertificate) {
		t.Error("the upgrade replaced the webhook certificate; it must read the existing Secret back")
	}
	for _, bundle := range caBundles() {
		if !bytes.Equal(bundle, installedCertificate["ca.crt"]) {
			t.Errorf("after the upgrade a webhook's or the APIService's caBundle is not the installed CA")
		}
	}

	// helm rollback karpenter-provider-kakaocloud 1
	rollback := action.NewRollback(helm)
	rollback.Version = 1
	rollback.Timeout = time.Minute
	if err := rollback.Run(releaseName); err != nil {
		t.Fatalf("helm rollback to 1: %v", err)
	}
	image, env = deploymentImage()
	if image != "karpenter-provider-kakaocloud:0.1.0" || env["CLUSTER_NAME"] != "lifecycle-cluster" {
		t.Errorf("after rollback image %s, CLUSTER_NAME %s; want karpenter-provider-kakaocloud:0.1.0, lifecycle-cluster", image, env["CLUSTER_NAME"])
	}
	if !reflect.DeepEqual(webhookCertificate(), installedCertificate) {
		t.Error("the rollback replaced the webhook certificate")
	}

	// helm history karpenter-provider-kakaocloud
	history, err := action.NewHistory(helm).Run(releaseName)
	if err != nil {
		t.Fatalf("helm history: %v", err)
	}
	var statuses []string
	for _, revision := range history {
		statuses = append(statuses, revision.Info.Status.String())
	}
	slices.Sort(statuses) // History returns revisions in storage order.
	if want := []string{"deployed", "superseded", "superseded"}; !slices.Equal(statuses, want) {
		t.Errorf("history statuses %v, want %v (install, upgrade, rollback)", statuses, want)
	}

	// helm uninstall karpenter-provider-kakaocloud
	uninstall := action.NewUninstall(helm)
	uninstall.DeletionPropagation = "background"
	uninstall.Timeout = time.Minute
	if _, err := uninstall.Run(releaseName); err != nil {
		t.Fatalf("helm uninstall: %v", err)
	}
	dynamicClient := dynamic.NewForConfigOrDie(config)
	mapper, err := (&restClientGetter{config: config}).ToRESTMapper()
	if err != nil {
		t.Fatal(err)
	}
	// Everything release 1 made (as rolled back to, the current manifest) must be gone.
	for _, object := range parseManifest(t, []byte(installed.Manifest)) {
		var typeMeta metav1.TypeMeta
		if err := yaml.Unmarshal(object.Document, &typeMeta); err != nil {
			t.Fatal(err)
		}
		mapping, err := mapper.RESTMapping(typeMeta.GroupVersionKind().GroupKind(), typeMeta.GroupVersionKind().Version)
		if err != nil {
			t.Fatalf("mapping %s: %v", object.Kind, err)
		}
		resource := dynamicClient.Resource(mapping.Resource)
		var client dynamic.ResourceInterface = resource
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			client = resource.Namespace(object.Namespace)
		}
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := client.Get(ctx, object.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
		if err != nil {
			t.Errorf("%s %s still there after uninstall: %v", object.Kind, object.Name, err)
		}
	}
	// Helm never deletes what it installed from crds/: deleting a CRD would delete every
	// NodePool, NodeClaim and KCNodeClass with it.
	for _, crd := range []string{"kcnodeclasses.karpenter.kakaocloud.com", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"} {
		if _, err := crdClient.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd, metav1.GetOptions{}); err != nil {
			t.Errorf("CRD %s after uninstall: %v; Helm must keep crds/", crd, err)
		}
	}
	if releases, err := action.NewHistory(helm).Run(releaseName); err == nil && len(releases) > 0 {
		t.Errorf("the release still has %d revisions after uninstall", len(releases))
	}
}
