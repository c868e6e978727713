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
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

const tokensPath = "/iam" + kakaocloud.PathTokens

func TestIssueToken(t *testing.T) {
	h := newHarness(t, emulator.Options{TokenTTL: time.Hour})
	resp := h.do(http.MethodPost, tokensPath, tokenRequest(emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey), nil)
	if resp.status != http.StatusCreated {
		t.Fatalf("status %d, want 201; body %s", resp.status, resp.body)
	}
	if token := resp.header.Get(kakaocloud.HeaderSubjectToken); len(token) < 32 {
		t.Errorf("X-Subject-Token %q is not an opaque random token", token)
	}
	var body kakaocloud.TokenResponse
	resp.decode(t, &body)
	now := h.clock.Now()
	// Keystone writes issued_at with microseconds, in UTC.
	if body.Token.IssuedAt != "2026-11-02T09:00:00.000000Z" || !body.Token.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Errorf("issued_at %q, expires_at %v; want %v and an hour later", body.Token.IssuedAt, body.Token.ExpiresAt, now)
	}
	if second := h.issueToken(emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey); second == resp.header.Get(kakaocloud.HeaderSubjectToken) {
		t.Error("two token issues returned the same token")
	}
}

func TestIssueTokenRejects(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	wrongMethod := tokenRequest(emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey)
	wrongMethod.Auth.Identity.Methods = []string{"password"}
	tests := []struct {
		name        string
		body        any
		header      map[string]string
		wantStatus  int
		wantMessage string
	}{
		{"wrong secret", tokenRequest(emulator.DefaultAccessKeyID, "nope"), nil, http.StatusUnauthorized, "wrong secret"},
		{"unknown access key", tokenRequest("someone-else", "secret"), nil, http.StatusUnauthorized, "does not exist"},
		{"malformed JSON", `{"auth":`, nil, http.StatusBadRequest, "not valid JSON"},
		{"empty body", "", nil, http.StatusBadRequest, "empty"},
		{"no application_credential method", wrongMethod, nil, http.StatusBadRequest, "must include"},
		{"missing secret", tokenRequest(emulator.DefaultAccessKeyID, ""), nil, http.StatusBadRequest, "needs both id and secret"},
		{"not JSON content", tokenRequest("a", "b"), map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType, "Content-Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.do(http.MethodPost, tokensPath, tt.body, tt.header)
			if resp.status != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", resp.status, tt.wantStatus, resp.body)
			}
			// Keystone's shape: a numeric code and a title.
			var keystone struct {
				Error struct {
					Code    int    `json:"code"`
					Title   string `json:"title"`
					Message string `json:"message"`
				} `json:"error"`
			}
			resp.decode(t, &keystone)
			if keystone.Error.Code != tt.wantStatus || keystone.Error.Title != http.StatusText(tt.wantStatus) {
				t.Errorf("error %+v, want code %d and title %q", keystone.Error, tt.wantStatus, http.StatusText(tt.wantStatus))
			}
			if !strings.Contains(keystone.Error.Message, tt.wantMessage) {
				t.Errorf("message %q does not contain %q", keystone.Error.Message, tt.wantMessage)
			}
			if resp.header.Get(kakaocloud.HeaderSubjectToken) != "" {
				t.Error("a rejected issue returned a token")
			}
		})
	}
}

