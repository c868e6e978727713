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
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The aggregated API kubectl karpenter whatif asks the operator through.
const (
	explainGroup      = "explain.karpenter.kakaocloud.com"
	explainVersion    = "v1alpha1"
	explainResource   = "whatifs"
	explainAPIService = explainVersion + "." + explainGroup
)

// webhookServerPort is where the manager serves its webhooks and whatif's aggregated API.
const webhookServerPort = 9443

// injectCAFrom is cert-manager's annotation that has it write a Certificate's CA into the
// caBundle of the annotated webhook configuration or APIService.
const injectCAFrom = "cert-manager.io/inject-ca-from"

// Where the API server's trust in a serving certificate comes from, besides a caBundle.
const (
	caFromOLM = "OLM's own CA"
	caNone    = "no caBundle and no cert-manager injection"
)

// endpoint is where the API server sends a request to the operator: a Service, the container
// port behind it, and what the API server trusts its certificate by.
type endpoint struct {
	service, namespace string
	containerPort      int32
	ca                 string
}

func (e endpoint) String() string {
	return fmt.Sprintf("Service %s/%s to container port %d, trusted by %s", e.namespace, e.service, e.containerPort, e.ca)
}

// apiService is an APIService a path registers, directly or through OLM.
type apiService struct {
	name, group, version string
	endpoint
}

// aggregatedAPIProblems checks that a path serving the admission webhooks also registers
// whatif's APIService, served as they are: by their Service, at their container port, trusted
// by the same CA. A path without the webhooks (the local overlay, whose operator runs on the
// machine and whose APIService hack/local-up registers) registers none.
func aggregatedAPIProblems(r rendered) []string {
	var problems []string
	webhooks := r.webhookEndpoints()
	apiServices := r.apiServices()
	if len(webhooks) == 0 {
		for _, service := range apiServices {
			problems = append(problems, fmt.Sprintf("APIService %s without the webhooks of the operator that serves it", service.name))
		}
		return problems
	}
	if len(apiServices) != 1 || apiServices[0].name != explainAPIService {
		problems = append(problems, fmt.Sprintf("APIServices %v, want %s, whatif's", apiServices, explainAPIService))
	}
	for _, service := range apiServices {
		if service.group != explainGroup || service.version != explainVersion {
			problems = append(problems, fmt.Sprintf("APIService %s serves %s/%s, want %s/%s", service.name, service.group, service.version, explainGroup, explainVersion))
		}
		if !slices.Contains(webhooks, service.endpoint) {
			problems = append(problems, fmt.Sprintf("APIService %s is served by %s, the webhooks by %v: whatif's aggregated API is served by the webhooks' Service and certificate", service.name, service.endpoint, webhooks))
		}
		if service.ca == caNone && !r.byOLM {
			problems = append(problems, fmt.Sprintf("APIService %s has %s: the API server cannot trust the operator", service.name, caNone))
		}
	}
	return problems
}

// webhookEndpoints are where the API server calls the path's admission webhooks.
func (r rendered) webhookEndpoints() []endpoint {
	var endpoints []endpoint
	if csv := r.csv(); csv != nil {
		for _, webhook := range csv.Spec.WebhookDefinitions {
			port := webhook.ContainerPort
			if webhook.TargetPort != nil {
				port = webhook.TargetPort.IntVal
			}
			endpoints = append(endpoints, olmEndpoint(webhook.DeploymentName, port))
		}
	}
	for _, object := range r.ofKind("ValidatingWebhookConfiguration") {
		var configuration admissionregistrationv1.ValidatingWebhookConfiguration
		if runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &configuration) != nil {
			continue
		}
		for _, webhook := range configuration.Webhooks {
			if service := webhook.ClientConfig.Service; service != nil {
				endpoints = append(endpoints, r.serviceEndpoint(service.Namespace, service.Name, service.Port, configuration.Annotations, webhook.ClientConfig.CABundle))
			}
		}
	}
	return endpoints
}

