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

package emulator_test

import (
	"maps"
	"net/http"
	"testing"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// admin calls the admin API, which needs no token, and requires wantStatus.
func (h *harness) admin(method, path string, body any, wantStatus int, out any) response {
	h.t.Helper()
	resp := h.do(method, emulator.AdminPrefix+path, body, nil)
	if resp.status != wantStatus {
		h.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, resp.status, wantStatus, resp.body)
	}
	if out != nil {
		resp.decode(h.t, out)
	}
	return resp
}

func TestAdminFaultsOverHTTP(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.admin(http.MethodPost, "/faults", map[string]any{
		"operation": emulator.OpCreateInstance, "status": 500, "count": 2, "retry_after": "3s",
	}, http.StatusOK, nil)
	create := kakaocloud.CreateInstanceRequest{Instance: h.validCreate("admin-fault")}
	resp := h.api(http.MethodPost, instancesPath, create)
	wantError(t, resp, http.StatusInternalServerError, "InternalServerError", "injected fault on bcs.CreateInstance")
	if resp.header.Get("Retry-After") != "3" {
		t.Errorf("Retry-After %q", resp.header.Get("Retry-After"))
	}
	h.admin(http.MethodDelete, "/faults", nil, http.StatusOK, nil)
	h.apiOK(http.MethodPost, instancesPath, create, http.StatusAccepted, nil)

	var calls emulator.AdminCalls
	h.admin(http.MethodGet, "/calls", nil, http.StatusOK, &calls)
	if calls.Calls[emulator.OpCreateInstance] != 2 || calls.Calls[emulator.OpIssueToken] != 1 {
		t.Errorf("calls %v", calls.Calls)
	}
	if want := map[string]int{emulator.OpCreateInstance + " 500": 1}; !maps.Equal(calls.Injected, want) || calls.Created != 1 {
		t.Errorf("injected %v and created %d, want %v and 1", calls.Injected, calls.Created, want)
	}
	h.admin(http.MethodDelete, "/calls", nil, http.StatusOK, nil)
	if got := h.emulator.CallCount(emulator.OpCreateInstance); got != 0 {
		t.Errorf("CallCount after reset %d", got)
	}
	if got := h.emulator.Injected(); len(got) != 0 {
		t.Errorf("Injected after reset %v", got)
	}
}

func TestAdminCommittedFaultAndListLagOverHTTP(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.admin(http.MethodPost, "/list-lag", map[string]any{"lag": "10s"}, http.StatusOK, nil)
	h.admin(http.MethodPost, "/faults", map[string]any{
		"operation": emulator.OpCreateInstance, "status": 503, "count": 1, "commit": true,
	}, http.StatusOK, nil)
	create := kakaocloud.CreateInstanceRequest{Instance: h.validCreate("admin-committed")}
	wantError(t, h.api(http.MethodPost, instancesPath, create), http.StatusServiceUnavailable, "ServiceUnavailable", "injected fault")
	if got := h.emulator.Instances(); len(got) != 1 {
		t.Fatalf("committed create over HTTP made %d VMs, want 1", len(got))
	}
	var listed kakaocloud.ListInstancesResponse
	h.apiOK(http.MethodGet, instancesPath, nil, http.StatusOK, &listed)
	if len(listed.Instances) != 0 {
		t.Errorf("listed inside the lag: %+v", listed.Instances)
	}
	h.admin(http.MethodPost, "/list-lag", map[string]any{"lag": "0s"}, http.StatusOK, nil)
	h.apiOK(http.MethodGet, instancesPath, nil, http.StatusOK, &listed)
	if len(listed.Instances) != 1 {
		t.Errorf("listed without a lag: %+v", listed.Instances)
	}
	h.admin(http.MethodPost, "/list-lag", map[string]any{}, http.StatusBadRequest, nil)
}

