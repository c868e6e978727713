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
	"net/http"
	"slices"
	"strings"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// AdminPrefix is the reserved path prefix of the admin API. Admin calls need no token.
const AdminPrefix = "/_emulator"

// adminHandler serves one admin call, like an operationHandler.
type adminHandler func(e *Emulator, w http.ResponseWriter, r *http.Request) (int, any, error)

var adminEndpoints = []struct {
	pattern string // method and path below AdminPrefix
	handle  adminHandler
}{
	{"POST /faults", withBody((*Emulator).adminInjectFault)},
	{"DELETE /faults", acknowledging((*Emulator).ClearFaults)},
	{"POST /latency", withBody((*Emulator).adminSetLatency)},
	{"POST /list-lag", withBody((*Emulator).adminSetListLag)},
	{"POST /capacity", withBody((*Emulator).adminSetCapacity)},
	{"POST /fail-instances", withBody((*Emulator).adminFailInstances)},
	{"POST /instance-state", withBody((*Emulator).adminSetInstanceState)},
	{"POST /tokens/expire", acknowledging((*Emulator).ExpireTokens)},
	{"POST /credentials", withBody((*Emulator).adminAddCredential)},
	{"DELETE /credentials/{id}", (*Emulator).adminRemoveCredential},
	{"POST /cluster", (*Emulator).adminSetControlPlane},
	{"POST /versions", (*Emulator).adminChangeVersions},
	{"POST /node-images/fail", withBody((*Emulator).adminFailNodeImages)},
	{"GET /instances", (*Emulator).adminInstances},
	{"GET /calls", (*Emulator).adminCalls},
	{"DELETE /calls", acknowledging((*Emulator).ResetCallCounts)},
}

// withBody serves an admin call that acts on its decoded body and answers with an
// acknowledgement, or with the action's error.
func withBody[T any](act func(e *Emulator, request T) error) adminHandler {
	return func(e *Emulator, w http.ResponseWriter, r *http.Request) (int, any, error) {
		var request T
		if err := decodeBody(w, r, &request); err != nil {
			return 0, nil, err
		}
		if err := act(e, request); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, acknowledged, nil
	}
}

// acknowledging serves an admin call that takes no input, acts, and answers with an
// acknowledgement.
func acknowledging(act func(e *Emulator)) adminHandler {
	return func(e *Emulator, _ http.ResponseWriter, _ *http.Request) (int, any, error) {
		act(e)
		return http.StatusOK, acknowledged, nil
	}
}

func (e *Emulator) adminRoutes() {
	for _, route := range adminEndpoints {
		method, path, _ := strings.Cut(route.pattern, " ")
		e.mux.Handle(method+" "+AdminPrefix+path, e.adminCall(route.handle))
	}
}

// adminCall serves an admin handler and writes its answer.
func (e *Emulator) adminCall(handle adminHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, body, err := handle(e, w, r)
		if err != nil {
			writeError(w, err, false)
			return
		}
		writeJSON(w, status, body)
	})
}

// adminOK is the answer of admin commands that have no result to show.
type adminOK struct {
	OK bool `json:"ok"`
}

var acknowledged = adminOK{OK: true}

// AdminFault is the body of POST /_emulator/faults: a Fault for an operation, with
// retry_after as a Go duration string ("2s").
type AdminFault struct {
	Operation  string  `json:"operation"`
	Status     int     `json:"status,omitempty"`
	Code       string  `json:"code,omitempty"`
	Message    string  `json:"message,omitempty"`
	Count      int     `json:"count,omitempty"`
	Fraction   float64 `json:"fraction,omitempty"`
	RetryAfter string  `json:"retry_after,omitempty"`
	Commit     bool    `json:"commit,omitempty"`
	Drop       bool    `json:"drop,omitempty"`
}

