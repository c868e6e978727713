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
	"net/http"
	"slices"
	"strings"
	"testing"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

const (
	clustersPath   = "/kubernetes-engine" + kakaocloud.PathClusters
	versionsPath   = "/kubernetes-engine" + kakaocloud.PathVersions
	nodeImagesPath = "/kubernetes-engine" + kakaocloud.PathNodeImages
)

func (h *harness) cluster() kakaocloud.Cluster {
	h.t.Helper()
	var got kakaocloud.GetClusterResponse
	h.apiOK(http.MethodGet, clustersPath+"/"+emulator.DefaultClusterName, nil, http.StatusOK, &got)
	return got.Cluster
}

func (h *harness) versions() []kakaocloud.KubernetesVersion {
	h.t.Helper()
	var got kakaocloud.ListVersionsResponse
	h.apiOK(http.MethodGet, versionsPath, nil, http.StatusOK, &got)
	return got.Versions
}

func TestClusters(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	var list kakaocloud.ListClustersResponse
	h.apiOK(http.MethodGet, clustersPath, nil, http.StatusOK, &list)
	if len(list.Clusters) != 1 || list.Clusters[0].Name != emulator.DefaultClusterName {
		t.Fatalf("clusters %+v", list.Clusters)
	}
	got := h.cluster()
	subnetA, _ := h.catalog.SubnetByName("karpenter-subnet-a")
	want := kakaocloud.KubernetesVersion{MinorVersion: "1.36", PatchVersion: "1.36.4", EOL: "2027-12-31T00:00:00Z"}
	if got.Version != want || got.Status.Phase != kakaocloud.ClusterPhaseProvisioned || got.IsUpgradable ||
		got.ControlPlaneEndpoint != (kakaocloud.Endpoint{Host: "127.0.0.1", Port: 6443}) ||
		got.VPCInfo.ID != subnetA.VPCID || len(got.VPCInfo.Subnets) != 3 || !uuidPattern.MatchString(got.ID) {
		t.Errorf("cluster %+v", got)
	}
	if got.VPCInfo.Subnets[0] != (kakaocloud.ClusterSubnet{ID: subnetA.ID, AvailabilityZone: emulator.ZoneA, CIDRBlock: "10.0.0.0/20"}) {
		t.Errorf("cluster subnet %+v", got.VPCInfo.Subnets[0])
	}
	wantError(t, h.api(http.MethodGet, clustersPath+"/other", nil), http.StatusNotFound, "NotFound", `cluster "other" not found`)
}

func TestVersions(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	versions := h.versions()
	if len(versions) != 4 || !versions[0].IsDeprecated || versions[0].MinorVersion != "1.33" || versions[0].NextVersion != "1.34" {
		t.Errorf("versions %+v", versions)
	}
}

func TestNodeImages(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	tests := []struct {
		query     string
		wantCount int
	}{
		{"", 9},
		{"?k8s_version=1.36", 3},
		{"?k8s_version=1.33", 0},
		{"?k8s_version=1.3", 0}, // a prefix of 1.36 but not its minor version
		{"?k8s_version=1.35&is_gpu_type=false", 2},
		{"?is_gpu_type=true", 3},
		{"?instance_type=vm&k8s_version=1.34", 3},
		{"?instance_type=bm", 0},
		{"?os_distro=Ubuntu", 9},
		{"?os_distro=rocky", 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp := h.apiOK(http.MethodGet, nodeImagesPath+tt.query, nil, http.StatusOK, nil)
			var list kakaocloud.ListNodeImagesResponse
			resp.decode(t, &list)
			if len(list.Images) != tt.wantCount {
				t.Errorf("%d images, want %d", len(list.Images), tt.wantCount)
			}
			if tt.wantCount == 0 && !strings.Contains(string(resp.body), `"images":[]`) {
				t.Errorf("body %s; want an empty list, not null", resp.body)
			}
		})
	}
	var gpu kakaocloud.ListNodeImagesResponse
	h.apiOK(http.MethodGet, nodeImagesPath+"?k8s_version=1.36&is_gpu_type=true", nil, http.StatusOK, &gpu)
	if len(gpu.Images) != 1 || gpu.Images[0].Architecture != "x86_64" || gpu.Images[0].K8sVersion != "1.36" {
		t.Errorf("GPU image %+v", gpu.Images)
	}
	wantError(t, h.api(http.MethodGet, nodeImagesPath+"?is_gpu_type=maybe", nil), http.StatusBadRequest, "BadRequest", `is_gpu_type "maybe"`)
	wantError(t, h.api(http.MethodGet, nodeImagesPath+"?instance_type=gpu", nil), http.StatusBadRequest, "BadRequest", `instance_type "gpu" must be vm or bm`)
}