func TestValidateToken(t *testing.T) {
	h := newHarness(t, emulator.Options{TokenTTL: time.Hour})
	validate := func(authToken, subject string) response {
		return h.do(http.MethodGet, tokensPath, nil, map[string]string{
			kakaocloud.HeaderAuthToken: authToken, kakaocloud.HeaderSubjectToken: subject,
		})
	}
	if resp := validate(h.token, h.token); resp.status != http.StatusOK {
		t.Fatalf("valid token: status %d; body %s", resp.status, resp.body)
	} else {
		var body kakaocloud.TokenResponse
		resp.decode(t, &body)
		if !body.Token.ExpiresAt.Equal(h.clock.Now().Add(time.Hour)) {
			t.Errorf("expires_at %v", body.Token.ExpiresAt)
		}
	}
	if resp := validate(h.token, "bogus"); resp.status != http.StatusNotFound {
		t.Errorf("unknown subject token: status %d, want 404", resp.status)
	}
	if resp := validate("", h.token); resp.status != http.StatusUnauthorized {
		t.Errorf("no X-Auth-Token: status %d, want 401", resp.status)
	}
	h.clock.Step(time.Hour)
	if resp := validate(h.token, h.token); resp.status != http.StatusNotFound {
		t.Errorf("expired token: status %d, want 404", resp.status)
	}
}

// cloudGetPaths are GET calls of every non-IAM service.
var cloudGetPaths = []string{
	"/bcs" + kakaocloud.PathInstances,
	"/bcs" + kakaocloud.PathFlavors,
	"/image" + kakaocloud.PathImages,
	"/vpc" + kakaocloud.PathSubnets,
	"/network" + kakaocloud.PathSecurityGroups,
	"/kubernetes-engine" + kakaocloud.PathClusters,
	"/kubernetes-engine" + kakaocloud.PathVersions,
	"/kubernetes-engine" + kakaocloud.PathNodeImages,
}

func TestAuthenticationRequired(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	for _, path := range cloudGetPaths {
		t.Run(path, func(t *testing.T) {
			if resp := h.api(http.MethodGet, path, nil); resp.status != http.StatusOK {
				t.Fatalf("with a token: status %d; body %s", resp.status, resp.body)
			}
			wantError(t, h.do(http.MethodGet, path, nil, nil), http.StatusUnauthorized, "Unauthorized", "X-Auth-Token header is required")
			wantError(t, h.do(http.MethodGet, path, nil, map[string]string{kakaocloud.HeaderAuthToken: "bogus"}),
				http.StatusUnauthorized, "Unauthorized", "never issued or has been revoked")
		})
	}
}

func TestTokenInvalidation(t *testing.T) {
	flavors := "/bcs" + kakaocloud.PathFlavors
	tests := []struct {
		name        string
		invalidate  func(h *harness)
		wantMessage string
	}{
		{"expired by the clock", func(h *harness) { h.clock.Step(emulator.DefaultTokenTTL) }, "expired at"},
		{"ExpireTokens", func(h *harness) { h.emulator.ExpireTokens() }, "revoked"},
		{"RemoveCredential", func(h *harness) { h.emulator.RemoveCredential(emulator.DefaultAccessKeyID) }, "revoked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, emulator.Options{})
			h.apiOK(http.MethodGet, flavors, nil, http.StatusOK, nil)
			tt.invalidate(h)
			wantError(t, h.api(http.MethodGet, flavors, nil), http.StatusUnauthorized, "Unauthorized", tt.wantMessage)
		})
	}
}

func TestCredentialRotation(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.AddCredential("rotated-key", "rotated-secret")
	oldToken := h.token
	newToken := h.issueToken("rotated-key", "rotated-secret")
	h.emulator.RemoveCredential(emulator.DefaultAccessKeyID)

	flavors := "/bcs" + kakaocloud.PathFlavors
	h.token = newToken
	h.apiOK(http.MethodGet, flavors, nil, http.StatusOK, nil)
	h.token = oldToken
	wantError(t, h.api(http.MethodGet, flavors, nil), http.StatusUnauthorized, "Unauthorized", "revoked")
	resp := h.do(http.MethodPost, tokensPath, tokenRequest(emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey), nil)
	if resp.status != http.StatusUnauthorized {
		t.Errorf("issuing with a removed credential: status %d, want 401", resp.status)
	}
}