// apiServices are the APIServices the path registers, and OLM for it from the CSV's
// apiservicedefinitions.
func (r rendered) apiServices() []apiService {
	var services []apiService
	if csv := r.csv(); csv != nil {
		for _, definition := range csv.Spec.APIServiceDefinitions.Owned {
			// OLM's Service forwards the port it names (443 unless named) to the same container
			// port.
			port := cmp.Or(definition.ContainerPort, 443)
			services = append(services, apiService{name: definition.GetName(), group: definition.Group, version: definition.Version, endpoint: olmEndpoint(definition.DeploymentName, port)})
		}
	}
	for _, object := range r.ofKind("APIService") {
		var service registeredAPIService
		if runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &service) != nil {
			continue
		}
		reference := service.Spec.Service
		services = append(services, apiService{name: object.GetName(), group: service.Spec.Group, version: service.Spec.Version,
			endpoint: r.serviceEndpoint(reference.Namespace, reference.Name, reference.Port, object.GetAnnotations(), service.Spec.CABundle)})
	}
	return services
}

// apiServicesResource is the API server's resource of APIServices.
var apiServicesResource = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// registeredAPIService is an apiregistration.k8s.io/v1 APIService that names a Service.
type registeredAPIService struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            struct {
		Group                string `json:"group"`
		Version              string `json:"version"`
		GroupPriorityMinimum int32  `json:"groupPriorityMinimum"`
		VersionPriority      int32  `json:"versionPriority"`
		CABundle             []byte `json:"caBundle,omitempty"`
		Service              struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			Port      *int32 `json:"port,omitempty"`
		} `json:"service"`
	} `json:"spec"`
}

// serviceEndpoint follows a reference to a Service of the path to the container port it
// forwards to (0 when the path has no such Service or port).
func (r rendered) serviceEndpoint(namespace, name string, port *int32, annotations map[string]string, caBundle []byte) endpoint {
	e := endpoint{service: name, namespace: namespace, ca: caSource(annotations, caBundle)}
	for _, object := range r.ofKind("Service") {
		var service corev1.Service
		if object.GetName() != name || object.GetNamespace() != namespace || runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &service) != nil {
			continue
		}
		for _, servicePort := range service.Spec.Ports {
			// A reference that names no port is to 443.
			if servicePort.Port == *cmp.Or(port, new(int32(443))) {
				e.containerPort = servicePort.TargetPort.IntVal
			}
		}
	}
	return e
}

// olmEndpoint is OLM's Service for a Deployment's webhooks and APIServices, in the install
// namespace, with OLM's CA.
func olmEndpoint(deployment string, containerPort int32) endpoint {
	return endpoint{service: deployment + "-service", namespace: operatorNamespace, containerPort: containerPort, ca: caFromOLM}
}

// caSource says what the API server trusts a serving certificate by: cert-manager's injection
// from a Certificate, or the caBundle (by its digest).
func caSource(annotations map[string]string, caBundle []byte) string {
	switch {
	case annotations[injectCAFrom] != "":
		return "cert-manager's injection from Certificate " + annotations[injectCAFrom]
	case len(caBundle) > 0:
		return fmt.Sprintf("the caBundle of digest %x", sha256.Sum256(caBundle))
	}
	return caNone
}

// csv is the path's ClusterServiceVersion, if it is a bundle.
func (r rendered) csv() *operatorsv1alpha1.ClusterServiceVersion {
	for _, object := range r.ofKind(operatorsv1alpha1.ClusterServiceVersionKind) {
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, csv) == nil {
			return csv
		}
	}
	return nil
}

