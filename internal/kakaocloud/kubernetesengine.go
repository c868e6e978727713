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

package kakaocloud

import (
	"context"
	"net/url"
	"strconv"
)

// GetCluster returns a Kubernetes Engine cluster by name: its control-plane version,
// endpoint and phase.
func (c *Client) GetCluster(ctx context.Context, name string) (Cluster, error) {
	return getOne(ctx, c, call{service: ServiceKubernetesEngine, operation: "GetCluster", path: PathClusters + "/" + url.PathEscape(name)},
		func(r *GetClusterResponse) Cluster { return r.Cluster })
}

// ListClusters returns the project's clusters.
func (c *Client) ListClusters(ctx context.Context) ([]Cluster, error) {
	return getOne(ctx, c, call{service: ServiceKubernetesEngine, operation: "ListClusters", path: PathClusters},
		func(r *ListClustersResponse) []Cluster { return r.Clusters })
}

// ListVersions returns the Kubernetes versions Kubernetes Engine knows, with their
// deprecation and end of support.
func (c *Client) ListVersions(ctx context.Context) ([]KubernetesVersion, error) {
	return getOne(ctx, c, call{service: ServiceKubernetesEngine, operation: "ListVersions", path: PathVersions},
		func(r *ListVersionsResponse) []KubernetesVersion { return r.Versions })
}

// NodeImageFilter narrows ListNodeImages.
type NodeImageFilter struct {
	// KubernetesVersion is a minor version such as "1.36".
	KubernetesVersion string
	// InstanceType is vm or bm.
	InstanceType string
	// GPU selects GPU images (true), others (false), or both (nil).
	GPU      *bool
	OSDistro string
}

// ListNodeImages returns the worker images Kubernetes Engine offers.
func (c *Client) ListNodeImages(ctx context.Context, f NodeImageFilter) ([]NodeImage, error) {
	gpu := ""
	if f.GPU != nil {
		gpu = strconv.FormatBool(*f.GPU)
	}
	return getOne(ctx, c, call{
		service: ServiceKubernetesEngine, operation: "ListNodeImages", path: PathNodeImages,
		query: filter("k8s_version", f.KubernetesVersion, "instance_type", f.InstanceType, "is_gpu_type", gpu, "os_distro", f.OSDistro),
	}, func(r *ListNodeImagesResponse) []NodeImage { return r.Images })
}
