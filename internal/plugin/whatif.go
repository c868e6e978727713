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

package plugin

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
)

// WhatIf asks the operator what the manifest (an edited NodePool or KCNodeClass, or a Pod)
// would do: an *explain.WhatIfAnswer or an *explain.PodWhatIfAnswer. Only the operator knows
// the instance types and their prices, so the plugin reaches it where the API server reaches
// its KCNodeClass webhook: through the API server's proxy to its Service, or at its URL. The
// operator checks token (the kubeconfig's own when empty) with the API server.
func WhatIf(ctx context.Context, config *rest.Config, reader client.Reader, manifest []byte, token string) (any, error) {
	obj, err := explain.Decode(manifest)
	if err != nil {
		return nil, err
	}
	var answer any = &explain.WhatIfAnswer{}
	if _, ok := obj.(*corev1.Pod); ok {
		answer = &explain.PodWhatIfAnswer{}
	}
	if token == "" {
		if token, err = bearerToken(config); err != nil {
			return nil, err
		}
	}
	operator, err := operatorAt(ctx, reader)
	if err != nil {
		return nil, err
	}
	body, err := ask(ctx, config, operator, manifest, token)
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(body, answer); err != nil {
		return nil, fmt.Errorf("reading the operator's answer: %w", err)
	}
	return answer, nil
}

// operatorAt is where the API server calls the operator's KCNodeClass webhook.
func operatorAt(ctx context.Context, reader client.Reader) (*admissionregistrationv1.WebhookClientConfig, error) {
	configs := &admissionregistrationv1.ValidatingWebhookConfigurationList{}
	if err := reader.List(ctx, configs); err != nil {
		return nil, fmt.Errorf("finding the operator by its webhooks: %w", err)
	}
	for _, configuration := range configs.Items {
		for _, webhook := range configuration.Webhooks {
			for _, rule := range webhook.Rules {
				if slices.Contains(rule.APIGroups, kcv1.GroupVersion.Group) && slices.Contains(rule.Resources, "kcnodeclasses") {
					return &webhook.ClientConfig, nil
				}
			}
		}
	}
	return nil, errors.New("no ValidatingWebhookConfiguration validates KCNodeClasses: whatif asks the operator, which is found by its webhooks")
}

// ask posts the manifest to the operator and returns its answer.
func ask(ctx context.Context, config *rest.Config, operator *admissionregistrationv1.WebhookClientConfig, manifest []byte, token string) ([]byte, error) {
	authorization := "Bearer " + token
	if service := operator.Service; service != nil {
		port := int32(443)
		if service.Port != nil {
			port = *service.Port
		}
		clientset, err := kubernetes.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		body, err := clientset.CoreV1().RESTClient().Post().
			AbsPath("/api/v1/namespaces", service.Namespace, "services", fmt.Sprintf("https:%s:%d", service.Name, port), "proxy", explain.Path).
			SetHeader(explain.TokenHeader, authorization).SetHeader("Content-Type", "application/yaml").
			Body(manifest).DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("asking the operator through Service %s/%s: %w", service.Namespace, service.Name, err)
		}
		return body, nil
	}
	if operator.URL == nil {
		return nil, errors.New("the KCNodeClass webhook names neither a Service nor a URL")
	}
	// An operator outside the cluster (a local one, say): its URL, trusted as the API server
	// trusts it.
	roots := x509.NewCertPool()
	if len(operator.CABundle) > 0 && !roots.AppendCertsFromPEM(operator.CABundle) {
		return nil, errors.New("the KCNodeClass webhook's caBundle holds no certificate")
	}
	if len(operator.CABundle) == 0 {
		roots = nil
	}
	httpClient := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	at, err := url.Parse(*operator.URL)
	if err != nil {
		return nil, fmt.Errorf("the KCNodeClass webhook's URL: %w", err)
	}
	at.Path, at.RawQuery = explain.Path, ""
	request, err := http.NewRequestWithContext(ctx, http.MethodPost, at.String(), bytes.NewReader(manifest))
	if err != nil {
		return nil, err
	}
	request.Header.Set(explain.TokenHeader, authorization)
	request.Header.Set("Content-Type", "application/yaml")
	response, err := httpClient.Do(request)
	if err != nil {
		return nil, fmt.Errorf("asking the operator at %s: %w", at, err)
	}
	defer func() { _ = response.Body.Close() }()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, err
	}
	if response.StatusCode != http.StatusOK {
		return nil, explain.ErrorOf(response.StatusCode, body)
	}
	return body, nil
}

// bearerToken is the token the kubeconfig authenticates with: given, in a file, or made by
// an exec or auth-provider plugin, whose header a local server notes on one request.
func bearerToken(config *rest.Config) (string, error) {
	switch {
	case config.BearerToken != "":
		return config.BearerToken, nil
	case config.BearerTokenFile != "":
		data, err := os.ReadFile(config.BearerTokenFile)
		return strings.TrimSpace(string(data)), err
	case config.ExecProvider == nil && config.AuthProvider == nil:
		return "", errors.New("the kubeconfig authenticates without a token (a client certificate, say), and the operator checks tokens: pass --token, for example of a ServiceAccount bound to the plugin's reader role (kubectl create token NAME)")
	}
	noted := make(chan string, 1)
	local := httptest.NewTLSServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case noted <- r.Header.Get("Authorization"):
		default:
		}
	}))
	defer local.Close()
	probe := rest.CopyConfig(config)
	probe.Host = local.URL
	probe.TLSClientConfig = rest.TLSClientConfig{Insecure: true}
	httpClient, err := rest.HTTPClientFor(probe)
	if err != nil {
		return "", err
	}
	response, err := httpClient.Get(local.URL)
	if err != nil {
		return "", fmt.Errorf("getting the kubeconfig's token: %w", err)
	}
	_ = response.Body.Close()
	token, ok := strings.CutPrefix(<-noted, "Bearer ")
	if !ok || token == "" {
		return "", errors.New("the kubeconfig's credential plugin gave no bearer token: pass --token")
	}
	return token, nil
}
