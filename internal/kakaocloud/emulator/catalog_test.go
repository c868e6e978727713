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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

var (
	flavorIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)
	uuidPattern     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

func TestDefaultCatalogFlavors(t *testing.T) {
	c := emulator.DefaultCatalog()
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if len(c.Flavors) != 3*7+3 {
		t.Errorf("%d flavors, want 24", len(c.Flavors))
	}
	allZones := []string{emulator.ZoneA, emulator.ZoneB, emulator.ZoneC}
	tests := []struct {
		name            string
		vcpus           int
		memoryMB        int64
		instanceType    string
		zones           []string
		gpus            int
		gpuType, gpuNam string
	}{
		{"m2a.large", 2, 8192, "vm", allZones, 0, "", ""},
		{"c2a.xlarge", 4, 8192, "vm", allZones, 0, "", ""},
		{"r2a.8xlarge", 32, 262144, "vm", allZones, 0, "", ""},
		{"m2a.12xlarge", 48, 196608, "vm", []string{emulator.ZoneA, emulator.ZoneB}, 0, "", ""},
		{"c2a.16xlarge", 64, 131072, "vm", []string{emulator.ZoneA, emulator.ZoneB}, 0, "", ""},
		{"gn1i.xlarge", 4, 16384, "gpu", []string{emulator.ZoneA}, 1, "GPU", "t4"},
		{"gn1i.2xlarge", 8, 32768, "gpu", []string{emulator.ZoneA}, 1, "GPU", "t4"},
		{"gn1i.8xlarge", 32, 131072, "gpu", []string{emulator.ZoneA}, 4, "GPU", "t4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := c.FlavorByName(tt.name)
			if !ok {
				t.Fatal("missing")
			}
			if !flavorIDPattern.MatchString(f.ID) {
				t.Errorf("id %q is not 32 hex digits", f.ID)
			}
			family, size, _ := strings.Cut(tt.name, ".")
			if f.VCPUs != tt.vcpus || f.MemoryMB != tt.memoryMB || f.InstanceType != tt.instanceType ||
				f.InstanceFamily != family || f.InstanceSize != size || f.Architecture != "x86_64" ||
				!slices.Equal(f.Zones, tt.zones) || f.HWCount != tt.gpus || f.HWType != tt.gpuType || f.HWName != tt.gpuNam {
				t.Errorf("flavor %+v", f)
			}
		})
	}
}

func TestDefaultCatalogIsDeterministic(t *testing.T) {
	a, b := emulator.DefaultCatalog(), emulator.DefaultCatalog()
	for i := range a.Flavors {
		if a.Flavors[i].ID != b.Flavors[i].ID {
			t.Errorf("flavor %s: ids %s and %s", a.Flavors[i].Name, a.Flavors[i].ID, b.Flavors[i].ID)
		}
	}
	for i := range a.Subnets {
		if a.Subnets[i].ID != b.Subnets[i].ID || !uuidPattern.MatchString(a.Subnets[i].ID) {
			t.Errorf("subnet %s: ids %s and %s", a.Subnets[i].Name, a.Subnets[i].ID, b.Subnets[i].ID)
		}
	}
	// docs/emulator.md lists these IDs; YAML files and tests may hard-code them.
	pinned := map[string]string{
		"m2a.large":          "12a9c6feb68c05c506cb54bd058fbe12",
		"karpenter-subnet-a": "a05259a9-164e-8547-a277-df3d398133f9",
		nodeImage136:         "e8b4566d-1a99-8438-b24c-c22a90dc5dba",
		"karpenter-workers":  "84a090f5-f089-8159-b5e1-8d32180623a4",
	}
	flavor, _ := a.FlavorByName("m2a.large")
	subnet, _ := a.SubnetByName("karpenter-subnet-a")
	image, _ := a.NodeImageByName(nodeImage136)
	sg, _ := a.SecurityGroupByName("karpenter-workers")
	for name, got := range map[string]string{"m2a.large": flavor.ID, "karpenter-subnet-a": subnet.ID, nodeImage136: image.ID, "karpenter-workers": sg.ID} {
		if got != pinned[name] {
			t.Errorf("%s: id %s, want %s", name, got, pinned[name])
		}
	}
	// DefaultCatalog returns a new value: changing one does not change the next.
	a.Flavors[0].Name = "changed"
	if emulator.DefaultCatalog().Flavors[0].Name == "changed" {
		t.Error("DefaultCatalog shares state between calls")
	}
}