func (e *Emulator) adminInjectFault(request AdminFault) error {
	if err := checkOperation(request.Operation); err != nil {
		return err
	}
	retryAfter, err := parseOptionalDuration("retry_after", request.RetryAfter)
	if err != nil {
		return err
	}
	fault := Fault{
		Status: request.Status, Code: request.Code, Message: request.Message,
		Count: request.Count, Fraction: request.Fraction, RetryAfter: retryAfter,
		Commit: request.Commit, Drop: request.Drop,
	}
	if err := fault.validate(); err != nil {
		return badRequest("fault for %s: %v", request.Operation, err)
	}
	e.InjectFault(request.Operation, fault)
	return nil
}

// AdminLatency is the body of POST /_emulator/latency; latency is a Go duration string, "0s"
// removes it.
type AdminLatency struct {
	Operation string `json:"operation"`
	Latency   string `json:"latency"`
}

// AdminListLag is the body of POST /_emulator/list-lag; lag is a Go duration string, "0s"
// removes it.
type AdminListLag struct {
	Lag string `json:"lag"`
}

func (e *Emulator) adminSetListLag(request AdminListLag) error {
	if request.Lag == "" {
		return badRequest("lag is required, e.g. \"30s\"")
	}
	lag, err := parseOptionalDuration("lag", request.Lag)
	if err != nil {
		return err
	}
	e.SetListLag(lag)
	return nil
}

func (e *Emulator) adminSetLatency(request AdminLatency) error {
	if err := checkOperation(request.Operation); err != nil {
		return err
	}
	if request.Latency == "" {
		return badRequest("latency is required, e.g. \"500ms\"")
	}
	latency, err := parseOptionalDuration("latency", request.Latency)
	if err != nil {
		return err
	}
	e.SetLatency(request.Operation, latency)
	return nil
}

// AdminCapacity is the body of POST /_emulator/capacity; a negative remaining means
// unlimited.
type AdminCapacity struct {
	Flavor    string `json:"flavor"`
	Zone      string `json:"zone"`
	Remaining int    `json:"remaining"`
}

func (e *Emulator) adminSetCapacity(request AdminCapacity) error {
	flavor, known := e.catalog.FlavorByName(request.Flavor)
	if !known {
		return badRequest("flavor %q: no such flavor", request.Flavor)
	}
	if !slices.Contains(flavor.Zones, request.Zone) {
		return badRequest("zone %q: flavor %s is offered in %v", request.Zone, flavor.Name, flavor.Zones)
	}
	e.SetCapacity(request.Flavor, request.Zone, request.Remaining)
	return nil
}

// AdminFailInstances is the body of POST /_emulator/fail-instances.
type AdminFailInstances struct {
	Count   int    `json:"count"`
	Message string `json:"message,omitempty"`
}

func (e *Emulator) adminFailInstances(request AdminFailInstances) error {
	if request.Count < 0 {
		return badRequest("count %d is negative", request.Count)
	}
	e.FailNextInstances(request.Count, request.Message)
	return nil
}

// AdminInstanceState is the body of POST /_emulator/instance-state: an active instance put in
// status "stopped" or "error" (SetInstanceState).
type AdminInstanceState struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

func (e *Emulator) adminSetInstanceState(request AdminInstanceState) error {
	return e.SetInstanceState(request.ID, request.Status)
}

// AdminCredential is the body of POST /_emulator/credentials.
type AdminCredential struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

func (e *Emulator) adminAddCredential(request AdminCredential) error {
	if request.ID == "" || request.Secret == "" {
		return badRequest("a credential needs both id and secret")
	}
	e.AddCredential(request.ID, request.Secret)
	return nil
}

func (e *Emulator) adminRemoveCredential(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	e.RemoveCredential(r.PathValue("id"))
	return http.StatusOK, acknowledged, nil
}

// AdminControlPlane is the body of POST /_emulator/cluster; empty fields are left as they
// are.
type AdminControlPlane struct {
	MinorVersion string `json:"minor_version,omitempty"`
	PatchVersion string `json:"patch_version,omitempty"`
	Phase        string `json:"phase,omitempty"`
}

// clusterPhases are the phases Kubernetes Engine reports.
var clusterPhases = []string{
	kakaocloud.ClusterPhasePending, kakaocloud.ClusterPhaseProvisioning, kakaocloud.ClusterPhaseProvisioned,
	kakaocloud.ClusterPhaseUpdating, kakaocloud.ClusterPhaseDeleting, kakaocloud.ClusterPhaseFailed,
}

