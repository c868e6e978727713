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

package emulator

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// listClusters serves GET /api/v1/clusters: the catalog's one cluster.
func (e *Emulator) listClusters(_ http.ResponseWriter, _ *http.Request) (int, any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return http.StatusOK, kakaocloud.ListClustersResponse{Clusters: []kakaocloud.Cluster{e.clusterLocked()}}, nil
}

// getCluster serves GET /api/v1/clusters/{name}; Kubernetes Engine addresses clusters by
// name.
func (e *Emulator) getCluster(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	name := r.PathValue("name")
	e.mu.Lock()
	defer e.mu.Unlock()
	if name != e.catalog.Cluster.Name {
		return 0, nil, notFound("cluster %q not found", name)
	}
	return http.StatusOK, kakaocloud.GetClusterResponse{Cluster: e.clusterLocked()}, nil
}

// clusterLocked builds the served cluster: its version block carries the deprecation, EOL
// and next version of its minor version as /versions lists them now, and it is upgradable
// when that next version is offered.
func (e *Emulator) clusterLocked() kakaocloud.Cluster {
	spec := e.catalog.Cluster
	version := kakaocloud.KubernetesVersion{MinorVersion: spec.MinorVersion, PatchVersion: spec.PatchVersion}
	if offered, ok := e.catalog.version(spec.MinorVersion); ok {
		version.IsDeprecated = offered.IsDeprecated
		version.EOL = offered.EOL
		version.NextVersion = offered.NextVersion
	}
	_, nextOffered := e.catalog.version(version.NextVersion)
	var subnets []kakaocloud.ClusterSubnet
	for _, s := range e.catalog.Subnets {
		if s.VPCID == spec.VPCID {
			subnets = append(subnets, kakaocloud.ClusterSubnet{ID: s.ID, AvailabilityZone: s.AvailabilityZone, CIDRBlock: s.CIDRBlock})
		}
	}
	return kakaocloud.Cluster{
		ID:                   spec.ID,
		Name:                 spec.Name,
		Description:          spec.Description,
		ControlPlaneEndpoint: spec.Endpoint,
		Network:              spec.Network,
		Version:              version,
		Status:               kakaocloud.ClusterStatus{Phase: spec.Phase},
		VPCInfo:              kakaocloud.ClusterVPC{ID: spec.VPCID, Subnets: subnets},
		IsUpgradable:         version.NextVersion != "" && nextOffered,
		CreatedAt:            spec.CreatedAt,
	}
}

// listVersions serves GET /api/v1/versions.
func (e *Emulator) listVersions(_ http.ResponseWriter, _ *http.Request) (int, any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	versions := append([]kakaocloud.KubernetesVersion{}, e.catalog.Versions...)
	return http.StatusOK, kakaocloud.ListVersionsResponse{Versions: versions}, nil
}

// listNodeImages serves Kubernetes Engine's GET /api/v1/images with the optional filters
// k8s_version (a minor version matches its patch versions too), instance_type, is_gpu_type
// and os_distro.
func (e *Emulator) listNodeImages(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	e.mu.Lock()
	failing := e.nodeImagesFailing
	e.mu.Unlock()
	if failing {
		return 0, nil, newError(http.StatusInternalServerError, "node image lookup failed (FailNodeImageLookups is on)")
	}
	query := r.URL.Query()
	var gpu *bool
	if value := query.Get("is_gpu_type"); value != "" {
		parsed, err := strconv.ParseBool(value)
		if err != nil {
			return 0, nil, badRequest("is_gpu_type %q must be true or false", value)
		}
		gpu = &parsed
	}
	if value := query.Get("instance_type"); value != "" && !slices.Contains([]string{"vm", "bm"}, value) {
		return 0, nil, badRequest("instance_type %q must be vm or bm", value)
	}
	k8sVersion := query.Get("k8s_version")
	osDistro := query.Get("os_distro")
	images := filterItems(e.catalog.NodeImages, func(img kakaocloud.NodeImage) bool {
		return (k8sVersion == "" || img.K8sVersion == k8sVersion || strings.HasPrefix(img.K8sVersion, k8sVersion+".")) &&
			queryMatches(query, "instance_type", img.InstanceType) &&
			(gpu == nil || img.IsGPUType == *gpu) &&
			(osDistro == "" || strings.EqualFold(img.OSDistro, osDistro))
	})
	return http.StatusOK, kakaocloud.ListNodeImagesResponse{Images: append([]kakaocloud.NodeImage{}, images...)}, nil
}
