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

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// defaults are the flags' defaults that checkOptions reads.
func defaults() options {
	return options{kubeClientQPS: 200, kubeClientBurst: 300, metricsAddr: "0", secureMetrics: true, bootstrapTokenTTL: bootstrap.DefaultTokenTTL,
		kakaoCloudCalls: kakaoCloudCallBounds{qps: kakaocloud.DefaultRateLimit.QPS, burst: kakaocloud.DefaultRateLimit.Burst,
			callTimeout: kakaocloud.DefaultCallTimeout, maxRetryAfter: kakaocloud.DefaultMaxRetryAfter}}
}

func TestCheckOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		change    func(*options)
		wantError string // empty: accepted
		wantNote  string
	}{
		{name: "the defaults", change: func(*options) {}},
		{name: "profiles behind the secure metrics endpoint", change: func(o *options) { o.metricsAddr, o.enableProfiling = ":8443", true }},
		{name: "profiles on plain HTTP on loopback", change: func(o *options) {
			o.metricsAddr, o.secureMetrics, o.enableProfiling = "127.0.0.1:8080", false, true
		}},
		{name: "profiles on plain HTTP on IPv6 loopback", change: func(o *options) {
			o.metricsAddr, o.secureMetrics, o.enableProfiling = "[::1]:8080", false, true
		}},
		{name: "plain HTTP metrics without profiles", change: func(o *options) { o.metricsAddr, o.secureMetrics = ":8080", false }},
		{name: "profiles on plain HTTP on every interface", change: func(o *options) {
			o.metricsAddr, o.secureMetrics, o.enableProfiling = ":8080", false, true
		}, wantError: "--enable-profiling with --metrics-secure=false"},
		{name: "profiles on plain HTTP on a pod address", change: func(o *options) {
			o.metricsAddr, o.secureMetrics, o.enableProfiling = "10.244.0.7:8080", false, true
		}, wantError: "--enable-profiling with --metrics-secure=false"},
		{name: "profiles on plain HTTP on a host name", change: func(o *options) {
			o.metricsAddr, o.secureMetrics, o.enableProfiling = "operator.example.com:8080", false, true
		}, wantError: "--enable-profiling with --metrics-secure=false"},
		{name: "the pprof server on loopback", change: func(o *options) { o.pprofAddr = "127.0.0.1:6060" }},
		{name: "the pprof server on localhost", change: func(o *options) { o.pprofAddr = "localhost:6060" }},
		{name: "the pprof server on every interface", change: func(o *options) { o.pprofAddr = ":6060" }, wantError: "--pprof-bind-address"},
		{name: "the pprof server on every IPv4 interface", change: func(o *options) { o.pprofAddr = "0.0.0.0:6060" }, wantError: "--pprof-bind-address"},
		{name: "a token TTL of zero", change: func(o *options) { o.bootstrapTokenTTL = 0 }, wantError: "--bootstrap-token-ttl 0s: must be positive"},
		{name: "a negative token TTL", change: func(o *options) { o.bootstrapTokenTTL = -time.Minute }, wantError: "--bootstrap-token-ttl"},
		{name: "a token TTL shorter than a NodeClaim may take to join", change: func(o *options) { o.bootstrapTokenTTL = 10 * time.Minute },
			wantNote: "--bootstrap-token-ttl 10m0s is shorter than the launch and registration timeouts together (20m0s)"},
		{name: "a token TTL longer than the default", change: func(o *options) { o.bootstrapTokenTTL = time.Hour }},
		{name: "no client rate", change: func(o *options) { o.kubeClientQPS = 0 }, wantError: "--kube-client-qps 0"},
		{name: "no KakaoCloud rate", change: func(o *options) { o.kakaoCloudCalls.qps = 0 }, wantError: "--kakaocloud-client-qps 0"},
		{name: "no KakaoCloud call timeout", change: func(o *options) { o.kakaoCloudCalls.callTimeout = 0 }, wantError: "--kakaocloud-call-timeout 0s"},
		{name: "a negative Retry-After cap", change: func(o *options) { o.kakaoCloudCalls.maxRetryAfter = -time.Second }, wantError: "--kakaocloud-max-retry-after -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := defaults()
			tc.change(&o)
			notes, err := checkOptions(o)
			switch {
			case tc.wantError == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.wantError != "" && (err == nil || !strings.Contains(err.Error(), tc.wantError)):
				t.Errorf("error %v, want one saying %q", err, tc.wantError)
			}
			if got := strings.Join(notes, "\n"); (tc.wantNote == "") != (got == "") || !strings.Contains(got, tc.wantNote) {
				t.Errorf("notes %q, want %q", got, tc.wantNote)
			}
		})
	}
}
