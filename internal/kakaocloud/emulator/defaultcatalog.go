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
	"fmt"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Zones of the built-in catalog, kr-central-2's.
const (
	ZoneA = "kr-central-2-a"
	ZoneB = "kr-central-2-b"
	ZoneC = "kr-central-2-c"
)

// Names of the built-in catalog's network and cluster.
const (
	DefaultClusterName       = "karpenter-demo"
	DefaultVPCName           = "karpenter-vpc"
	DefaultSecurityGroupName = "karpenter-workers"
)

// DefaultCatalog returns the built-in catalog, a new value on every call:
//   - flavors m2a (4 GiB per vCPU), c2a (2 GiB) and r2a (8 GiB) in sizes large (2 vCPUs)
//     to 16xlarge (64), 12xlarge and 16xlarge only in zones -a and -b; GPU flavors gn1i
//     (NVIDIA T4) xlarge, 2xlarge and 8xlarge, only in zone -a;
//   - Kubernetes versions 1.33 (deprecated) to 1.36, node images (Ubuntu 24.04 x86_64,
//     aarch64 and GPU) for 1.34 to 1.36, none for 1.33; the Image service lists these plus a
//     plain Ubuntu image;
//   - subnets karpenter-subnet-a|b|c in VPC karpenter-vpc, security groups karpenter-workers
//     and default, and the cluster karpenter-demo at 1.36.4 with its endpoint on
//     127.0.0.1:6443.
func DefaultCatalog() *Catalog {
	c := &Catalog{
		Flavors:        defaultFlavors(),
		Versions:       defaultVersions(),
		Subnets:        defaultSubnets(),
		SecurityGroups: defaultSecurityGroups(),
		Cluster: ClusterSpec{
			Name:         DefaultClusterName,
			Description:  "Cluster served by the KakaoCloud emulator",
			MinorVersion: "1.36",
			PatchVersion: "1.36.4",
			Phase:        kakaocloud.ClusterPhaseProvisioned,
			Endpoint:     kakaocloud.Endpoint{Host: "127.0.0.1", Port: 6443},
			Network:      kakaocloud.ClusterNetwork{CNI: "cilium", PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12"},
			CreatedAt:    time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC),
		},
	}
	c.Images, c.NodeImages = defaultImages()
	c.fillDefaults()
	return c
}

func defaultFlavors() []kakaocloud.Flavor {
	allZones := []string{ZoneA, ZoneB, ZoneC}
	families := []struct {
		family, group string
		gibPerVCPU    int64
	}{
		{"m2a", "general-purpose", 4},
		{"c2a", "compute-optimized", 2},
		{"r2a", "memory-optimized", 8},
	}
	sizes := []struct {
		size  string
		vcpus int
		zones []string
	}{
		{"large", 2, allZones},
		{"xlarge", 4, allZones},
		{"2xlarge", 8, allZones},
		{"4xlarge", 16, allZones},
		{"8xlarge", 32, allZones},
		// The largest hosts are not in every zone, so zone-aware launch choices matter.
		{"12xlarge", 48, []string{ZoneA, ZoneB}},
		{"16xlarge", 64, []string{ZoneA, ZoneB}},
	}
	var flavors []kakaocloud.Flavor
	for _, family := range families {
		for _, size := range sizes {
			flavors = append(flavors, kakaocloud.Flavor{
				Name:           family.family + "." + size.size,
				VCPUs:          size.vcpus,
				MemoryMB:       int64(size.vcpus) * family.gibPerVCPU * 1024,
				Architecture:   "x86_64",
				Manufacturer:   "AMD",
				Group:          family.group,
				InstanceType:   "vm",
				InstanceFamily: family.family,
				InstanceSize:   size.size,
				Zones:          size.zones,
			})
		}
	}
	gpuSizes := []struct {
		size        string
		vcpus, gpus int
	}{
		{"xlarge", 4, 1},
		{"2xlarge", 8, 1},
		{"8xlarge", 32, 4},
	}
	for _, size := range gpuSizes {
		flavors = append(flavors, kakaocloud.Flavor{
			Name:           "gn1i." + size.size,
			VCPUs:          size.vcpus,
			MemoryMB:       int64(size.vcpus) * 4 * 1024,
			Architecture:   "x86_64",
			Manufacturer:   "Intel",
			Group:          "gpu",
			InstanceType:   "gpu",
			InstanceFamily: "gn1i",
			InstanceSize:   size.size,
			Zones:          []string{ZoneA},
			HWType:         "GPU",
			HWName:         "t4",
			HWCount:        size.gpus,
		})
	}
	return flavors
}