// TestAggregatedAPIWiringCatchesEachBreak breaks, one at a time, how a path registers whatif's
// APIService, and expects it found.
func TestAggregatedAPIWiringCatchesEachBreak(t *testing.T) {
	setAPIService := func(value any, path ...string) func(r *rendered) {
		return func(r *rendered) {
			r.editObjects("APIService", func(o *unstructured.Unstructured) {
				if value == nil {
					unstructured.RemoveNestedField(o.Object, path...)
					return
				}
				if err := unstructured.SetNestedField(o.Object, value, path...); err != nil {
					panic(err)
				}
			})
		}
	}
	editCSV := func(edit func(definition *operatorsv1alpha1.APIServiceDescription)) func(r *rendered) {
		return func(r *rendered) {
			r.editObjects(operatorsv1alpha1.ClusterServiceVersionKind, func(o *unstructured.Unstructured) {
				csv := &operatorsv1alpha1.ClusterServiceVersion{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, csv); err != nil {
					panic(err)
				}
				for i := range csv.Spec.APIServiceDefinitions.Owned {
					edit(&csv.Spec.APIServiceDefinitions.Owned[i])
				}
				edited, err := runtime.DefaultUnstructuredConverter.ToUnstructured(csv)
				if err != nil {
					panic(err)
				}
				o.Object = edited
			})
		}
	}
	for name, c := range map[string]struct {
		path   string
		change func(r *rendered)
		want   string
	}{
		"the chart without its APIService":                         {"chart", func(r *rendered) { r.removeObjects("APIService") }, "want " + explainAPIService},
		"the chart's APIService at another Service":                {"chart", setAPIService("karpenter-provider-kakaocloud-metrics", "spec", "service", "name"), "served by the webhooks' Service"},
		"the chart's APIService at a port the Service has not":     {"chart", setAPIService(int64(8443), "spec", "service", "port"), "served by the webhooks' Service"},
		"the chart's APIService trusting another CA":               {"chart", setAPIService("b3RoZXIgQ0E=", "spec", "caBundle"), "served by the webhooks' Service"},
		"the chart's APIService without a caBundle":                {"chart", setAPIService(nil, "spec", "caBundle"), "the API server cannot trust the operator"},
		"the chart's APIService of another group":                  {"chart", setAPIService("other.karpenter.kakaocloud.com", "spec", "group"), "want explain.karpenter.kakaocloud.com/v1alpha1"},
		"kustomize's APIService without cert-manager's injection":  {"config/default", setAPIService(nil, "metadata", "annotations"), "the API server cannot trust the operator"},
		"kustomize's APIService injected from another Certificate": {"config/default", setAPIService(map[string]any{injectCAFrom: operatorNamespace + "/karpenter-kakaocloud-metrics-certs"}, "metadata", "annotations"), "served by the webhooks' Service"},
		"the bundle without its apiservicedefinition":              {"bundle", editCSV(func(d *operatorsv1alpha1.APIServiceDescription) { d.Group = "other.karpenter.kakaocloud.com" }), "want " + explainAPIService},
		"the bundle's APIService at OLM's default port":            {"bundle", editCSV(func(d *operatorsv1alpha1.APIServiceDescription) { d.ContainerPort = 0 }), "served by the webhooks' Service"},
		"the bundle's APIService of another Deployment":            {"bundle", editCSV(func(d *operatorsv1alpha1.APIServiceDescription) { d.DeploymentName = "other" }), "served by the webhooks' Service"},
		"an APIService in the local overlay": {"config/overlays/local", func(r *rendered) {
			r.objects = append(r.objects, renderKustomization(t, "config/default").ofKind("APIService")...)
		}, "without the webhooks"},
	} {
		t.Run(name, func(t *testing.T) {
			r := renderPath(t, c.path)
			if problems := aggregatedAPIProblems(r); len(problems) != 0 {
				t.Fatalf("%s as it is: %v", c.path, problems)
			}
			c.change(&r)
			problems := aggregatedAPIProblems(r)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, c.want) }) {
				t.Errorf("problems %q, want one saying %q", problems, c.want)
			}
		})
	}
}

// renderPath renders one install path by its name in TestEveryInstallPathIsLeastPrivilegeAndHardened.
func renderPath(t *testing.T, path string) rendered {
	t.Helper()
	switch path {
	case "chart":
		return renderChart(t)
	case "bundle":
		return renderBundle(t).installedByOLM()
	case "config/olm":
		return renderKustomization(t, path).installedByOLM()
	}
	return renderKustomization(t, path)
}