func TestSetControlPlane(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.SetControlPlane("", "", kakaocloud.ClusterPhaseUpdating)
	if got := h.cluster(); got.Status.Phase != kakaocloud.ClusterPhaseUpdating || got.Version.PatchVersion != "1.36.4" {
		t.Errorf("phase only: %+v", got)
	}
	h.emulator.SetControlPlane("1.35", "", kakaocloud.ClusterPhaseProvisioned)
	got := h.cluster()
	if got.Version.MinorVersion != "1.35" || got.Version.PatchVersion != "1.35.3" || got.Version.NextVersion != "1.36" || !got.IsUpgradable {
		t.Errorf("downgraded to 1.35: %+v", got)
	}
	h.emulator.SetControlPlane("", "1.35.9", "")
	if got := h.cluster(); got.Version.PatchVersion != "1.35.9" || got.Status.Phase != kakaocloud.ClusterPhaseProvisioned {
		t.Errorf("patch only: %+v", got)
	}
}

func TestVersionAdministration(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.SetVersionDeprecated("1.36", true)
	if got := h.cluster(); !got.Version.IsDeprecated {
		t.Error("the cluster's version is not shown deprecated")
	}
	h.emulator.SetVersionDeprecated("1.33", false)
	h.emulator.RemoveVersion("1.34")
	h.emulator.AddVersion(kakaocloud.KubernetesVersion{MinorVersion: "1.37", PatchVersion: "1.37.0", EOL: "2028-04-30T00:00:00Z"})
	h.emulator.SetVersionDeprecated("1.99", true) // unknown: ignored
	var minors []string
	for _, v := range h.versions() {
		minors = append(minors, v.MinorVersion)
		if v.IsDeprecated != (v.MinorVersion == "1.36") {
			t.Errorf("version %+v", v)
		}
	}
	if !slices.Equal(minors, []string{"1.33", "1.35", "1.36", "1.37"}) {
		t.Errorf("versions %v", minors)
	}
	// The cluster is upgradable once its next version is offered.
	h.emulator.AddVersion(kakaocloud.KubernetesVersion{MinorVersion: "1.36", PatchVersion: "1.36.5", NextVersion: "1.37"})
	if got := h.cluster(); !got.IsUpgradable || got.Version.NextVersion != "1.37" || got.Version.IsDeprecated {
		t.Errorf("cluster %+v", got)
	}
	h.emulator.AddVersion(kakaocloud.KubernetesVersion{MinorVersion: "1.100"})
	if got := h.versions(); got[len(got)-1].MinorVersion != "1.100" {
		t.Errorf("1.100 sorted before %s", got[len(got)-1].MinorVersion)
	}
}

func TestFailNodeImageLookups(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.FailNodeImageLookups(true)
	wantError(t, h.api(http.MethodGet, nodeImagesPath+"?k8s_version=1.36", nil), http.StatusInternalServerError, "InternalServerError", "node image lookup failed")
	h.apiOK(http.MethodGet, versionsPath, nil, http.StatusOK, nil)
	h.emulator.FailNodeImageLookups(false)
	h.apiOK(http.MethodGet, nodeImagesPath, nil, http.StatusOK, nil)
}