func defaultVersions() []kakaocloud.KubernetesVersion {
	return []kakaocloud.KubernetesVersion{
		{MinorVersion: "1.33", PatchVersion: "1.33.7", IsDeprecated: true, EOL: "2026-12-31T00:00:00Z", NextVersion: "1.34"},
		{MinorVersion: "1.34", PatchVersion: "1.34.5", EOL: "2027-04-30T00:00:00Z", NextVersion: "1.35"},
		{MinorVersion: "1.35", PatchVersion: "1.35.3", EOL: "2027-08-31T00:00:00Z", NextVersion: "1.36"},
		{MinorVersion: "1.36", PatchVersion: "1.36.4", EOL: "2027-12-31T00:00:00Z"},
	}
}

// defaultImages returns the Image service's images and Kubernetes Engine's node images. Every
// node image is also an Image-service image with the same ID, as a VM boots from it.
func defaultImages() ([]kakaocloud.Image, []kakaocloud.NodeImage) {
	created := time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)
	images := []kakaocloud.Image{{
		Name:         "ubuntu-24.04-x86_64",
		Status:       "active",
		Visibility:   "basic",
		MinDisk:      10,
		InstanceType: "vm",
		OSInfo:       kakaocloud.OSInfo{Type: "linux", Distro: "ubuntu", Architecture: "x86_64", AdminUser: "ubuntu"},
		CreatedAt:    created,
	}}
	var nodeImages []kakaocloud.NodeImage
	variants := []struct {
		suffix, architecture string
		gpu                  bool
	}{
		{"x86_64", "x86_64", false},
		{"aarch64", "aarch64", false},
		{"gpu-x86_64", "x86_64", true},
	}
	for _, minor := range []string{"1.34", "1.35", "1.36"} {
		for _, variant := range variants {
			name := fmt.Sprintf("ubuntu-24.04-k8s-%s-%s", minor, variant.suffix)
			nodeImages = append(nodeImages, kakaocloud.NodeImage{
				Name:          name,
				K8sVersion:    minor,
				OSDistro:      "ubuntu",
				OSType:        "linux",
				OSVersion:     "24.04",
				KernelVersion: "6.8.0-60-generic",
				Architecture:  variant.architecture,
				InstanceType:  "vm",
				IsGPUType:     variant.gpu,
			})
			// Later images are newer, so created_at order is catalog order.
			created = created.Add(24 * time.Hour)
			images = append(images, kakaocloud.Image{
				Name:         name,
				Status:       "active",
				Visibility:   "basic",
				MinDisk:      30,
				InstanceType: "vm",
				OSInfo:       kakaocloud.OSInfo{Type: "linux", Distro: "ubuntu", Architecture: variant.architecture, AdminUser: "ubuntu"},
				CreatedAt:    created,
			})
		}
	}
	return images, nodeImages
}

func defaultSubnets() []kakaocloud.Subnet {
	subnets := []struct{ name, zone, cidr string }{
		{"karpenter-subnet-a", ZoneA, "10.0.0.0/20"},
		{"karpenter-subnet-b", ZoneB, "10.0.16.0/20"},
		{"karpenter-subnet-c", ZoneC, "10.0.32.0/20"},
	}
	result := make([]kakaocloud.Subnet, 0, len(subnets))
	for _, s := range subnets {
		result = append(result, kakaocloud.Subnet{
			Name:               s.name,
			AvailabilityZone:   s.zone,
			CIDRBlock:          s.cidr,
			VPCName:            DefaultVPCName,
			ProvisioningStatus: "ACTIVE",
			OperatingStatus:    "ONLINE",
		})
	}
	return result
}

func defaultSecurityGroups() []kakaocloud.SecurityGroup {
	return []kakaocloud.SecurityGroup{
		{Name: DefaultSecurityGroupName, Description: "Worker nodes of " + DefaultClusterName},
		{Name: "default", Description: "Default security group"},
	}
}