func (e *Emulator) adminSetControlPlane(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var request AdminControlPlane
	if err := decodeBody(w, r, &request); err != nil {
		return 0, nil, err
	}
	if request.Phase != "" && !slices.Contains(clusterPhases, request.Phase) {
		return 0, nil, badRequest("phase %q is not one of %v", request.Phase, clusterPhases)
	}
	e.SetControlPlane(request.MinorVersion, request.PatchVersion, request.Phase)
	e.mu.Lock()
	defer e.mu.Unlock()
	return http.StatusOK, kakaocloud.GetClusterResponse{Cluster: e.clusterLocked()}, nil
}

// Actions of POST /_emulator/versions.
const (
	VersionActionDeprecate   = "deprecate"
	VersionActionUndeprecate = "undeprecate"
	VersionActionRemove      = "remove"
	VersionActionAdd         = "add"
)

// AdminVersions is the body of POST /_emulator/versions: deprecate, undeprecate or remove
// minor_version, or add version.
type AdminVersions struct {
	Action       string                        `json:"action"`
	MinorVersion string                        `json:"minor_version,omitempty"`
	Version      *kakaocloud.KubernetesVersion `json:"version,omitempty"`
}

func (e *Emulator) adminChangeVersions(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var request AdminVersions
	if err := decodeBody(w, r, &request); err != nil {
		return 0, nil, err
	}
	switch request.Action {
	case VersionActionDeprecate, VersionActionUndeprecate, VersionActionRemove:
		if !e.hasVersion(request.MinorVersion) {
			return 0, nil, notFound("version %q is not offered", request.MinorVersion)
		}
		if request.Action == VersionActionRemove {
			e.RemoveVersion(request.MinorVersion)
		} else {
			e.SetVersionDeprecated(request.MinorVersion, request.Action == VersionActionDeprecate)
		}
	case VersionActionAdd:
		if request.Version == nil || request.Version.MinorVersion == "" {
			return 0, nil, badRequest("action add needs version with a minor_version")
		}
		e.AddVersion(*request.Version)
	default:
		return 0, nil, badRequest("action %q is not one of %s, %s, %s, %s", request.Action,
			VersionActionDeprecate, VersionActionUndeprecate, VersionActionRemove, VersionActionAdd)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	versions := append([]kakaocloud.KubernetesVersion{}, e.catalog.Versions...)
	return http.StatusOK, kakaocloud.ListVersionsResponse{Versions: versions}, nil
}

// AdminNodeImageFailure is the body of POST /_emulator/node-images/fail.
type AdminNodeImageFailure struct {
	Fail bool `json:"fail"`
}

func (e *Emulator) adminFailNodeImages(request AdminNodeImageFailure) error {
	e.FailNodeImageLookups(request.Fail)
	return nil
}

// AdminInstances is the answer of GET /_emulator/instances.
type AdminInstances struct {
	Instances []kakaocloud.Instance `json:"instances"`
}

func (e *Emulator) adminInstances(_ http.ResponseWriter, _ *http.Request) (int, any, error) {
	return http.StatusOK, AdminInstances{Instances: e.Instances()}, nil
}

// AdminCalls is the answer of GET /_emulator/calls: call counts by operation, failures
// injected by kind (see Injected), and how many VMs were made.
type AdminCalls struct {
	Calls    map[string]int `json:"calls"`
	Injected map[string]int `json:"injected"`
	Created  int            `json:"created"`
}

func (e *Emulator) adminCalls(_ http.ResponseWriter, _ *http.Request) (int, any, error) {
	return http.StatusOK, AdminCalls{Calls: e.callCounts(), Injected: e.Injected(), Created: e.CreatedCount()}, nil
}

func checkOperation(op string) error {
	if !isOperation(op) {
		return badRequest("operation %q is not one of %v", op, Operations())
	}
	return nil
}

func parseOptionalDuration(field, value string) (time.Duration, error) {
	if value == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return 0, badRequest("%s %q is not a duration such as \"500ms\" or \"2s\"", field, value)
	}
	return d, nil
}
