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

package kakaocloud_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Every endpoint, an override as much as a default, is https, but for a loopback host.
func TestNewRefusesEndpointsOtherThanHTTPS(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		endpoint string
		wantErr  string
	}{
		{"http://bcs.example.com", "must be https"},
		{"http://10.0.0.1:8080/bcs", "must be https"},
		{"http://127.0.0.1.example.com/bcs", "must be https"},
		{"ftp://127.0.0.1/bcs", "must be https"},
		{"bcs.kr-central-2.kakaocloud.com", "no host"},
		{"https://bcs.example.com", ""},
		{"http://127.0.0.1:8090/bcs", ""},
		{"http://127.3.2.1:8090/bcs", ""},
		{"http://[::1]:8090/bcs", ""},
		{"http://localhost:8090/bcs", ""},
	} {
		t.Run(tt.endpoint, func(t *testing.T) {
			_, err := kakaocloud.New(kakaocloud.Config{
				Endpoints:   map[string]string{kakaocloud.ServiceBCS: tt.endpoint},
				Credentials: kakaocloud.StaticCredentials{AccessKeyID: accessKeyID, SecretAccessKey: secretKey},
				Clock:       e.clock,
			})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("New: %v, want the endpoint accepted", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "bcs")):
				t.Errorf("New: %v, want an error about bcs that says %q", err, tt.wantErr)
			}
		})
	}
}

// configService answers the configuration service's endpoint resolution with endpoints.
func configService(t *testing.T, endpoints map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != kakaocloud.PathClientEndpoints || r.Header.Get(kakaocloud.HeaderAuthToken) == "" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(kakaocloud.ClientEndpointResponse{
			Success: true, Data: &kakaocloud.ClientEndpoint{ID: "test", ServiceEndpoints: endpoints, Priority: 1},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An answer of the configuration service with an endpoint that is not https is refused, and
// the derived hosts stay.
func TestResolutionRefusesEndpointsOtherThanHTTPS(t *testing.T) {
	e := newEnv(t)
	all := e.emu.Endpoints(e.server.URL)
	config := configService(t, map[string]string{
		kakaocloud.ServiceVPC: all[kakaocloud.ServiceVPC],
		kakaocloud.ServiceBCS: "http://bcs.example.com",
	})
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Endpoints = map[string]string{kakaocloud.ServiceIAM: all[kakaocloud.ServiceIAM], kakaocloud.ServiceConfig: config.URL}
	})
	got, err := c.ResolveEndpoints(context.Background())
	if err == nil || !strings.Contains(err.Error(), `endpoint of bcs "http://bcs.example.com"`) || !strings.Contains(err.Error(), "must be https") {
		t.Errorf("ResolveEndpoints: %v, want the answer's bcs endpoint refused for not being https", err)
	}
	if got[kakaocloud.ServiceBCS] != "https://bcs.kr-central-2.kakaocloud.com" || got[kakaocloud.ServiceVPC] != "https://vpc.kr-central-2.kakaocloud.com" {
		t.Errorf("endpoints after the refused answer: %v, want the derived hosts", got)
	}
}

// hostRecorder records the host of every request and sends only those to loopback hosts: the
// others fail without leaving the machine.
type hostRecorder struct {
	mu    sync.Mutex
	hosts []string
}

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.hosts = append(h.hosts, r.URL.Scheme+"://"+r.URL.Host)
	h.mu.Unlock()
	if ip := net.ParseIP(r.URL.Hostname()); ip == nil || !ip.IsLoopback() {
		return nil, errors.New("not sent: the test reaches loopback hosts only")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// The configuration service asked is kr-central-2's, whatever the region, as the official
// Terraform provider asks it; the region only picks the hosts used while it does not answer.
func TestConfigurationServiceIsKrCentral2s(t *testing.T) {
	e := newEnv(t)
	recorder := &hostRecorder{}
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Region = "kr-central-1"
		cfg.Endpoints = map[string]string{kakaocloud.ServiceIAM: e.emu.Endpoints(e.server.URL)[kakaocloud.ServiceIAM]}
		cfg.HTTPClient = &http.Client{Transport: recorder}
	})
	got, err := c.ResolveEndpoints(context.Background())
	if err == nil {
		t.Fatal("ResolveEndpoints succeeded, want the unsent request's error")
	}
	recorder.mu.Lock()
	defer recorder.mu.Unlock()
	asked := false
	for _, host := range recorder.hosts {
		asked = asked || host == "https://heimdall.kr-central-2.kakaocloud.com"
		if strings.Contains(host, "heimdall.kr-central-1") {
			t.Errorf("asked %s", host)
		}
	}
	if !asked {
		t.Errorf("requests went to %v, want the configuration service of kr-central-2", recorder.hosts)
	}
	if got[kakaocloud.ServiceConfig] != "https://heimdall.kr-central-2.kakaocloud.com" || got[kakaocloud.ServiceBCS] != "https://bcs.kr-central-1.kakaocloud.com" {
		t.Errorf("endpoints %v, want kr-central-2's configuration service and kr-central-1's derived hosts", got)
	}
}

// Tokens are issued at the IAM endpoint the client was made with, after a resolution that names
// another, as the official Terraform provider's token manager issues them.
func TestTokensAreIssuedAtTheConfiguredIAM(t *testing.T) {
	e := newEnv(t)
	all := e.emu.Endpoints(e.server.URL)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	answer := map[string]string{kakaocloud.ServiceIAM: dead.URL + "/iam"}
	for _, service := range []string{kakaocloud.ServiceBCS, kakaocloud.ServiceImage, kakaocloud.ServiceVPC, kakaocloud.ServiceNetwork, kakaocloud.ServiceKubernetesEngine} {
		answer[service] = all[service]
	}
	config := configService(t, answer)
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Endpoints = map[string]string{kakaocloud.ServiceIAM: all[kakaocloud.ServiceIAM], kakaocloud.ServiceConfig: config.URL}
	})
	ctx := context.Background()
	resolved := must(c.ResolveEndpoints(ctx))(t)
	if resolved[kakaocloud.ServiceIAM] != all[kakaocloud.ServiceIAM] {
		t.Errorf("IAM endpoint %q after the resolution, want the configured %q", resolved[kakaocloud.ServiceIAM], all[kakaocloud.ServiceIAM])
	}
	e.emu.ExpireTokens()
	if _, err := c.ListFlavors(ctx, kakaocloud.FlavorFilter{}); err != nil {
		t.Errorf("a call that must re-issue its token: %v", err)
	}
}

// issued_at is read as the official SDK reads it, a string of no set format: a spelling that is
// not RFC 3339 does not fail the token issue.
func TestIssuedAtIsReadAsTheSDKReadsIt(t *testing.T) {
	e := newEnv(t)
	iam := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(kakaocloud.HeaderSubjectToken, "token-of-the-test")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"token":{"expires_at":"2026-11-30T00:00:00.000000Z","issued_at":"2026-11-29 12:00:00","methods":["application_credential"]}}`))
	}))
	t.Cleanup(iam.Close)
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Endpoints = map[string]string{kakaocloud.ServiceIAM: iam.URL, kakaocloud.ServiceConfig: iam.URL}
	})
	if err := c.Authenticate(context.Background()); err != nil {
		t.Errorf("Authenticate: %v, want the token issued", err)
	}
}
