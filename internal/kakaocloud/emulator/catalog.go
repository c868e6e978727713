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
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Catalog is what the emulated cloud offers. Its entries are the wire types, so a YAML
// catalog uses the wire field names; IDs left empty are derived from names (see
// fillDefaults), so they are stable across runs.
type Catalog struct {
	Flavors []kakaocloud.Flavor `json:"flavors"`
	// Images are the Image service's images.
	Images []kakaocloud.Image `json:"images"`
	// NodeImages are the Kubernetes Engine worker images. Their IDs are valid image_ids for
	// a VM even when Images does not list them.
	NodeImages     []kakaocloud.NodeImage         `json:"node_images"`
	Subnets        []kakaocloud.Subnet            `json:"subnets"`
	SecurityGroups []kakaocloud.SecurityGroup     `json:"security_groups"`
	Versions       []kakaocloud.KubernetesVersion `json:"versions"`
	Cluster        ClusterSpec                    `json:"cluster"`
}

// ClusterSpec is the one Kubernetes Engine cluster. The served cluster adds what is derived:
// the version's deprecation, EOL and next version from Versions, whether it is upgradable,
// and the subnets of its VPC.
type ClusterSpec struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// MinorVersion and PatchVersion are the control plane's, e.g. "1.36" and "1.36.4"; an
	// empty patch version is taken from Versions.
	MinorVersion string `json:"minor_version"`
	PatchVersion string `json:"patch_version,omitempty"`
	// Phase is one of the kakaocloud.ClusterPhase* values; empty means Provisioned.
	Phase    string                    `json:"phase,omitempty"`
	Endpoint kakaocloud.Endpoint       `json:"endpoint"`
	Network  kakaocloud.ClusterNetwork `json:"network"`
	// VPCID is the cluster's VPC; empty means the VPC of the first subnet.
	VPCID     string    `json:"vpc_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// LoadCatalog reads a YAML (or JSON) catalog. Unknown fields are errors, so that a typo
// does not silently drop an entry's setting.
func LoadCatalog(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading catalog: %w", err)
	}
	var catalog Catalog
	if err := yaml.UnmarshalStrict(data, &catalog); err != nil {
		return nil, fmt.Errorf("parsing catalog %s: %w", path, err)
	}
	catalog.fillDefaults()
	if err := catalog.Validate(); err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	return &catalog, nil
}

// FlavorByName returns the flavor with that name.
func (c *Catalog) FlavorByName(name string) (kakaocloud.Flavor, bool) {
	return findBy(c.Flavors, name, func(f kakaocloud.Flavor) string { return f.Name })
}

// ImageByName returns the Image-service image with that name.
func (c *Catalog) ImageByName(name string) (kakaocloud.Image, bool) {
	return findBy(c.Images, name, func(i kakaocloud.Image) string { return i.Name })
}

// NodeImageByName returns the Kubernetes Engine node image with that name.
func (c *Catalog) NodeImageByName(name string) (kakaocloud.NodeImage, bool) {
	return findBy(c.NodeImages, name, func(i kakaocloud.NodeImage) string { return i.Name })
}

// SubnetByName returns the subnet with that name.
func (c *Catalog) SubnetByName(name string) (kakaocloud.Subnet, bool) {
	return findBy(c.Subnets, name, func(s kakaocloud.Subnet) string { return s.Name })
}

// SecurityGroupByName returns the security group with that name.
func (c *Catalog) SecurityGroupByName(name string) (kakaocloud.SecurityGroup, bool) {
	return findBy(c.SecurityGroups, name, func(sg kakaocloud.SecurityGroup) string { return sg.Name })
}

// findBy returns the first item whose key (a name, an ID) is key.
func findBy[T any](items []T, key string, keyOf func(T) string) (T, bool) {
	for _, item := range items {
		if keyOf(item) == key {
			return item, true
		}
	}
	var zero T
	return zero, false
}

// version returns the entry of Versions for a minor version.
func (c *Catalog) version(minor string) (kakaocloud.KubernetesVersion, bool) {
	return findBy(c.Versions, minor, func(v kakaocloud.KubernetesVersion) string { return v.MinorVersion })
}

// clone deep-copies the catalog, so the emulator's admin changes never reach the caller's
// value. A JSON round trip stays a deep copy however the wire types grow.
func (c *Catalog) clone() *Catalog {
	data, err := json.Marshal(c)
	if err != nil {
		panic("emulator: catalog does not marshal: " + err.Error())
	}
	var copied Catalog
	if err := json.Unmarshal(data, &copied); err != nil {
		panic("emulator: catalog does not unmarshal: " + err.Error())
	}
	return &copied
}

// fillDefaults completes entries a YAML author left short: IDs derived from names, the
// family and size of a flavor from its "family.size" name, and the usual statuses.
func (c *Catalog) fillDefaults() {
	for i := range c.Flavors {
		f := &c.Flavors[i]
		if f.ID == "" {
			f.ID = stableHexID("flavor", f.Name)
		}
		if family, size, ok := strings.Cut(f.Name, "."); ok {
			f.InstanceFamily = cmp.Or(f.InstanceFamily, family)
			f.InstanceSize = cmp.Or(f.InstanceSize, size)
		}
		f.Architecture = cmp.Or(f.Architecture, "x86_64")
		f.InstanceType = cmp.Or(f.InstanceType, "vm")
	}
	for i := range c.Images {
		img := &c.Images[i]
		img.ID = cmp.Or(img.ID, stableUUID("image", img.Name))
		img.Status = cmp.Or(img.Status, "active")
	}
	for i := range c.NodeImages {
		img := &c.NodeImages[i]
		// The same kind as Image-service images: a node image listed by both services gets
		// one ID.
		img.ID = cmp.Or(img.ID, stableUUID("image", img.Name))
		img.InstanceType = cmp.Or(img.InstanceType, "vm")
	}
	for i := range c.Subnets {
		s := &c.Subnets[i]
		s.ID = cmp.Or(s.ID, stableUUID("subnet", s.Name))
		if s.VPCID == "" && s.VPCName != "" {
			s.VPCID = stableUUID("vpc", s.VPCName)
		}
		s.ProvisioningStatus = cmp.Or(s.ProvisioningStatus, "ACTIVE")
	}
	for i := range c.SecurityGroups {
		sg := &c.SecurityGroups[i]
		sg.ID = cmp.Or(sg.ID, stableUUID("security-group", sg.Name))
	}
	cluster := &c.Cluster
	cluster.ID = cmp.Or(cluster.ID, stableUUID("cluster", cluster.Name))
	cluster.Phase = cmp.Or(cluster.Phase, kakaocloud.ClusterPhaseProvisioned)
	if cluster.VPCID == "" && len(c.Subnets) > 0 {
		cluster.VPCID = c.Subnets[0].VPCID
	}
	if v, ok := c.version(cluster.MinorVersion); ok && cluster.PatchVersion == "" {
		cluster.PatchVersion = v.PatchVersion
	}
}

// Validate reports every entry the emulator cannot serve: missing names, duplicates, flavors
// without zones or sizes, subnets without a zone or with a CIDR that is not an IPv4 prefix,
// and a cluster without a name or version.
func (c *Catalog) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	unique := newUniqueness(check)
	for i, f := range c.Flavors {
		check(f.Name != "", "flavors[%d]: name is required", i)
		unique("flavor name", f.Name)
		unique("flavor id", f.ID)
		check(f.VCPUs > 0 && f.MemoryMB > 0, "flavor %q: vcpus and memory_mb must be positive", f.Name)
		check(len(f.Zones) > 0, "flavor %q: availability_zone must list at least one zone", f.Name)
	}
	for i, img := range c.Images {
		check(img.Name != "", "images[%d]: name is required", i)
		unique("image id", img.ID)
	}
	for i, img := range c.NodeImages {
		check(img.Name != "", "node_images[%d]: name is required", i)
		check(img.K8sVersion != "", "node image %q: k8s_version is required", img.Name)
		unique("node image id", img.ID)
	}
	for i, s := range c.Subnets {
		check(s.Name != "", "subnets[%d]: name is required", i)
		unique("subnet id", s.ID)
		check(s.AvailabilityZone != "", "subnet %q: availability_zone is required", s.Name)
		prefix, err := netip.ParsePrefix(s.CIDRBlock)
		check(err == nil && prefix.Addr().Is4() && prefix.Bits() <= 29, "subnet %q: cidr_block %q is not an IPv4 prefix of /29 or wider", s.Name, s.CIDRBlock)
	}
	for i, sg := range c.SecurityGroups {
		check(sg.Name != "", "security_groups[%d]: name is required", i)
		unique("security group name", sg.Name)
	}
	for i, v := range c.Versions {
		check(v.MinorVersion != "", "versions[%d]: minor_version is required", i)
		unique("version", v.MinorVersion)
	}
	check(c.Cluster.Name != "", "cluster: name is required")
	check(c.Cluster.MinorVersion != "", "cluster: minor_version is required")
	return errors.Join(errs...)
}

// newUniqueness returns a function that reports, through check, a value seen twice for the
// same what.
func newUniqueness(check func(bool, string, ...any)) func(what, value string) {
	seen := map[string]bool{}
	return func(what, value string) {
		key := what + "\x00" + value
		check(!seen[key], "duplicate %s %q", what, value)
		seen[key] = true
	}
}
