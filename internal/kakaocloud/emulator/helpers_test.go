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
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// newFakeClock returns a clock a test steps by hand.
func newFakeClock() *clocktesting.FakeClock {
	return clocktesting.NewFakeClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
}

// harness is an emulator on a real loopback HTTP server, with a fake clock and a token.
type harness struct {
	t        testing.TB
	emulator *emulator.Emulator
	server   *httptest.Server
	clock    *clocktesting.FakeClock
	catalog  *emulator.Catalog
	token    string
}

// newHarness starts an emulator with opts (a fake clock unless opts has a clock) and logs in
// with one of its credentials.
func newHarness(t testing.TB, opts emulator.Options) *harness {
	t.Helper()
	clock := newFakeClock()
	if opts.Clock == nil {
		opts.Clock = clock
	}
	e := emulator.New(opts)
	server := httptest.NewServer(e)
	t.Cleanup(server.Close)
	h := &harness{t: t, emulator: e, server: server, clock: clock, catalog: emulator.DefaultCatalog()}
	id, secret := emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey
	for id, secret = range opts.Credentials {
		break
	}
	h.token = h.issueToken(id, secret)
	return h
}

// response is what came back from one call.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// send makes one HTTP call: body is marshalled as JSON unless it is a string, sent verbatim.
func (h *harness) send(ctx context.Context, method, path string, body any, header map[string]string) (response, error) {
	h.t.Helper()
	var reader io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		reader = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatalf("marshalling request: %v", err)
		}
		reader = bytes.NewReader(data)
	}
	request, err := http.NewRequestWithContext(ctx, method, h.server.URL+path, reader)
	if err != nil {
		h.t.Fatalf("building request: %v", err)
	}
	if body != nil {
		request.Header.Set("Content-Type", "application/json")
	}
	for key, value := range header {
		request.Header.Set(key, value)
	}
	resp, err := h.server.Client().Do(request)
	if err != nil {
		return response{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("reading response: %v", err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

func (h *harness) do(method, path string, body any, header map[string]string) response {
	h.t.Helper()
	resp, err := h.send(context.Background(), method, path, body, header)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// api calls a cloud API as the client does: with the token and Accept: application/json.
func (h *harness) api(method, path string, body any) response {
	h.t.Helper()
	return h.do(method, path, body, map[string]string{kakaocloud.HeaderAuthToken: h.token, "Accept": "application/json"})
}

// apiOK calls a cloud API, requires wantStatus and decodes the body into out (if not nil).
func (h *harness) apiOK(method, path string, body any, wantStatus int, out any) response {
	h.t.Helper()
	resp := h.api(method, path, body)
	if resp.status != wantStatus {
		h.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, resp.status, wantStatus, resp.body)
	}
	if out != nil {
		resp.decode(h.t, out)
	}
	return resp
}

func (h *harness) issueToken(id, secret string) string {
	h.t.Helper()
	resp := h.do(http.MethodPost, "/iam"+kakaocloud.PathTokens, tokenRequest(id, secret), nil)
	if resp.status != http.StatusCreated {
		h.t.Fatalf("issuing a token: status %d; body %s", resp.status, resp.body)
	}
	return resp.header.Get(kakaocloud.HeaderSubjectToken)
}

func tokenRequest(id, secret string) kakaocloud.TokenRequest {
	return kakaocloud.TokenRequest{Auth: kakaocloud.TokenAuth{Identity: kakaocloud.TokenIdentity{
		Methods:               []string{"application_credential"},
		ApplicationCredential: kakaocloud.ApplicationCredential{ID: id, Secret: secret},
	}}}
}

// wantError checks an error answer: its status, its string code and a message fragment.
func wantError(t *testing.T, resp response, status int, code, messageFragment string) {
	t.Helper()
	if resp.status != status {
		t.Fatalf("status %d, want %d; body %s", resp.status, status, resp.body)
	}
	var body kakaocloud.ErrorResponse
	resp.decode(t, &body)
	if string(body.Error.Code) != code {
		t.Errorf("error code %q, want %q; body %s", body.Error.Code, code, resp.body)
	}
	if !strings.Contains(body.Error.Message, messageFragment) {
		t.Errorf("error message %q does not contain %q", body.Error.Message, messageFragment)
	}
}

func (h *harness) flavorID(name string) string {
	h.t.Helper()
	flavor, ok := h.catalog.FlavorByName(name)
	if !ok {
		h.t.Fatalf("no flavor %s", name)
	}
	return flavor.ID
}

func (h *harness) subnetID(name string) string {
	h.t.Helper()
	subnet, ok := h.catalog.SubnetByName(name)
	if !ok {
		h.t.Fatalf("no subnet %s", name)
	}
	return subnet.ID
}

func (h *harness) imageID(name string) string {
	h.t.Helper()
	image, ok := h.catalog.ImageByName(name)
	if !ok {
		h.t.Fatalf("no image %s", name)
	}
	return image.ID
}

const nodeImage136 = "ubuntu-24.04-k8s-1.36-x86_64"

// validCreate is a create the default catalog accepts: m2a.large in zone a.
func (h *harness) validCreate(name string) kakaocloud.CreateInstance {
	imageID := h.imageID(nodeImage136)
	return kakaocloud.CreateInstance{
		Name:           name,
		Description:    "karpenter nodeclaim default-abcde",
		ImageID:        imageID,
		FlavorID:       h.flavorID("m2a.large"),
		Subnets:        []kakaocloud.SubnetAttachment{{ID: h.subnetID("karpenter-subnet-a")}},
		Volumes:        []kakaocloud.VolumeSpec{kakaocloud.BootVolume(50, "")},
		SecurityGroups: []kakaocloud.SecurityGroupRef{{Name: emulator.DefaultSecurityGroupName}},
		UserData:       base64.StdEncoding.EncodeToString([]byte("#cloud-config\n")),
	}
}

// create sends a create and returns the new instance's ID, failing the test on anything but
// 202.
func (h *harness) create(spec kakaocloud.CreateInstance) string {
	h.t.Helper()
	var created kakaocloud.CreateInstanceResponse
	h.apiOK(http.MethodPost, "/bcs"+kakaocloud.PathInstances, kakaocloud.CreateInstanceRequest{Instance: spec}, http.StatusAccepted, &created)
	return created.Instance.ID
}

func (h *harness) getInstance(id string) kakaocloud.Instance {
	h.t.Helper()
	var got kakaocloud.GetInstanceResponse
	h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathInstances+"/"+id, nil, http.StatusOK, &got)
	return got.Instance
}

func (h *harness) actionLogs(id string) []kakaocloud.ActionLog {
	h.t.Helper()
	var logs kakaocloud.ListActionLogsResponse
	h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathInstances+"/"+id+"/action-logs", nil, http.StatusOK, &logs)
	return logs.Actions
}