func TestAdminControlsOverHTTP(t *testing.T) {
	h := newHarness(t, emulator.Options{})

	h.admin(http.MethodPost, "/latency", emulator.AdminLatency{Operation: emulator.OpGetCluster, Latency: "100ms"}, http.StatusOK, nil)
	start := time.Now()
	h.cluster()
	if elapsed := time.Since(start); elapsed < 100*time.Millisecond {
		t.Errorf("latency not applied: %v", elapsed)
	}
	h.admin(http.MethodPost, "/latency", emulator.AdminLatency{Operation: emulator.OpGetCluster, Latency: "0s"}, http.StatusOK, nil)

	h.admin(http.MethodPost, "/capacity", emulator.AdminCapacity{Flavor: "m2a.large", Zone: emulator.ZoneA, Remaining: 0}, http.StatusOK, nil)
	noRoom := h.create(h.validCreate("no-room"))
	h.admin(http.MethodPost, "/capacity", emulator.AdminCapacity{Flavor: "m2a.large", Zone: emulator.ZoneA, Remaining: -1}, http.StatusOK, nil)
	h.admin(http.MethodPost, "/fail-instances", emulator.AdminFailInstances{Count: 1, Message: "disk error"}, http.StatusOK, nil)
	diskError := h.create(h.validCreate("disk-error"))
	healthy := h.create(h.validCreate("healthy"))
	h.clock.Step(emulator.DefaultBuildDelay)

	var listed emulator.AdminInstances
	h.admin(http.MethodGet, "/instances", nil, http.StatusOK, &listed)
	statuses := map[string]string{}
	for _, in := range listed.Instances {
		statuses[in.ID] = in.Status
	}
	if statuses[noRoom] != "error" || statuses[diskError] != "error" || statuses[healthy] != "active" {
		t.Errorf("statuses %v", statuses)
	}
	if logs := h.actionLogs(noRoom); logs[0].Message != emulator.NoValidHostMessage {
		t.Errorf("no-room action logs %+v", logs)
	}
	if logs := h.actionLogs(diskError); logs[0].Message != "disk error" {
		t.Errorf("disk-error action logs %+v", logs)
	}

	h.admin(http.MethodPost, "/node-images/fail", emulator.AdminNodeImageFailure{Fail: true}, http.StatusOK, nil)
	wantError(t, h.api(http.MethodGet, nodeImagesPath, nil), http.StatusInternalServerError, "InternalServerError", "node image lookup failed")
	h.admin(http.MethodPost, "/node-images/fail", emulator.AdminNodeImageFailure{Fail: false}, http.StatusOK, nil)
	h.apiOK(http.MethodGet, nodeImagesPath, nil, http.StatusOK, nil)
}

func TestAdminKubernetesEngineOverHTTP(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	var cluster kakaocloud.GetClusterResponse
	h.admin(http.MethodPost, "/cluster", emulator.AdminControlPlane{Phase: kakaocloud.ClusterPhaseUpdating}, http.StatusOK, &cluster)
	if cluster.Cluster.Status.Phase != kakaocloud.ClusterPhaseUpdating || h.cluster().Status.Phase != kakaocloud.ClusterPhaseUpdating {
		t.Errorf("cluster %+v", cluster.Cluster)
	}
	h.admin(http.MethodPost, "/cluster", emulator.AdminControlPlane{MinorVersion: "1.35", PatchVersion: "1.35.1"}, http.StatusOK, &cluster)
	if v := h.cluster().Version; v.MinorVersion != "1.35" || v.PatchVersion != "1.35.1" {
		t.Errorf("version %+v", v)
	}

	var versions kakaocloud.ListVersionsResponse
	h.admin(http.MethodPost, "/versions", emulator.AdminVersions{Action: emulator.VersionActionDeprecate, MinorVersion: "1.34"}, http.StatusOK, &versions)
	if !versions.Versions[1].IsDeprecated {
		t.Errorf("1.34 not deprecated: %+v", versions.Versions)
	}
	h.admin(http.MethodPost, "/versions", emulator.AdminVersions{Action: emulator.VersionActionUndeprecate, MinorVersion: "1.33"}, http.StatusOK, &versions)
	h.admin(http.MethodPost, "/versions", emulator.AdminVersions{Action: emulator.VersionActionRemove, MinorVersion: "1.34"}, http.StatusOK, &versions)
	h.admin(http.MethodPost, "/versions", emulator.AdminVersions{Action: emulator.VersionActionAdd,
		Version: &kakaocloud.KubernetesVersion{MinorVersion: "1.37", PatchVersion: "1.37.1"}}, http.StatusOK, &versions)
	var minors []string
	for _, v := range h.versions() {
		minors = append(minors, v.MinorVersion)
		if v.IsDeprecated {
			t.Errorf("%s still deprecated", v.MinorVersion)
		}
	}
	if len(minors) != 4 || minors[0] != "1.33" || minors[1] != "1.35" || minors[3] != "1.37" {
		t.Errorf("versions %v", minors)
	}
}

