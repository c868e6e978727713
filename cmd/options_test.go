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
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		wantError string // empty: accepted
		check     func(t *testing.T, o options)
	}{
		{name: "the defaults", check: func(t *testing.T, o options) {
			if o.kubeClientQPS != 200 || o.kubeClientBurst != 300 || !o.secureMetrics || !o.nodeRepair || o.legacyNodeRepair ||
				o.batchIdle != time.Second || o.batchMax != 10*time.Second || o.cloud.credentialsSecret != "karpenter-kakaocloud-credentials" ||
				o.cloud.keyringSecret != "karpenter-kakaocloud-signing-keys" || !o.featureGates.NodeRepair || o.featureGates.CapacityBuffer ||
				o.policies.IgnorePreferences || o.policies.MinValuesBestEffort || len(o.cloud.endpoints) != 0 {
				t.Errorf("defaults %+v", o)
			}
		}},
		{name: "the cloud's settings from the environment", env: map[string]string{
			"CLUSTER_NAME": "prod", "KAKAOCLOUD_REGION": "kr-central-9", "CREDENTIALS_SECRET": "keys", "SIGNING_KEYRING_SECRET": "ring",
			"KAKAOCLOUD_ENDPOINTS": "bcs=http://a, vpc=http://b",
		}, check: func(t *testing.T, o options) {
			c := o.cloud
			if c.clusterName != "prod" || c.region != "kr-central-9" || c.credentialsSecret != "keys" || c.keyringSecret != "ring" ||
				c.endpoints["bcs"] != "http://a" || c.endpoints["vpc"] != "http://b" {
				t.Errorf("cloud %+v", c)
			}
		}},
		{name: "a flag overrides its environment variable", env: map[string]string{"CLUSTER_NAME": "prod", "KAKAOCLOUD_ENDPOINTS": "bcs=http://a",
			"KUBE_CLIENT_QPS": "50", "PREFERENCE_POLICY": "Ignore"},
			args: []string{"--cluster-name=dev", "--kakaocloud-endpoint=bcs=http://c", "--kube-client-qps=70", "--preference-policy=Respect"},
			check: func(t *testing.T, o options) {
				if o.cloud.clusterName != "dev" || o.cloud.endpoints["bcs"] != "http://c" || o.kubeClientQPS != 70 || o.policies.IgnorePreferences {
					t.Errorf("options %+v", o)
				}
			}},
		{name: "upstream's environment variables", env: map[string]string{"FEATURE_GATES": "CapacityBuffer=true", "MIN_VALUES_POLICY": "BestEffort",
			"KUBE_CLIENT_BURST": "400"}, check: func(t *testing.T, o options) {
			if !o.featureGates.CapacityBuffer || !o.policies.MinValuesBestEffort || o.kubeClientBurst != 400 {
				t.Errorf("options %+v", o)
			}
		}},
		{name: "an invalid environment variable is named", env: map[string]string{"KAKAOCLOUD_ENDPOINTS": "nowhere"},
			wantError: `invalid KAKAOCLOUD_ENDPOINTS "nowhere"`},
		{name: "an invalid choice", args: []string{"--min-values-policy=Lenient"}, wantError: `"Lenient" is not one of Strict, BestEffort`},
		{name: "an unknown flag", args: []string{"--no-such-flag"}, wantError: "parsing the command line"},
		{name: "checked after parsing", args: []string{"--bootstrap-token-ttl=0s"}, wantError: "--bootstrap-token-ttl 0s: must be positive"},
		{name: "a note for an allowed but risky setting", args: []string{"--bootstrap-token-ttl=5m"}, check: func(t *testing.T, o options) {
			if len(o.flagNotes) != 1 || !strings.Contains(o.flagNotes[0], "--bootstrap-token-ttl 5m0s is shorter") {
				t.Errorf("notes %q", o.flagNotes)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, env := range []string{"CLUSTER_NAME", "KAKAOCLOUD_REGION", "CREDENTIALS_SECRET", "SIGNING_KEYRING_SECRET", "KAKAOCLOUD_ENDPOINTS",
				"FEATURE_GATES", "PREFERENCE_POLICY", "MIN_VALUES_POLICY", "SCHEDULER_CONFIG", "KUBE_CLIENT_QPS", "KUBE_CLIENT_BURST",
				"NEXT_RELEASE_MIN_KUBERNETES_VERSION"} {
				t.Setenv(env, tc.env[env])
			}
			fs := flag.NewFlagSet("manager", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o, _, err := parseOptions(fs, tc.args)
			switch {
			case tc.wantError == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantError != "" && (err == nil || !strings.Contains(err.Error(), tc.wantError)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantError)
			}
			if tc.check != nil {
				tc.check(t, o)
			}
		})
	}
}
