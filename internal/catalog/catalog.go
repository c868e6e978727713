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

package catalog

import (
	"context"
	"time"

	"k8s.io/utils/clock"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Default lifetimes of cached items. The cluster changes during upgrades, so it is read more
// often than the catalog of flavors, which changes rarely.
const (
	DefaultCatalogTTL = 5 * time.Minute
	DefaultClusterTTL = 30 * time.Second
)

// Options configures a Catalog.
type Options struct {
	// ClusterName is the Kubernetes Engine cluster the controller serves.
	ClusterName string
	CatalogTTL  time.Duration
	ClusterTTL  time.Duration
	// Clock tells the age of cached reads; the real clock when nil.
	Clock clock.PassiveClock
}

// Catalog caches KakaoCloud reads.
type Catalog struct {
	client *kakaocloud.Client
	opts   Options

	flavors        entry[[]kakaocloud.Flavor]
	versions       entry[[]kakaocloud.KubernetesVersion]
	cluster        entry[kakaocloud.Cluster]
	nodeImages     keyed[[]kakaocloud.NodeImage]
	subnets        keyed[[]kakaocloud.Subnet]
	securityGroups keyed[[]kakaocloud.SecurityGroup]
}

// New returns a Catalog reading through client.
func New(client *kakaocloud.Client, opts Options) *Catalog {
	if opts.CatalogTTL == 0 {
		opts.CatalogTTL = DefaultCatalogTTL
	}
	if opts.ClusterTTL == 0 {
		opts.ClusterTTL = DefaultClusterTTL
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Catalog{client: client, opts: opts}
}

// ClusterName is the name of the cluster the catalog describes.
func (c *Catalog) ClusterName() string { return c.opts.ClusterName }

// Flavors returns every instance type.
func (c *Catalog) Flavors(ctx context.Context) ([]kakaocloud.Flavor, error) {
	return c.flavors.get(ctx, c.opts.CatalogTTL, c.opts.Clock.Now, func(ctx context.Context) ([]kakaocloud.Flavor, error) {
		return c.client.ListFlavors(ctx, kakaocloud.FlavorFilter{})
	})
}

// Versions returns the Kubernetes versions Kubernetes Engine knows.
func (c *Catalog) Versions(ctx context.Context) ([]kakaocloud.KubernetesVersion, error) {
	return c.versions.get(ctx, c.opts.CatalogTTL, c.opts.Clock.Now, c.client.ListVersions)
}

// Cluster returns the Kubernetes Engine cluster: control-plane version, phase, endpoint.
func (c *Catalog) Cluster(ctx context.Context) (kakaocloud.Cluster, error) {
	return c.cluster.get(ctx, c.opts.ClusterTTL, c.opts.Clock.Now, func(ctx context.Context) (kakaocloud.Cluster, error) {
		return c.client.GetCluster(ctx, c.opts.ClusterName)
	})
}

// NodeImages returns the VM worker images Kubernetes Engine offers for a minor version.
func (c *Catalog) NodeImages(ctx context.Context, minorVersion string) ([]kakaocloud.NodeImage, error) {
	return lookup(ctx, c, &c.nodeImages, minorVersion,
		kakaocloud.NodeImageFilter{KubernetesVersion: minorVersion, InstanceType: "vm"}, c.client.ListNodeImages)
}

// SubnetsByID returns the subnet with this id (none when it does not exist).
func (c *Catalog) SubnetsByID(ctx context.Context, id string) ([]kakaocloud.Subnet, error) {
	return lookup(ctx, c, &c.subnets, "id="+id, kakaocloud.SubnetFilter{ID: id}, c.client.ListSubnets)
}

// SubnetsByName returns the subnets with this name (names need not be unique). KakaoCloud
// does not document whether its name filter is exact, so the names are compared here: the
// selector name: private must not pick private-b.
func (c *Catalog) SubnetsByName(ctx context.Context, name string) ([]kakaocloud.Subnet, error) {
	subnets, err := lookup(ctx, c, &c.subnets, "name="+name, kakaocloud.SubnetFilter{Name: name}, c.client.ListSubnets)
	return kakaocloud.Named(subnets, name, func(s kakaocloud.Subnet) string { return s.Name }), err
}

// SecurityGroupsByID returns the security group with this id (none when it does not exist).
func (c *Catalog) SecurityGroupsByID(ctx context.Context, id string) ([]kakaocloud.SecurityGroup, error) {
	return lookup(ctx, c, &c.securityGroups, "id="+id, kakaocloud.SecurityGroupFilter{ID: id}, c.client.ListSecurityGroups)
}

// SecurityGroupsByName returns the security groups with this name, compared here as
// SubnetsByName compares.
func (c *Catalog) SecurityGroupsByName(ctx context.Context, name string) ([]kakaocloud.SecurityGroup, error) {
	groups, err := lookup(ctx, c, &c.securityGroups, "name="+name, kakaocloud.SecurityGroupFilter{Name: name}, c.client.ListSecurityGroups)
	return kakaocloud.Named(groups, name, func(sg kakaocloud.SecurityGroup) string { return sg.Name }), err
}

// lookup returns the listing cached under key, listed again with filter once it is older than
// the catalog's TTL.
func lookup[F, T any](ctx context.Context, c *Catalog, cache *keyed[[]T], key string, filter F, list func(context.Context, F) ([]T, error)) ([]T, error) {
	return cache.entry(key).get(ctx, c.opts.CatalogTTL, c.opts.Clock.Now, func(ctx context.Context) ([]T, error) {
		return list(ctx, filter)
	})
}

// CachedVersions returns the last versions read, however old: the KCNodeClass webhook uses
// them when Kubernetes Engine cannot be reached.
func (c *Catalog) CachedVersions() ([]kakaocloud.KubernetesVersion, bool) { return c.versions.stale() }

// CachedCluster returns the last cluster read, however old.
func (c *Catalog) CachedCluster() (kakaocloud.Cluster, bool) { return c.cluster.stale() }

// InvalidateCluster makes the next Cluster and Versions reads go to Kubernetes Engine, e.g.
// when a KCNodeClass is reconciled on request.
func (c *Catalog) InvalidateCluster() {
	c.cluster.invalidate()
	c.versions.invalidate()
	c.nodeImages.invalidate()
}
