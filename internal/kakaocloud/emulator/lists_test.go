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
	"testing"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

func TestListFlavors(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	tests := []struct {
		query     string
		wantTotal int
	}{
		{"", 24},
		{"?name=m2a.large", 1},
		{"?name=m2a", 0}, // exact, not substring
		{"?instance_family=gn1i", 3},
		{"?instance_type=gpu", 3},
		{"?instance_type=vm", 21},
		{"?vcpus=64", 3},
		{"?vcpus=4&instance_family=c2a", 1},
		{"?vcpus=4&name=m2a.large", 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var list kakaocloud.ListFlavorsResponse
			h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathFlavors+tt.query, nil, http.StatusOK, &list)
			if list.Pagination.Total != tt.wantTotal || len(list.Flavors) != min(tt.wantTotal, 20) {
				t.Errorf("total %d with %d flavors, want %d", list.Pagination.Total, len(list.Flavors), tt.wantTotal)
			}
		})
	}
	wantError(t, h.api(http.MethodGet, "/bcs"+kakaocloud.PathFlavors+"?vcpus=two", nil), http.StatusBadRequest, "BadRequest", `vcpus "two"`)
	// The official SDK's enum of instance types.
	wantError(t, h.api(http.MethodGet, "/bcs"+kakaocloud.PathFlavors+"?instance_type=VM", nil), http.StatusBadRequest, "BadRequest", `instance_type "VM" must be one of vm, bm, gpu`)
}

func TestGetFlavor(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	var got kakaocloud.GetFlavorResponse
	h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathFlavors+"/"+h.flavorID("gn1i.8xlarge"), nil, http.StatusOK, &got)
	if got.Flavor.Name != "gn1i.8xlarge" || got.Flavor.HWCount != 4 {
		t.Errorf("flavor %+v", got.Flavor)
	}
	wantError(t, h.api(http.MethodGet, "/bcs"+kakaocloud.PathFlavors+"/nope", nil), http.StatusNotFound, "NotFound", `flavor "nope" not found`)
}

func TestImages(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	nodeImageID := h.imageID(nodeImage136)
	tests := []struct {
		query     string
		wantTotal int
	}{
		{"", 10},
		{"?name=ubuntu-24.04-x86_64", 1},
		{"?name=ubuntu", 0},
		{"?id=" + nodeImageID, 1},
		{"?status=active", 10},
		{"?status=deleted", 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var list kakaocloud.ListImagesResponse
			h.apiOK(http.MethodGet, "/image"+kakaocloud.PathImages+tt.query, nil, http.StatusOK, &list)
			if list.Pagination.Total != tt.wantTotal || len(list.Images) != tt.wantTotal {
				t.Errorf("total %d with %d images, want %d", list.Pagination.Total, len(list.Images), tt.wantTotal)
			}
		})
	}
	var got kakaocloud.GetImageResponse
	h.apiOK(http.MethodGet, "/image"+kakaocloud.PathImages+"/"+nodeImageID, nil, http.StatusOK, &got)
	if got.Image.Name != nodeImage136 || got.Image.OSInfo.Architecture != "x86_64" || got.Image.Status != "active" {
		t.Errorf("image %+v", got.Image)
	}
	wantError(t, h.api(http.MethodGet, "/image"+kakaocloud.PathImages+"/nope", nil), http.StatusNotFound, "NotFound", `image "nope" not found`)
}

func TestSubnets(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	subnetA, _ := h.catalog.SubnetByName("karpenter-subnet-a")
	tests := []struct {
		query     string
		wantNames []string
	}{
		{"?sort_keys=name&sort_dirs=asc", []string{"karpenter-subnet-a", "karpenter-subnet-b", "karpenter-subnet-c"}},
		{"?name=karpenter-subnet-b", []string{"karpenter-subnet-b"}},
		// The name filter is read as "contains" (subnetListing).
		{"?name=karpenter-subnet&sort_keys=name&sort_dirs=asc", []string{"karpenter-subnet-a", "karpenter-subnet-b", "karpenter-subnet-c"}},
		{"?name=nothing-like-it", nil},
		{"?availability_zone=" + emulator.ZoneC, []string{"karpenter-subnet-c"}},
		{"?id=" + subnetA.ID, []string{"karpenter-subnet-a"}},
		{"?vpc_id=" + subnetA.VPCID + "&sort_keys=name&sort_dirs=asc", []string{"karpenter-subnet-a", "karpenter-subnet-b", "karpenter-subnet-c"}},
		{"?vpc_id=other", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var list kakaocloud.ListSubnetsResponse
			h.apiOK(http.MethodGet, "/vpc"+kakaocloud.PathSubnets+tt.query, nil, http.StatusOK, &list)
			var names []string
			for _, s := range list.Subnets {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tt.wantNames) || list.Pagination.Total != len(tt.wantNames) {
				t.Errorf("subnets %v (total %d), want %v", names, list.Pagination.Total, tt.wantNames)
			}
		})
	}
	var got kakaocloud.GetSubnetResponse
	h.apiOK(http.MethodGet, "/vpc"+kakaocloud.PathSubnets+"/"+subnetA.ID, nil, http.StatusOK, &got)
	if got.Subnet != subnetA {
		t.Errorf("subnet %+v, want %+v", got.Subnet, subnetA)
	}
	wantError(t, h.api(http.MethodGet, "/vpc"+kakaocloud.PathSubnets+"/nope", nil), http.StatusNotFound, "NotFound", `subnet "nope" not found`)
}

func TestSecurityGroups(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	workers, _ := h.catalog.SecurityGroupByName(emulator.DefaultSecurityGroupName)
	tests := []struct {
		query     string
		wantNames []string
	}{
		{"?sort_keys=name&sort_dirs=asc", []string{"default", "karpenter-workers"}},
		{"?name=karpenter-workers", []string{"karpenter-workers"}},
		{"?name=karpenter", []string{"karpenter-workers"}},
		{"?name=nothing-like-it", nil},
		{"?id=" + workers.ID, []string{"karpenter-workers"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var list kakaocloud.ListSecurityGroupsResponse
			h.apiOK(http.MethodGet, "/network"+kakaocloud.PathSecurityGroups+tt.query, nil, http.StatusOK, &list)
			var names []string
			for _, sg := range list.SecurityGroups {
				names = append(names, sg.Name)
			}
			if !slices.Equal(names, tt.wantNames) {
				t.Errorf("security groups %v, want %v", names, tt.wantNames)
			}
		})
	}
	var got kakaocloud.GetSecurityGroupResponse
	h.apiOK(http.MethodGet, "/network"+kakaocloud.PathSecurityGroups+"/"+workers.ID, nil, http.StatusOK, &got)
	if got.SecurityGroup.Name != workers.Name || got.SecurityGroup.ID != workers.ID {
		t.Errorf("security group %+v", got.SecurityGroup)
	}
	wantError(t, h.api(http.MethodGet, "/network"+kakaocloud.PathSecurityGroups+"/nope", nil), http.StatusNotFound, "NotFound", `security group "nope" not found`)
}