func TestCustomCredentials(t *testing.T) {
	h := newHarness(t, emulator.Options{Credentials: map[string]string{"mine": "s3cret"}})
	if h.token == "" {
		t.Fatal("no token")
	}
	t.Run("default pair is not accepted", func(t *testing.T) {
		resp := h.do(http.MethodPost, tokensPath, tokenRequest(emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey), nil)
		if resp.status != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", resp.status)
		}
	})
}

func TestContentNegotiation(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	flavors := "/bcs" + kakaocloud.PathFlavors
	for _, accept := range []string{"application/json", "*/*", "application/*", "text/html, application/json;q=0.9"} {
		resp := h.do(http.MethodGet, flavors, nil, map[string]string{kakaocloud.HeaderAuthToken: h.token, "Accept": accept})
		if resp.status != http.StatusOK {
			t.Errorf("Accept %q: status %d, want 200", accept, resp.status)
		}
	}
	resp := h.do(http.MethodGet, flavors, nil, map[string]string{kakaocloud.HeaderAuthToken: h.token, "Accept": "application/yaml"})
	wantError(t, resp, http.StatusNotAcceptable, "NotAcceptable", "application/yaml")

	create := kakaocloud.CreateInstanceRequest{Instance: h.validCreate("content-type")}
	resp = h.do(http.MethodPost, "/bcs"+kakaocloud.PathInstances, create,
		map[string]string{kakaocloud.HeaderAuthToken: h.token, "Content-Type": "text/plain"})
	wantError(t, resp, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "text/plain")
}

func TestEveryAnswerIsJSON(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	id := h.create(h.validCreate("json-answers"))
	answers := map[string]response{
		"list":            h.api(http.MethodGet, "/bcs"+kakaocloud.PathFlavors, nil),
		"delete":          h.api(http.MethodDelete, "/bcs"+kakaocloud.PathInstances+"/"+id, nil),
		"not found":       h.api(http.MethodGet, "/bcs"+kakaocloud.PathInstances+"/missing", nil),
		"unauthenticated": h.do(http.MethodGet, "/vpc"+kakaocloud.PathSubnets, nil, nil),
		"unknown route":   h.do(http.MethodGet, "/bcs/api/v2/nothing", nil, nil),
		"token":           h.do(http.MethodPost, tokensPath, tokenRequest("x", "y"), nil),
	}
	for name, resp := range answers {
		if got := resp.header.Get("Content-Type"); got != "application/json" {
			t.Errorf("%s: Content-Type %q", name, got)
		}
		if len(resp.body) > 0 && !json.Valid(resp.body) {
			t.Errorf("%s: body is not JSON: %s", name, resp.body)
		}
	}
	if resp := answers["delete"]; resp.status != http.StatusAccepted || len(resp.body) != 0 {
		t.Errorf("delete: status %d, body %q; want 202 and no body", resp.status, resp.body)
	}
}

func TestUnroutedRequests(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	wantError(t, h.do(http.MethodGet, "/bcs/api/v1/keypairs", nil, nil), http.StatusNotFound, "NotFound", "no API at GET /bcs/api/v1/keypairs")
	resp := h.do(http.MethodPatch, "/bcs"+kakaocloud.PathInstances+"/x", nil, nil)
	wantError(t, resp, http.StatusMethodNotAllowed, "MethodNotAllowed", "PATCH is not allowed")
	if allow := resp.header.Get("Allow"); allow != "GET, PUT, DELETE" {
		t.Errorf("Allow %q", allow)
	}
}

func TestEndpoints(t *testing.T) {
	e := emulator.New(emulator.Options{})
	endpoints := e.Endpoints("http://127.0.0.1:8090/")
	if len(endpoints) != len(kakaocloud.Services) {
		t.Fatalf("endpoints %v", endpoints)
	}
	for _, service := range kakaocloud.Services {
		if want := "http://127.0.0.1:8090/" + service; endpoints[service] != want {
			t.Errorf("%s: %q, want %q", service, endpoints[service], want)
		}
	}
}