func TestAdminTokensAndCredentialsOverHTTP(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.admin(http.MethodPost, "/tokens/expire", nil, http.StatusOK, nil)
	wantError(t, h.api(http.MethodGet, versionsPath, nil), http.StatusUnauthorized, "Unauthorized", "revoked")

	h.admin(http.MethodPost, "/credentials", emulator.AdminCredential{ID: "second", Secret: "key"}, http.StatusOK, nil)
	h.token = h.issueToken("second", "key")
	h.apiOK(http.MethodGet, versionsPath, nil, http.StatusOK, nil)
	h.admin(http.MethodDelete, "/credentials/second", nil, http.StatusOK, nil)
	wantError(t, h.api(http.MethodGet, versionsPath, nil), http.StatusUnauthorized, "Unauthorized", "revoked")
}

func TestAdminRejectsBadRequests(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	tests := []struct {
		name        string
		method      string
		path        string
		body        any
		wantStatus  int
		wantMessage string
	}{
		{"fault for an unknown operation", http.MethodPost, "/faults", map[string]any{"operation": "bcs.Reboot"}, http.StatusBadRequest, `operation "bcs.Reboot" is not one of`},
		{"fault with a success status", http.MethodPost, "/faults", map[string]any{"operation": emulator.OpGetFlavor, "status": 204}, http.StatusBadRequest, "status 204 is not an error status"},
		{"fault with a bad fraction", http.MethodPost, "/faults", map[string]any{"operation": emulator.OpGetFlavor, "fraction": 2}, http.StatusBadRequest, "fraction 2 is not between 0 and 1"},
		{"fault with a bad retry_after", http.MethodPost, "/faults", map[string]any{"operation": emulator.OpGetFlavor, "retry_after": "soon"}, http.StatusBadRequest, `retry_after "soon" is not a duration`},
		{"latency without a duration", http.MethodPost, "/latency", map[string]any{"operation": emulator.OpGetFlavor}, http.StatusBadRequest, "latency is required"},
		{"capacity of an unknown flavor", http.MethodPost, "/capacity", emulator.AdminCapacity{Flavor: "x9.huge", Zone: emulator.ZoneA}, http.StatusBadRequest, `flavor "x9.huge": no such flavor`},
		{"capacity in a zone without the flavor", http.MethodPost, "/capacity", emulator.AdminCapacity{Flavor: "gn1i.xlarge", Zone: emulator.ZoneC}, http.StatusBadRequest, "gn1i.xlarge is offered in"},
		{"negative failing instances", http.MethodPost, "/fail-instances", emulator.AdminFailInstances{Count: -1}, http.StatusBadRequest, "count -1 is negative"},
		{"state of an unknown instance", http.MethodPost, "/instance-state", emulator.AdminInstanceState{ID: "nope", Status: "stopped"}, http.StatusNotFound, "not found"},
		{"credential without secret", http.MethodPost, "/credentials", emulator.AdminCredential{ID: "x"}, http.StatusBadRequest, "needs both id and secret"},
		{"unknown cluster phase", http.MethodPost, "/cluster", emulator.AdminControlPlane{Phase: "Upgrading"}, http.StatusBadRequest, `phase "Upgrading" is not one of`},
		{"deprecating an unknown version", http.MethodPost, "/versions", emulator.AdminVersions{Action: emulator.VersionActionDeprecate, MinorVersion: "1.20"}, http.StatusNotFound, `version "1.20" is not offered`},
		{"adding without a version", http.MethodPost, "/versions", emulator.AdminVersions{Action: emulator.VersionActionAdd}, http.StatusBadRequest, "needs version"},
		{"unknown version action", http.MethodPost, "/versions", emulator.AdminVersions{Action: "upgrade"}, http.StatusBadRequest, `action "upgrade" is not one of`},
		{"malformed body", http.MethodPost, "/node-images/fail", `{"fail":`, http.StatusBadRequest, "not valid JSON"},
		{"unknown admin route", http.MethodGet, "/nothing", nil, http.StatusNotFound, "no API at GET /_emulator/nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.do(tt.method, emulator.AdminPrefix+tt.path, tt.body, nil)
			code := map[int]string{http.StatusBadRequest: "BadRequest", http.StatusNotFound: "NotFound"}[tt.wantStatus]
			wantError(t, resp, tt.wantStatus, code, tt.wantMessage)
		})
	}
}