func TestDefaultCatalogImagesNetworkCluster(t *testing.T) {
	c := emulator.DefaultCatalog()
	if len(c.NodeImages) != 9 {
		t.Errorf("%d node images, want 3 for each of 1.34, 1.35, 1.36", len(c.NodeImages))
	}
	for _, nodeImage := range c.NodeImages {
		if nodeImage.K8sVersion == "1.33" {
			t.Errorf("node image %s for 1.33", nodeImage.Name)
		}
		image, ok := c.ImageByName(nodeImage.Name)
		if !ok || image.ID != nodeImage.ID {
			t.Errorf("node image %s (%s) is not an Image-service image with the same ID", nodeImage.Name, nodeImage.ID)
		}
	}
	if _, ok := c.ImageByName("ubuntu-24.04-x86_64"); !ok || len(c.Images) != 10 {
		t.Errorf("images %d; want the 9 node images and a plain Ubuntu image", len(c.Images))
	}
	wantSubnets := map[string][2]string{
		"karpenter-subnet-a": {emulator.ZoneA, "10.0.0.0/20"},
		"karpenter-subnet-b": {emulator.ZoneB, "10.0.16.0/20"},
		"karpenter-subnet-c": {emulator.ZoneC, "10.0.32.0/20"},
	}
	for name, want := range wantSubnets {
		s, ok := c.SubnetByName(name)
		if !ok || s.AvailabilityZone != want[0] || s.CIDRBlock != want[1] || s.VPCName != emulator.DefaultVPCName || s.ProvisioningStatus != "ACTIVE" {
			t.Errorf("subnet %s: %+v", name, s)
		}
	}
	for _, name := range []string{"karpenter-workers", "default"} {
		if _, ok := c.SecurityGroupByName(name); !ok {
			t.Errorf("no security group %s", name)
		}
	}
	var minors []string
	for _, v := range c.Versions {
		minors = append(minors, v.MinorVersion)
		if v.IsDeprecated != (v.MinorVersion == "1.33") || !strings.HasPrefix(v.PatchVersion, v.MinorVersion+".") || v.EOL == "" {
			t.Errorf("version %+v", v)
		}
	}
	if !slices.Equal(minors, []string{"1.33", "1.34", "1.35", "1.36"}) {
		t.Errorf("versions %v", minors)
	}
	cluster := c.Cluster
	if cluster.Name != "karpenter-demo" || cluster.MinorVersion != "1.36" || cluster.PatchVersion != "1.36.4" ||
		cluster.Phase != kakaocloud.ClusterPhaseProvisioned || cluster.Endpoint != (kakaocloud.Endpoint{Host: "127.0.0.1", Port: 6443}) ||
		cluster.VPCID != c.Subnets[0].VPCID {
		t.Errorf("cluster %+v", cluster)
	}
}

const yamlCatalog = `
flavors:
- name: t1.small
  vcpus: 1
  memory_mb: 1024
  availability_zone: [zone-1]
- id: 0123456789abcdef0123456789abcdef
  name: t1.big
  vcpus: 8
  memory_mb: 16384
  instance_type: gpu
  hw_type: GPU
  hw_count: 1
  availability_zone: [zone-1, zone-2]
images:
- name: debian-13
  os_info: {distro: debian, architecture: x86_64}
node_images:
- name: worker-1.35
  k8s_version: 1.35.2
  architecture: x86_64
subnets:
- name: net-1
  availability_zone: zone-1
  cidr_block: 192.168.0.0/24
  vpc_name: lab
security_groups:
- name: nodes
versions:
- minor_version: "1.35"
  patch_version: 1.35.2
cluster:
  name: lab-cluster
  minor_version: "1.35"
  endpoint: {host: 10.1.2.3, port: 6443}
`

