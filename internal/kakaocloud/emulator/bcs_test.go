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
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

const instancesPath = "/bcs" + kakaocloud.PathInstances

func TestCreateInstanceValidation(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	tests := []struct {
		name        string
		mutate      func(spec *kakaocloud.CreateInstance)
		wantMessage string
	}{
		{"name missing", func(s *kakaocloud.CreateInstance) { s.Name = "" }, "instance.name is required"},
		{"name too short", func(s *kakaocloud.CreateInstance) { s.Name = "abc" }, `instance.name "abc" is 3 characters long; it must be 4 to 63`},
		{"name too long", func(s *kakaocloud.CreateInstance) { s.Name = strings.Repeat("a", 64) }, "is 64 characters long; it must be 4 to 63"},
		{"name starts with a hyphen", func(s *kakaocloud.CreateInstance) { s.Name = "-node" }, "must consist of letters, digits, '-' and '_', and start and end with a letter or digit"},
		{"name ends with an underscore", func(s *kakaocloud.CreateInstance) { s.Name = "node_" }, "start and end with a letter or digit"},
		{"name with a dot", func(s *kakaocloud.CreateInstance) { s.Name = "node.one" }, "must consist of letters, digits"},
		{"name with Hangul", func(s *kakaocloud.CreateInstance) { s.Name = "노드노드" }, "must consist of letters, digits"},
		{"name with --", func(s *kakaocloud.CreateInstance) { s.Name = "node--one" }, `must not contain "--"`},
		{"name with __", func(s *kakaocloud.CreateInstance) { s.Name = "node__one" }, `must not contain "__"`},
		{"name with -_", func(s *kakaocloud.CreateInstance) { s.Name = "node-_one" }, `must not contain "-_"`},
		{"name with _-", func(s *kakaocloud.CreateInstance) { s.Name = "node_-one" }, `must not contain "_-"`},
		{"description too long", func(s *kakaocloud.CreateInstance) { s.Description = strings.Repeat("d", 101) }, "instance.description is 101 characters long; at most 100 are allowed"},
		{"description too long in Hangul", func(s *kakaocloud.CreateInstance) { s.Description = strings.Repeat("가", 101) }, "is 101 characters long"},
		{"description with $", func(s *kakaocloud.CreateInstance) { s.Description = "costs $5" }, `instance.description contains '$', which is not allowed`},
		{"description with a newline", func(s *kakaocloud.CreateInstance) { s.Description = "two\nlines" }, `contains '\n'`},
		{"description with an emoji", func(s *kakaocloud.CreateInstance) { s.Description = "node 🚀" }, "which is not allowed"},
		{"unknown flavor", func(s *kakaocloud.CreateInstance) { s.FlavorID = "m2a.large" }, `instance.flavor_id "m2a.large": no such flavor`},
		{"unknown image", func(s *kakaocloud.CreateInstance) { s.ImageID = "nope" }, `instance.image_id "nope": no such image`},
		{"no subnets", func(s *kakaocloud.CreateInstance) { s.Subnets = nil }, "instance.subnets must name at least one subnet"},
		{"unknown subnet", func(s *kakaocloud.CreateInstance) {
			s.Subnets = append(s.Subnets, kakaocloud.SubnetAttachment{ID: "nope"})
		}, `instance.subnets[1].id "nope": no such subnet`},
		{"zone the flavor is not offered in", func(s *kakaocloud.CreateInstance) {
			s.FlavorID = h.flavorID("m2a.12xlarge")
			s.AvailabilityZone = emulator.ZoneC
			s.Subnets = []kakaocloud.SubnetAttachment{{ID: h.subnetID("karpenter-subnet-c")}}
		}, `instance.availability_zone "kr-central-2-c": flavor m2a.12xlarge is not offered there; it is offered in kr-central-2-a, kr-central-2-b`},
		{"zone unlike the subnet's", func(s *kakaocloud.CreateInstance) { s.AvailabilityZone = emulator.ZoneB },
			"subnet karpenter-subnet-a is in kr-central-2-a, not in the instance's availability zone kr-central-2-b"},
		{"second subnet in another zone", func(s *kakaocloud.CreateInstance) {
			s.Subnets = append(s.Subnets, kakaocloud.SubnetAttachment{ID: h.subnetID("karpenter-subnet-b")})
		}, "subnet karpenter-subnet-b is in kr-central-2-b, not in the instance's availability zone kr-central-2-a"},
		{"subnet zone the flavor is not offered in", func(s *kakaocloud.CreateInstance) {
			s.FlavorID = h.flavorID("gn1i.xlarge")
			s.Subnets = []kakaocloud.SubnetAttachment{{ID: h.subnetID("karpenter-subnet-b")}}
		}, "flavor gn1i.xlarge is not offered in kr-central-2-b, the zone of subnet karpenter-subnet-b; it is offered in kr-central-2-a"},
		// Required by the official SDK's model of a create.
		{"no volumes", func(s *kakaocloud.CreateInstance) { s.Volumes = nil }, "instance.volumes is required"},
		{"an empty boot volume", func(s *kakaocloud.CreateInstance) { s.Volumes[0].Size = 0 }, "instance.volumes[0].size 0 must be 1 to 16384 (GiB)"},
		{"a volume too large", func(s *kakaocloud.CreateInstance) { s.Volumes[0].Size = 16385 }, "instance.volumes[0].size 16385 must be 1 to 16384"},
		{"an unknown volume source", func(s *kakaocloud.CreateInstance) { s.Volumes[0].SourceType = "snapshot" }, `instance.volumes[0].source_type "snapshot" must be one of image, blank, volume`},
		// Required by the official Terraform provider's documentation of a volume.
		{"an image volume without a type", func(s *kakaocloud.CreateInstance) {
			s.Volumes[0] = kakaocloud.VolumeSpec{Size: 50, SourceType: kakaocloud.VolumeSourceImage, UUID: s.ImageID}
		}, "instance.volumes[0].type_id is required for source_type image"},
		{"a blank volume without a type", func(s *kakaocloud.CreateInstance) {
			s.Volumes = append(s.Volumes, kakaocloud.VolumeSpec{Size: 10, SourceType: kakaocloud.VolumeSourceBlank})
		}, "instance.volumes[1].type_id is required for source_type blank"},
		{"a second volume blank by default, without a type", func(s *kakaocloud.CreateInstance) {
			s.Volumes = append(s.Volumes, kakaocloud.VolumeSpec{Size: 10})
		}, "instance.volumes[1].type_id is required for source_type blank"},
		{"an image volume of no image", func(s *kakaocloud.CreateInstance) {
			s.Volumes[0] = kakaocloud.VolumeSpec{Size: 50, SourceType: kakaocloud.VolumeSourceImage, UUID: h.flavorID("m2a.large"), TypeID: "gp2"}
		}, `instance.volumes[0].uuid "` + h.flavorID("m2a.large") + `": no such image`},
		{"a volume of no volume", func(s *kakaocloud.CreateInstance) {
			s.Volumes = append(s.Volumes, kakaocloud.VolumeSpec{Size: 10, SourceType: kakaocloud.VolumeSourceVolume, UUID: "nope"})
		}, `instance.volumes[1].uuid "nope": no such volume`},
		{"no security groups", func(s *kakaocloud.CreateInstance) { s.SecurityGroups = nil }, "instance.security_groups is required"},
		{"unknown security group", func(s *kakaocloud.CreateInstance) {
			s.SecurityGroups = append(s.SecurityGroups, kakaocloud.SecurityGroupRef{Name: "missing"})
		}, `instance.security_groups[1].name "missing": no such security group`},
		{"user data not base64", func(s *kakaocloud.CreateInstance) { s.UserData = "#cloud-config" }, "instance.user_data is not valid base64"},
		{"user data too long", func(s *kakaocloud.CreateInstance) {
			s.UserData = base64.StdEncoding.EncodeToString(make([]byte, 12291))
		}, "instance.user_data is 16388 bytes encoded; at most 16384 are allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := h.validCreate("node-one")
			tt.mutate(&spec)
			resp := h.api(http.MethodPost, instancesPath, kakaocloud.CreateInstanceRequest{Instance: spec})
			wantError(t, resp, http.StatusBadRequest, "BadRequest", tt.wantMessage)
		})
	}
	t.Run("malformed body", func(t *testing.T) {
		wantError(t, h.api(http.MethodPost, instancesPath, `{"instance":{"name":`), http.StatusBadRequest, "BadRequest", "not valid JSON")
	})
	if got := h.emulator.Instances(); len(got) != 0 {
		t.Errorf("rejected creates created %d instances", len(got))
	}
}

