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

package emulator

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Operation names, "<service>.<Operation>", as InjectFault, SetLatency and CallCount take
// them.
const (
	OpIssueToken         = "iam.IssueToken"
	OpValidateToken      = "iam.ValidateToken"
	OpCreateInstance     = "bcs.CreateInstance"
	OpGetInstance        = "bcs.GetInstance"
	OpListInstances      = "bcs.ListInstances"
	OpDeleteInstance     = "bcs.DeleteInstance"
	OpUpdateInstance     = "bcs.UpdateInstance"
	OpListActionLogs     = "bcs.ListActionLogs"
	OpListFlavors        = "bcs.ListFlavors"
	OpGetFlavor          = "bcs.GetFlavor"
	OpListImages         = "image.ListImages"
	OpGetImage           = "image.GetImage"
	OpListSubnets        = "vpc.ListSubnets"
	OpGetSubnet          = "vpc.GetSubnet"
	OpListSecurityGroups = "network.ListSecurityGroups"
	OpGetSecurityGroup   = "network.GetSecurityGroup"
	OpListClusters       = "ke.ListClusters"
	OpGetCluster         = "ke.GetCluster"
	OpListVersions       = "ke.ListVersions"
	OpListNodeImages     = "ke.ListNodeImages"
	OpResolveEndpoints   = "config.ResolveClientEndpoint"
)

const (
	mediaTypeJSON     = "application/json"
	headerContentType = "Content-Type"
	headerAccept      = "Accept"
)

// Operations returns every operation name.
func Operations() []string {
	names := make([]string, len(operationRoutes))
	for i, r := range operationRoutes {
		names[i] = r.op
	}
	return names
}

func isOperation(op string) bool {
	return slices.ContainsFunc(operationRoutes, func(r operationRoute) bool { return r.op == op })
}

// operationHandler serves one operation once the common checks passed: it returns the status
// and body to write, or an error (an *apiError for a specific status).
type operationHandler func(e *Emulator, w http.ResponseWriter, r *http.Request) (int, any, error)

// operationRoute binds an operation to its method and path below its service's prefix.
type operationRoute struct {
	op      string
	method  string
	service string
	path    string
	handle  operationHandler
}

var operationRoutes = slices.Concat([]operationRoute{
	{OpIssueToken, http.MethodPost, kakaocloud.ServiceIAM, kakaocloud.PathTokens, (*Emulator).issueToken},
	{OpValidateToken, http.MethodGet, kakaocloud.ServiceIAM, kakaocloud.PathTokens, (*Emulator).validateToken},
	{OpCreateInstance, http.MethodPost, kakaocloud.ServiceBCS, kakaocloud.PathInstances, (*Emulator).createInstance},
	{OpListInstances, http.MethodGet, kakaocloud.ServiceBCS, kakaocloud.PathInstances, (*Emulator).listInstances},
	{OpGetInstance, http.MethodGet, kakaocloud.ServiceBCS, kakaocloud.PathInstances + "/{id}", (*Emulator).getInstance},
	{OpUpdateInstance, http.MethodPut, kakaocloud.ServiceBCS, kakaocloud.PathInstances + "/{id}", (*Emulator).updateInstance},
	{OpDeleteInstance, http.MethodDelete, kakaocloud.ServiceBCS, kakaocloud.PathInstances + "/{id}", (*Emulator).deleteInstance},
	{OpListActionLogs, http.MethodGet, kakaocloud.ServiceBCS, kakaocloud.PathInstances + "/{id}/action-logs", (*Emulator).listActionLogs},
}, flavorListing.routes(), imageListing.routes(), subnetListing.routes(), securityGroupListing.routes(), []operationRoute{
	{OpListClusters, http.MethodGet, kakaocloud.ServiceKubernetesEngine, kakaocloud.PathClusters, (*Emulator).listClusters},
	{OpGetCluster, http.MethodGet, kakaocloud.ServiceKubernetesEngine, kakaocloud.PathClusters + "/{name}", (*Emulator).getCluster},
	{OpListVersions, http.MethodGet, kakaocloud.ServiceKubernetesEngine, kakaocloud.PathVersions, (*Emulator).listVersions},
	{OpListNodeImages, http.MethodGet, kakaocloud.ServiceKubernetesEngine, kakaocloud.PathNodeImages, (*Emulator).listNodeImages},
	{OpResolveEndpoints, http.MethodGet, kakaocloud.ServiceConfig, kakaocloud.PathClientEndpoints, (*Emulator).resolveEndpoints},
})