func TestLoadCatalog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.yaml")
	if err := os.WriteFile(path, []byte(yamlCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := emulator.LoadCatalog(path)
	if err != nil {
		t.Fatalf("LoadCatalog: %v", err)
	}
	small, _ := c.FlavorByName("t1.small")
	if !flavorIDPattern.MatchString(small.ID) || small.InstanceFamily != "t1" || small.InstanceSize != "small" ||
		small.InstanceType != "vm" || small.Architecture != "x86_64" {
		t.Errorf("defaults not filled: %+v", small)
	}
	if big, _ := c.FlavorByName("t1.big"); big.ID != "0123456789abcdef0123456789abcdef" || big.InstanceType != "gpu" {
		t.Errorf("explicit fields not kept: %+v", big)
	}
	subnet, _ := c.SubnetByName("net-1")
	if !uuidPattern.MatchString(subnet.ID) || !uuidPattern.MatchString(subnet.VPCID) || subnet.ProvisioningStatus != "ACTIVE" {
		t.Errorf("subnet %+v", subnet)
	}
	if c.Cluster.PatchVersion != "1.35.2" || c.Cluster.Phase != kakaocloud.ClusterPhaseProvisioned || c.Cluster.VPCID != subnet.VPCID {
		t.Errorf("cluster %+v", c.Cluster)
	}

	// The emulator serves it.
	h := newHarness(t, emulator.Options{Catalog: c})
	var flavors kakaocloud.ListFlavorsResponse
	h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathFlavors+"?sort_keys=name&sort_dirs=asc", nil, http.StatusOK, &flavors)
	if flavors.Pagination.Total != 2 || flavors.Flavors[0].Name != "t1.big" {
		t.Errorf("flavors %+v", flavors)
	}
	var nodeImages kakaocloud.ListNodeImagesResponse
	h.apiOK(http.MethodGet, "/kubernetes-engine"+kakaocloud.PathNodeImages+"?k8s_version=1.35", nil, http.StatusOK, &nodeImages)
	if len(nodeImages.Images) != 1 {
		t.Errorf("k8s_version=1.35 should match the image of 1.35.2: %+v", nodeImages)
	}
	var cluster kakaocloud.GetClusterResponse
	h.apiOK(http.MethodGet, "/kubernetes-engine"+kakaocloud.PathClusters+"/lab-cluster", nil, http.StatusOK, &cluster)
	if cluster.Cluster.ControlPlaneEndpoint.Host != "10.1.2.3" || len(cluster.Cluster.VPCInfo.Subnets) != 1 {
		t.Errorf("cluster %+v", cluster.Cluster)
	}
	// A node image that the Image service does not list still boots a VM.
	nodeImage, _ := c.NodeImageByName("worker-1.35")
	h.create(kakaocloud.CreateInstance{
		Name: "lab-node", ImageID: nodeImage.ID, FlavorID: small.ID,
		Subnets:        []kakaocloud.SubnetAttachment{{ID: subnet.ID}},
		Volumes:        []kakaocloud.VolumeSpec{kakaocloud.BootVolume(50, "")},
		SecurityGroups: []kakaocloud.SecurityGroupRef{{Name: "nodes"}},
	})
	if got := h.emulator.Instances(); len(got) != 1 || got[0].Addresses[0].PrivateIP != "192.168.0.4" {
		t.Errorf("instances %+v", got)
	}
}

func TestLoadCatalogErrors(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string
	}{
		{"unknown field", "flavors:\n- name: a.b\n  vcpu: 2\n", `unknown field "vcpu"`},
		{"bad CIDR", "subnets:\n- name: s\n  availability_zone: z\n  cidr_block: 10.0.0.0/33\ncluster: {name: c, minor_version: '1.36'}\n", `cidr_block "10.0.0.0/33"`},
		{"duplicate flavor", "flavors:\n- {name: a.b, vcpus: 1, memory_mb: 1, availability_zone: [z]}\n- {name: a.b, vcpus: 1, memory_mb: 1, availability_zone: [z]}\ncluster: {name: c, minor_version: '1.36'}\n", `duplicate flavor name "a.b"`},
		{"flavor without zones", "flavors:\n- {name: a.b, vcpus: 1, memory_mb: 1}\ncluster: {name: c, minor_version: '1.36'}\n", "at least one zone"},
		{"no cluster", "flavors: []\n", "cluster: name is required"},
		{"not YAML", "flavors: [", "parsing catalog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "catalog.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := emulator.LoadCatalog(path)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := emulator.LoadCatalog(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestNewDoesNotShareTheCatalog(t *testing.T) {
	c := emulator.DefaultCatalog()
	e := emulator.New(emulator.Options{Catalog: c})
	e.RemoveVersion("1.33")
	e.SetControlPlane("", "", kakaocloud.ClusterPhaseUpdating)
	if len(c.Versions) != 4 || c.Cluster.Phase != kakaocloud.ClusterPhaseProvisioned {
		t.Error("admin changes reached the caller's catalog")
	}
}

func TestNewPanicsOnInvalidCatalog(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New accepted a catalog without a cluster")
		}
	}()
	emulator.New(emulator.Options{Catalog: &emulator.Catalog{}})
}