func TestCreateInstanceAcceptsTheLimits(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	tests := []struct {
		name   string
		mutate func(spec *kakaocloud.CreateInstance)
	}{
		{"4-character name", func(s *kakaocloud.CreateInstance) { s.Name = "a_b1" }},
		{"63-character name", func(s *kakaocloud.CreateInstance) { s.Name = strings.Repeat("a", 63) }},
		{"100-character Hangul description", func(s *kakaocloud.CreateInstance) { s.Description = strings.Repeat("노", 100) }},
		{"every allowed punctuation", func(s *kakaocloud.CreateInstance) { s.Description = `a.,!?()[]{}:;"'@#%&*+=_/\|<>~- 1` }},
		{"16384 bytes of user data", func(s *kakaocloud.CreateInstance) {
			s.UserData = base64.StdEncoding.EncodeToString(make([]byte, 12288))
		}},
		{"no user data", func(s *kakaocloud.CreateInstance) { s.UserData = "" }},
		{"plain Image-service image", func(s *kakaocloud.CreateInstance) { s.ImageID = h.imageID("ubuntu-24.04-x86_64") }},
		{"zone given and matching", func(s *kakaocloud.CreateInstance) { s.AvailabilityZone = emulator.ZoneA }},
		{"GPU flavor in zone a", func(s *kakaocloud.CreateInstance) { s.FlavorID = h.flavorID("gn1i.8xlarge") }},
		{"boot volume of a type", func(s *kakaocloud.CreateInstance) { s.Volumes[0].TypeID = "gp2" }},
		{"boot volume from the image, typed", func(s *kakaocloud.CreateInstance) {
			s.Volumes[0] = kakaocloud.VolumeSpec{Size: 50, SourceType: kakaocloud.VolumeSourceImage, UUID: s.ImageID, TypeID: "gp2"}
		}},
		{"a typed blank data volume", func(s *kakaocloud.CreateInstance) {
			s.Volumes = append(s.Volumes, kakaocloud.VolumeSpec{Size: 10, TypeID: "gp2"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := h.validCreate("node-one")
			tt.mutate(&spec)
			h.create(spec)
		})
	}
}

func TestCreateInstance(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	spec := h.validCreate("node-one")
	spec.Description = "karpenter 노드: nodeclaim/default-x7k2p"
	spec.KeyName = "ops"
	var created kakaocloud.CreateInstanceResponse
	h.apiOK(http.MethodPost, instancesPath, kakaocloud.CreateInstanceRequest{Instance: spec}, http.StatusAccepted, &created)
	if !uuidPattern.MatchString(created.Instance.ID) ||
		!slices.Equal(created.Instance.SecurityGroups, []kakaocloud.SecurityGroupRef{{Name: emulator.DefaultSecurityGroupName}}) {
		t.Errorf("create response %+v", created)
	}

	got := h.getInstance(created.Instance.ID)
	workers, _ := h.catalog.SecurityGroupByName(emulator.DefaultSecurityGroupName)
	flavor, _ := h.catalog.FlavorByName("m2a.large")
	ip := netip.MustParseAddr(got.Addresses[0].PrivateIP)
	checks := []struct {
		what string
		ok   bool
	}{
		{"name and description verbatim", got.Name == spec.Name && got.Description == spec.Description},
		{"building", got.Status == kakaocloud.InstanceStatusBuilding && got.VMState == "building" && got.PowerState == "NOSTATE"},
		{"created now", got.CreatedAt.Equal(h.clock.Now())},
		{"zone from the subnet", got.AvailabilityZone == emulator.ZoneA},
		{"flavor block", got.Flavor == kakaocloud.InstanceFlavor{ID: flavor.ID, Name: "m2a.large", VCPUs: 2, MemoryMB: 8192, InstanceFamily: "m2a"}},
		{"image block", got.Image == kakaocloud.InstanceImage{ID: spec.ImageID, Name: nodeImage136, OSArchitecture: "x86_64"}},
		{"private IP in the subnet", netip.MustParsePrefix("10.0.0.0/20").Contains(ip) && got.Addresses[0].NetworkInterfaceID != ""},
		{"hostname from the IP", got.Hostname == "host-"+strings.ReplaceAll(ip.String(), ".", "-")},
		{"root volume", len(got.AttachedVolumes) == 1 && got.AttachedVolumes[0].Size == 50 && got.AttachedVolumes[0].IsRoot && got.AttachedVolumes[0].IsDeleteOnTermination},
		{"security groups with IDs", slices.Equal(got.SecurityGroups, []kakaocloud.SecurityGroupRef{{ID: workers.ID, Name: workers.Name}})},
		{"instance type and key", got.InstanceType == "vm" && got.KeyName == "ops"},
	}
	for _, check := range checks {
		if !check.ok {
			t.Errorf("%s: instance %+v", check.what, got)
		}
	}
}

// requireKeys fails the test for each key the JSON object lacks; what names it in messages.
func requireKeys(t *testing.T, what string, object map[string]json.RawMessage, keys ...string) {
	t.Helper()
	for _, key := range keys {
		if _, ok := object[key]; !ok {
			t.Errorf("%s has no %q, which the official SDK's model requires", what, key)
		}
	}
}

// objects decodes a JSON array of objects.
func objects(t *testing.T, raw json.RawMessage) []map[string]json.RawMessage {
	t.Helper()
	var out []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return out
}

// object decodes a JSON object.
func object(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var out map[string]json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return out
}

// The create, get and list answers hold every field the official SDK's models of them require,
// down to the instance's flavor, image, volumes and security groups.
func TestInstanceAnswersHoldTheSDKsRequiredFields(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	createAnswer := h.apiOK(http.MethodPost, instancesPath, kakaocloud.CreateInstanceRequest{Instance: h.validCreate("node-one")}, http.StatusAccepted, nil)
	created := object(t, object(t, createAnswer.body)["instance"])
	requireKeys(t, "the create's instance", created, "id", "security_groups", "disk_config")
	for _, sg := range objects(t, created["security_groups"]) {
		requireKeys(t, "the create's security group", sg, "name")
	}

	checkInstance := func(what string, instance map[string]json.RawMessage) {
		t.Helper()
		requireKeys(t, what, instance, "id", "flavor", "image", "attached_volumes", "security_groups")
		requireKeys(t, what+"'s flavor", object(t, instance["flavor"]), "id")
		requireKeys(t, what+"'s image", object(t, instance["image"]), "id")
		for _, volume := range objects(t, instance["attached_volumes"]) {
			requireKeys(t, what+"'s attached volume", volume, "id", "size")
		}
		for _, sg := range objects(t, instance["security_groups"]) {
			requireKeys(t, what+"'s security group", sg, "id")
		}
	}
	var id string
	if err := json.Unmarshal(created["id"], &id); err != nil {
		t.Fatal(err)
	}
	got := object(t, h.apiOK(http.MethodGet, instancesPath+"/"+id, nil, http.StatusOK, nil).body)
	requireKeys(t, "the get's answer", got, "instance")
	checkInstance("the get's instance", object(t, got["instance"]))
	list := object(t, h.apiOK(http.MethodGet, instancesPath, nil, http.StatusOK, nil).body)
	requireKeys(t, "the list's answer", list, "instances", "pagination")
	for _, instance := range objects(t, list["instances"]) {
		checkInstance("a listed instance", instance)
	}
}

func TestDuplicateNamesAndUniqueAddresses(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	ids := map[string]bool{}
	ips := map[string]bool{}
	for range 5 {
		id := h.create(h.validCreate("same-name"))
		ids[id] = true
		ips[h.getInstance(id).Addresses[0].PrivateIP] = true
	}
	if len(ids) != 5 || len(ips) != 5 {
		t.Errorf("%d IDs and %d IPs for 5 instances", len(ids), len(ips))
	}
	var list kakaocloud.ListInstancesResponse
	h.apiOK(http.MethodGet, instancesPath+"?name=same-name", nil, http.StatusOK, &list)
	if list.Pagination.Total != 5 {
		t.Errorf("%d instances named same-name, want 5", list.Pagination.Total)
	}
}

// A freed address is given again only once the rest of the subnet has been handed out, so that
// a new VM does not take the name of a node that was just deleted.
func TestFreedAddressesComeBackLast(t *testing.T) {
	catalog := emulator.DefaultCatalog()
	for i := range catalog.Subnets {
		if catalog.Subnets[i].Name == "karpenter-subnet-a" {
			catalog.Subnets[i].CIDRBlock = "10.0.0.0/29" // hosts 10.0.0.4 to 10.0.0.6
		}
	}
	h := newHarness(t, emulator.Options{Catalog: catalog})
	ip := func(id string) string { return h.getInstance(id).Addresses[0].PrivateIP }
	deleted := func(id string) {
		if resp := h.api(http.MethodDelete, instancesPath+"/"+id, nil); resp.status != http.StatusAccepted {
			t.Fatalf("delete %s: status %d body %q", id, resp.status, resp.body)
		}
		h.clock.Step(time.Minute)
	}
	first, second := h.create(h.validCreate("node-one")), h.create(h.validCreate("node-two"))
	deleted(first)
	third := h.create(h.validCreate("node-three"))
	if got := []string{ip(second), ip(third)}; !slices.Equal(got, []string{"10.0.0.5", "10.0.0.6"}) {
		t.Errorf("addresses %v after 10.0.0.4 was freed, want [10.0.0.5 10.0.0.6]", got)
	}
	// The end of the range: the freed address is the only one left.
	if got := ip(h.create(h.validCreate("node-four"))); got != "10.0.0.4" {
		t.Errorf("address %s once the range is used up, want the freed 10.0.0.4", got)
	}
	if resp := h.api(http.MethodPost, instancesPath, kakaocloud.CreateInstanceRequest{Instance: h.validCreate("node-five")}); resp.status != http.StatusConflict {
		t.Errorf("create in a full subnet: status %d, want 409", resp.status)
	}
}

func TestListInstancesFilters(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	inA := h.create(h.validCreate("pool-a1"))
	h.create(h.validCreate("pool-a10"))
	specB := h.validCreate("pool-b1")
	specB.FlavorID = h.flavorID("c2a.xlarge")
	specB.Subnets = []kakaocloud.SubnetAttachment{{ID: h.subnetID("karpenter-subnet-b")}}
	h.create(specB)
	h.clock.Step(emulator.DefaultBuildDelay)
	h.create(h.validCreate("pool-a2")) // still building

	tests := []struct {
		query     string
		wantNames []string
	}{
		{"?name=pool-a1", []string{"pool-a1", "pool-a10"}}, // substring, as the real API
		{"?name=pool", []string{"pool-a1", "pool-a10", "pool-b1", "pool-a2"}},
		{"?id=" + inA, []string{"pool-a1"}},
		{"?status=active", []string{"pool-a1", "pool-a10", "pool-b1"}},
		{"?status=ACTIVE", []string{"pool-a1", "pool-a10", "pool-b1"}},
		{"?status=building", []string{"pool-a2"}},
		{"?availability_zone=" + emulator.ZoneB, []string{"pool-b1"}},
		{"?flavor_name=m2a.large", []string{"pool-a1", "pool-a10", "pool-a2"}},
		{"?flavor_name=c2a.xlarge&availability_zone=" + emulator.ZoneA, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var list kakaocloud.ListInstancesResponse
			h.apiOK(http.MethodGet, instancesPath+tt.query+"&sort_dirs=asc", nil, http.StatusOK, &list)
			var names []string
			for _, in := range list.Instances {
				names = append(names, in.Name)
			}
			if !slices.Equal(names, tt.wantNames) || list.Pagination.Total != len(tt.wantNames) {
				t.Errorf("instances %v (total %d), want %v", names, list.Pagination.Total, tt.wantNames)
			}
		})
	}
}

func TestInstanceLifecycle(t *testing.T) {
	h := newHarness(t, emulator.Options{BuildDelay: 2 * time.Second, DeleteDelay: time.Second})
	id := h.create(h.validCreate("life-cycle"))
	created := h.clock.Now()

	h.clock.Step(2*time.Second - time.Millisecond)
	if got := h.getInstance(id); got.Status != kakaocloud.InstanceStatusBuilding {
		t.Fatalf("just before BuildDelay: status %s", got.Status)
	}
	h.clock.Step(time.Millisecond)
	got := h.getInstance(id)
	if got.Status != kakaocloud.InstanceStatusActive || got.VMState != "active" || got.PowerState != "RUNNING" ||
		!got.UpdatedAt.Equal(created.Add(2*time.Second)) {
		t.Fatalf("after BuildDelay: %+v", got)
	}

	resp := h.api(http.MethodDelete, instancesPath+"/"+id, nil)
	if resp.status != http.StatusAccepted || len(resp.body) != 0 {
		t.Fatalf("delete: status %d body %q", resp.status, resp.body)
	}
	if got := h.getInstance(id); got.Status != kakaocloud.InstanceStatusDeleting {
		t.Fatalf("after delete: status %s", got.Status)
	}
	h.clock.Step(500 * time.Millisecond)
	if resp := h.api(http.MethodDelete, instancesPath+"/"+id, nil); resp.status != http.StatusAccepted {
		t.Errorf("second delete: status %d, want 202", resp.status)
	}
	// The second delete does not restart the clock: the instance goes 1s after the first.
	h.clock.Step(500*time.Millisecond - time.Millisecond)
	var list kakaocloud.ListInstancesResponse
	h.apiOK(http.MethodGet, instancesPath, nil, http.StatusOK, &list)
	if len(list.Instances) != 1 || list.Instances[0].Status != kakaocloud.InstanceStatusDeleting {
		t.Errorf("while deleting: %+v", list.Instances)
	}
	var actions []string
	for _, log := range h.actionLogs(id) {
		actions = append(actions, log.Action)
	}
	if !slices.Equal(actions, []string{"create", "delete"}) {
		t.Errorf("action logs %v", actions)
	}

	h.clock.Step(time.Millisecond)
	wantError(t, h.api(http.MethodGet, instancesPath+"/"+id, nil), http.StatusNotFound, "NotFound", "not found")
	h.apiOK(http.MethodGet, instancesPath, nil, http.StatusOK, &list)
	if len(list.Instances) != 0 || list.Pagination.Total != 0 {
		t.Errorf("gone instance still listed: %+v", list)
	}
	wantError(t, h.api(http.MethodDelete, instancesPath+"/"+id, nil), http.StatusNotFound, "NotFound", "not found")
	wantError(t, h.api(http.MethodGet, instancesPath+"/"+id+"/action-logs", nil), http.StatusNotFound, "NotFound", "not found")
}

func TestDeleteWhileBuilding(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	var activated atomic.Int32
	h.emulator.OnInstanceActive(func(kakaocloud.Instance) { activated.Add(1) })
	id := h.create(h.validCreate("short-lived"))
	h.apiOK(http.MethodDelete, instancesPath+"/"+id, nil, http.StatusAccepted, nil)
	h.clock.Step(emulator.DefaultBuildDelay)
	if got := h.emulator.Instances(); len(got) != 0 || activated.Load() != 0 {
		t.Errorf("instances %+v, %d activations; want the deleted instance gone, never active", got, activated.Load())
	}
}

func TestUpdateInstance(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	id := h.create(h.validCreate("before-rename"))
	h.clock.Step(time.Minute)
	name, description := "after-rename", "renamed (by test)"
	var updated kakaocloud.UpdateInstanceResponse
	h.apiOK(http.MethodPut, instancesPath+"/"+id,
		kakaocloud.UpdateInstanceRequest{Instance: kakaocloud.UpdateInstance{Name: &name, Description: &description}},
		http.StatusOK, &updated)
	// The answer is the compute service's model of the VM, as the official SDK's.
	if updated.Instance.Name != name || updated.Instance.Description != description || updated.Instance.Flavor == nil || updated.Instance.Flavor.OriginalName == "" {
		t.Errorf("updated %+v", updated.Instance)
	}
	var got kakaocloud.GetInstanceResponse
	h.apiOK(http.MethodGet, instancesPath+"/"+id, nil, http.StatusOK, &got)
	if got.Instance.Name != name || !got.Instance.UpdatedAt.Equal(h.clock.Now()) {
		t.Errorf("after the update: %+v", got.Instance)
	}
	onlyDescription := "only the description"
	h.apiOK(http.MethodPut, instancesPath+"/"+id,
		kakaocloud.UpdateInstanceRequest{Instance: kakaocloud.UpdateInstance{Description: &onlyDescription}}, http.StatusOK, &updated)
	if updated.Instance.Name != name || updated.Instance.Description != onlyDescription {
		t.Errorf("updated %+v", updated.Instance)
	}

	bad := "a--b"
	tests := []struct {
		name        string
		path        string
		body        any
		wantStatus  int
		wantMessage string
	}{
		{"invalid name", instancesPath + "/" + id, kakaocloud.UpdateInstanceRequest{Instance: kakaocloud.UpdateInstance{Name: &bad}}, http.StatusBadRequest, `must not contain "--"`},
		{"invalid description", instancesPath + "/" + id, map[string]any{"instance": map[string]string{"description": "$"}}, http.StatusBadRequest, "not allowed"},
		{"nothing to update", instancesPath + "/" + id, map[string]any{"instance": map[string]string{}}, http.StatusBadRequest, "must give a name, a description or both"},
		{"unknown instance", instancesPath + "/nope", kakaocloud.UpdateInstanceRequest{Instance: kakaocloud.UpdateInstance{Name: &name}}, http.StatusNotFound, `instance "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, h.api(http.MethodPut, tt.path, tt.body), tt.wantStatus, strings.ReplaceAll(http.StatusText(tt.wantStatus), " ", ""), tt.wantMessage)
		})
	}
	if got := h.getInstance(id); got.Name != name {
		t.Errorf("a rejected update changed the name to %q", got.Name)
	}
}

func TestUserDataReachesTheVMOnly(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	spec := h.validCreate("node-one")
	spec.UserData = base64.StdEncoding.EncodeToString([]byte("#!/bin/bash\necho joined\n"))
	id := h.create(spec)
	if got, ok := h.emulator.UserData(id); !ok || got != "#!/bin/bash\necho joined\n" {
		t.Errorf("UserData(%s) = %q, %v", id, got, ok)
	}
	resp := h.api(http.MethodGet, instancesPath+"/"+id, nil)
	if bytes.Contains(resp.body, []byte("user_data")) {
		t.Errorf("the API shows the user data: %s", resp.body)
	}
	if _, ok := h.emulator.UserData("no-such-instance"); ok {
		t.Error("UserData of an unknown instance")
	}
}
