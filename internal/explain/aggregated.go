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
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
)

// Where the API server publishes how it proxies to aggregated APIs: the CA of its front-proxy
// client certificate, the names that certificate may have, and the headers that name the user.
// Every install path lets the operator read it and nothing else in its namespace (the built-in
// Role extension-apiserver-authentication-reader).
const (
	AuthenticationConfigMapNamespace = "kube-system"
	AuthenticationConfigMapName      = "extension-apiserver-authentication"
)

// FrontProxyAuthenticator tells the user an API server's proxied request is made for.
type FrontProxyAuthenticator interface {
	authenticator.Request
	// Ready is whether the front-proxy CA is known: until it is, every request is refused.
	Ready() bool
}

// FrontProxy authenticates the API server's front-proxy requests as every aggregated API
// server does, with the API server library's own controllers: the client certificate is
// verified against the published CA and its name against the allowed names, and the user is
// read from the published headers. Both follow the ConfigMap, so a rotated CA is taken at once.
// It runs on every replica, as the webhook server it serves on does.
type FrontProxy struct {
	authenticator.Request
	ca      *dynamiccertificates.ConfigMapCAController
	headers *headerrequest.RequestHeaderAuthRequestController
}

// NewFrontProxy reads the API server's front-proxy configuration with client once started.
func NewFrontProxy(client kubernetes.Interface) (*FrontProxy, error) {
	ca, err := dynamiccertificates.NewDynamicCAFromConfigMapController("front-proxy-ca",
		AuthenticationConfigMapNamespace, AuthenticationConfigMapName, "requestheader-client-ca-file", client)
	if err != nil {
		return nil, fmt.Errorf("following the API server's front-proxy CA: %w", err)
	}
	headers := headerrequest.NewRequestHeaderAuthRequestController(AuthenticationConfigMapName, AuthenticationConfigMapNamespace, client,
		"requestheader-username-headers", "requestheader-uid-headers", "requestheader-group-headers",
		"requestheader-extra-headers-prefix", "requestheader-allowed-names")
	return &FrontProxy{
		Request: headerrequest.NewDynamicVerifyOptionsSecure(ca.VerifyOptions,
			headerrequest.StringSliceProviderFunc(headers.AllowedClientNames),
			headerrequest.StringSliceProviderFunc(headers.UsernameHeaders),
			headerrequest.StringSliceProviderFunc(headers.UIDHeaders),
			headerrequest.StringSliceProviderFunc(headers.GroupHeaders),
			headerrequest.StringSliceProviderFunc(headers.ExtraHeaderPrefixes)),
		ca:      ca,
		headers: headers,
	}, nil
}

// Ready is whether the front-proxy CA and headers have been read.
func (f *FrontProxy) Ready() bool {
	return len(f.ca.CurrentCABundleContent()) > 0 && len(f.headers.UsernameHeaders()) > 0
}

// Start follows the ConfigMap until ctx ends.
func (f *FrontProxy) Start(ctx context.Context) error {
	go f.ca.Run(ctx, 1)
	go f.headers.Run(ctx, 1)
	<-ctx.Done()
	return nil
}

// NeedLeaderElection is false: every replica's webhook server answers the API server.
func (f *FrontProxy) NeedLeaderElection() bool { return false }

// RequestClientCertificate has the server ask its callers for a certificate, without
// verifying it: the API server presents its front-proxy client certificate, which FrontProxy
// verifies on the requests that need it; the admission webhooks' callers present none.
func RequestClientCertificate(config *tls.Config) {
	config.ClientAuth = tls.RequestClientCert
}

// Discovery answers the API server's discovery of the group: GroupVersionPath lists the one
// resource, and the group's path its one version. It needs no user: it tells what the API
// server's own discovery tells every client.
func Discovery(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		fail(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "discovery is read with GET")
		return
	}
	var answer any
	switch r.URL.Path {
	case GroupVersionPath:
		answer = &metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{APIVersion: "v1", Kind: "APIResourceList"},
			GroupVersion: Group + "/" + Version,
			APIResources: []metav1.APIResource{{Name: Resource, SingularName: "whatif", Kind: Kind, Namespaced: false, Verbs: metav1.Verbs{"create"}}},
		}
	case "/apis/" + Group:
		version := metav1.GroupVersionForDiscovery{GroupVersion: Group + "/" + Version, Version: Version}
		answer = &metav1.APIGroup{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "APIGroup"},
			Name:     Group, Versions: []metav1.GroupVersionForDiscovery{version}, PreferredVersion: version,
		}
	default:
		fail(w, http.StatusNotFound, metav1.StatusReasonNotFound, r.URL.Path+" is not served: "+GroupVersionPath+" is")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}