func (e *Emulator) routes() {
	e.mux = http.NewServeMux()
	for _, route := range operationRoutes {
		e.mux.Handle(route.method+" /"+route.service+route.path, e.operation(route))
	}
	e.adminRoutes()
	e.mux.HandleFunc("/", e.unrouted)
}

// operation wraps an operation's handler with what every call goes through, in the order a
// real gateway would: counting, latency, injected faults, content negotiation, then
// authentication (all but IAM). A committed fault serves the call and then fails its answer.
func (e *Emulator) operation(route operationRoute) http.Handler {
	keystone := route.service == kakaocloud.ServiceIAM
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.calls[route.op]++
		latency := e.latencies[route.op]
		e.mu.Unlock()
		if latency > 0 {
			bufferBody(r)
			if !sleepContext(r.Context(), latency) {
				return // the client went away; nothing to answer, nothing to do
			}
			e.advance() // the clock moved while the call waited
		}
		fault := e.takeFault(route.op)
		var status int
		var body any
		var err error
		if fault == nil || fault.commit {
			status, body, err = e.serveOperation(route, w, r)
		}
		if fault != nil && err == nil {
			if fault.drop {
				// Closes the connection without an answer; net/http does not log this one.
				panic(http.ErrAbortHandler)
			}
			err = fault.err
		}
		if err != nil {
			writeError(w, err, keystone)
			return
		}
		writeJSON(w, status, body)
	})
}

func (e *Emulator) serveOperation(route operationRoute, w http.ResponseWriter, r *http.Request) (int, any, error) {
	if !acceptsJSON(r.Header.Get(headerAccept)) {
		return 0, nil, newError(http.StatusNotAcceptable, "Accept %q does not allow %s, the only media type served", r.Header.Get(headerAccept), mediaTypeJSON)
	}
	if err := checkContentType(r); err != nil {
		return 0, nil, err
	}
	if route.service != kakaocloud.ServiceIAM {
		if err := e.authenticate(r.Header.Get(kakaocloud.HeaderAuthToken)); err != nil {
			return 0, nil, err
		}
	}
	return route.handle(e, w, r)
}

// bufferBody reads the request body into memory. The server notices that a client went away
// (and cancels the request's context) only once the body has been read to its end.
func bufferBody(r *http.Request) {
	// One byte over the limit is enough for decodeBody to reject a body that is too large.
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxRequestBodyBytes+1))
	r.Body = io.NopCloser(bytes.NewReader(body))
}

// sleepContext sleeps for d or until ctx is done, and reports whether it slept the full d.
func sleepContext(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// acceptsJSON reports whether an Accept header admits application/json; no header admits
// anything.
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for mediaRange := range strings.SplitSeq(accept, ",") {
		mediaType, _, err := mime.ParseMediaType(mediaRange)
		if err != nil {
			continue
		}
		switch mediaType {
		case "*/*", "application/*", mediaTypeJSON:
			return true
		}
	}
	return false
}

// checkContentType requires a JSON Content-Type on requests with a body, as KakaoCloud does
// since April 2026.
func checkContentType(r *http.Request) error {
	if r.ContentLength == 0 || (r.Method != http.MethodPost && r.Method != http.MethodPut) {
		return nil
	}
	contentType := r.Header.Get(headerContentType)
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType != mediaTypeJSON {
		return newError(http.StatusUnsupportedMediaType, "Content-Type %q is not supported; send %s", contentType, mediaTypeJSON)
	}
	return nil
}

// unrouted answers requests no route matches: 405 when the path exists with other methods,
// else 404, both in the wire error shape.
func (e *Emulator) unrouted(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, pattern := e.mux.Handler(probe); pattern != "/" {
			allowed = append(allowed, method)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, newError(http.StatusMethodNotAllowed, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, strings.Join(allowed, ", ")), false)
		return
	}
	writeError(w, newError(http.StatusNotFound, "no API at %s %s", r.Method, r.URL.Path), false)
}
