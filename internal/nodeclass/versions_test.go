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

package nodeclass

import (
	"slices"
	"testing"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

func TestAllowedWorkerVersions(t *testing.T) {
	for _, tc := range []struct {
		controlPlane string
		want         []string
		wantErr      bool
	}{
		{"1.36", []string{"1.36", "1.35"}, false},
		{"v1.36", []string{"1.36", "1.35"}, false},
		{"1.0", []string{"1.0"}, false},
		{"", nil, true},
		{"latest", nil, true},
	} {
		t.Run(tc.controlPlane, func(t *testing.T) {
			got, err := AllowedWorkerVersions(tc.controlPlane)
			if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v, error %t", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestVersionSkew(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		controlPlane, worker string
		want                 int
		wantErr              bool
	}{
		{"the same minor", "1.36", "1.36", 0, false},
		{"one behind", "1.36", "1.35", 1, false},
		{"two behind", "1.36", "1.34", 2, false},
		{"ahead of the control plane", "1.36", "1.37", -1, false},
		{"the control plane not known", "", "1.36", 0, true},
		{"no worker version", "1.36", "", 0, true},
		{"another major", "2.0", "1.36", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := VersionSkew(tc.controlPlane, tc.worker)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("got %d, %v; want %d, error %t", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// offered lists versions as Kubernetes Engine would: the deprecated ones marked.
func offered(minors []string, deprecated ...string) []kakaocloud.KubernetesVersion {
	var out []kakaocloud.KubernetesVersion
	for _, m := range minors {
		out = append(out, kakaocloud.KubernetesVersion{MinorVersion: m, IsDeprecated: slices.Contains(deprecated, m)})
	}
	return out
}

func TestOffered(t *testing.T) {
	versions := offered([]string{"1.33", "1.34", "1.35", "1.36"}, "1.33")
	if got, want := OfferedVersions(versions), []string{"1.34", "1.35", "1.36"}; !slices.Equal(got, want) {
		t.Errorf("OfferedVersions %v, want %v", got, want)
	}
	for _, tc := range []struct {
		worker string
		want   bool
	}{
		{"1.36", true},
		{"1.34", true},
		{"1.33", false}, // deprecated
		{"1.37", false}, // unknown
	} {
		if got := Offered(versions, tc.worker); got != tc.want {
			t.Errorf("Offered(%s) = %t, want %t", tc.worker, got, tc.want)
		}
	}
	if OfferedVersions(nil) != nil || Offered(nil, "1.36") {
		t.Error("no versions known: none is offered")
	}
}

func TestControlPlaneUpgrading(t *testing.T) {
	for phase, want := range map[string]bool{
		kakaocloud.ClusterPhaseUpdating:     true,
		kakaocloud.ClusterPhaseProvisioning: true,
		kakaocloud.ClusterPhasePending:      true,
		kakaocloud.ClusterPhaseProvisioned:  false,
		kakaocloud.ClusterPhaseDeleting:     false,
		kakaocloud.ClusterPhaseFailed:       false,
	} {
		if got := ControlPlaneUpgrading(kakaocloud.Cluster{Status: kakaocloud.ClusterStatus{Phase: phase}}); got != want {
			t.Errorf("%s: upgrading %t, want %t", phase, got, want)
		}
	}
}

func TestCheckWorkerVersion(t *testing.T) {
	versions := offered([]string{"1.33", "1.34", "1.35", "1.36"}, "1.33")
	for _, tc := range []struct {
		name              string
		worker            string
		versions          []kakaocloud.KubernetesVersion
		controlPlane      string
		controlPlaneKnown bool
		want              WorkerVersionCheck
	}{
		{"the control plane's version", "1.36", versions, "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.35"}}},
		{"one minor below the control plane", "1.35", versions, "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.35"}}},
		{"two minors below: out of skew", "1.34", versions, "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.35"}, OutOfSkew: true}},
		{"deprecated: not offered, whatever the skew", "1.33", versions, "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.35"}, NotOffered: true}},
		{"newer than the control plane and unknown: not offered", "1.37", versions, "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.35"}, NotOffered: true}},
		{"inside the skew but deprecated since: left out of the allowed", "1.35", offered([]string{"1.35", "1.36"}, "1.35"), "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36"}, NotOffered: true}},
		{"the control plane not known: only what is offered is checked", "1.34", versions, "", false,
			WorkerVersionCheck{Allowed: []string{"1.34", "1.35", "1.36"}}},
		{"the control plane not known, a deprecated version", "1.33", versions, "", false,
			WorkerVersionCheck{Allowed: []string{"1.34", "1.35", "1.36"}, NotOffered: true}},
		{"no versions known: only the skew is checked", "1.34", nil, "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.35"}, OutOfSkew: true}},
		{"no versions known, inside the skew", "1.35", nil, "1.36", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.35"}}},
		{"nothing known: nothing checked", "1.20", nil, "", false, WorkerVersionCheck{}},
		{"a control plane version that does not read: allowed is what is offered", "1.37", offered([]string{"1.36", "1.37"}), "latest", true,
			WorkerVersionCheck{Allowed: []string{"1.36", "1.37"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckWorkerVersion(tc.worker, tc.versions, tc.controlPlane, tc.controlPlaneKnown)
			if !slices.Equal(got.Allowed, tc.want.Allowed) || got.NotOffered != tc.want.NotOffered || got.OutOfSkew != tc.want.OutOfSkew {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
