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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// FuzzClientReadsAnyAnswer has every service but IAM answer 200 with an arbitrary body: the
// client returns a value or an error for each call, never crashes, and a listing ends even
// when the pagination it is given never does.
func FuzzClientReadsAnyAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"instance":{"id":"a","name":"b","status":"active","flavor":{"name":"m2a.large"}}}`,
		`{"instances":[{"id":"a"}],"pagination":{"total":2000000000,"offset":0,"limit":1}}`,
		`{"instances":[{"id":"a"}],"pagination":{"total":-1}}`,
		`{"subnets":[{"id":"a","availability_zone":7}]}`, `{"instance":null}`, `[]`, `null`, ``, `{`,
		`{"cluster":{"version":{"minor_version":"1.36"}}}`, `{"images":[{"k8s_version":{}}]}`,
	} {
		f.Add(seed)
	}
	iam := emulator.New(emulator.Options{})
	iamServer := httptest.NewServer(iam)
	f.Cleanup(iamServer.Close)
	var answer atomic.Value
	answer.Store("")
	cloud := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer.Load().(string)))
	}))
	f.Cleanup(cloud.Close)
	endpoints := iam.Endpoints(cloud.URL)
	endpoints[kakaocloud.ServiceIAM] = iam.Endpoints(iamServer.URL)[kakaocloud.ServiceIAM]
	client, err := kakaocloud.New(kakaocloud.Config{
		Endpoints:   endpoints,
		Credentials: kakaocloud.StaticCredentials{AccessKeyID: emulator.DefaultAccessKeyID, SecretAccessKey: emulator.DefaultSecretAccessKey},
		Retry:       kakaocloud.RetryPolicy{MaxAttempts: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
		// Answers whose pagination never ends are read to the client's page bound, faster
		// than a real cloud's rate allows.
		RateLimit: kakaocloud.RateLimit{QPS: 1e6, Burst: 1000},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		answer.Store(body)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		calls := map[string]func() error{
			"GetInstance":    func() error { _, err := client.GetInstance(ctx, "a"); return err },
			"ListInstances":  func() error { _, err := client.ListInstances(ctx, kakaocloud.InstanceFilter{}); return err },
			"ListFlavors":    func() error { _, err := client.ListFlavors(ctx, kakaocloud.FlavorFilter{}); return err },
			"ListSubnets":    func() error { _, err := client.ListSubnets(ctx, kakaocloud.SubnetFilter{}); return err },
			"ListNodeImages": func() error { _, err := client.ListNodeImages(ctx, kakaocloud.NodeImageFilter{}); return err },
			"GetCluster":     func() error { _, err := client.GetCluster(ctx, "c"); return err },
		}
		for name, call := range calls {
			if err := call(); err != nil && ctx.Err() != nil {
				t.Fatalf("%s did not end with %q: %v", name, strings.TrimSpace(body), err)
			}
		}
	})
}
