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

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// FuzzRequestBodies sends arbitrary bodies to every call of the emulator that reads one (the
// cloud's and the admin API's): each answer is a client error or a success with a JSON body,
// never a server error or a crash, so that a test that fails against the emulator fails for a
// reason a real gateway would give.
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		`{"instance":{"name":"a","flavor_id":"x","image_id":"y","subnets":[{"id":"z"}]}}`,
		`{"instance":{"name":null}}`, `{"operation":"CreateInstance","status":503,"count":-1}`,
		`{"lag":"1h"}`, `{"flavor":"m2a.large","zone":"kr-central-2-a","remaining":-5}`,
		`{"count":1e300}`, `[]`, `null`, `{"instance":{"name":"` + strings.Repeat("a", 300) + `"}}`, "\x00{",
	} {
		f.Add(seed)
	}
	h := newHarness(f, emulator.Options{})
	f.Fuzz(func(t *testing.T, body string) {
		h.t = t // the harness reports through the input's test
		for _, call := range []struct{ method, path string }{
			{http.MethodPost, "/bcs" + kakaocloud.PathInstances},
			{http.MethodPut, "/bcs" + kakaocloud.PathInstances + "/no-such-vm"},
			{http.MethodPost, emulator.AdminPrefix + "/faults"},
			{http.MethodPost, emulator.AdminPrefix + "/list-lag"},
			{http.MethodPost, emulator.AdminPrefix + "/capacity"},
			{http.MethodPost, emulator.AdminPrefix + "/fail-instances"},
			{http.MethodPost, emulator.AdminPrefix + "/credentials"},
			{http.MethodPost, emulator.AdminPrefix + "/cluster"},
			{http.MethodPost, emulator.AdminPrefix + "/versions"},
		} {
			resp := h.api(call.method, call.path, body)
			if resp.status >= 500 {
				t.Fatalf("%s %s with %q: status %d, body %s", call.method, call.path, body, resp.status, resp.body)
			}
			if len(resp.body) > 0 && !json.Valid(resp.body) {
				t.Fatalf("%s %s with %q: the answer is not JSON: %s", call.method, call.path, body, resp.body)
			}
		}
		// What a body set (a fault, a list lag) must not outlive the input. Latencies are left
		// out: they would only slow the run down.
		h.emulator.ClearFaults()
		h.emulator.SetListLag(0)
	})
}
