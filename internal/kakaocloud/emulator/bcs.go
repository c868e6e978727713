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
	"net/netip"
	"net/url"
	"slices"
	"strings"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Action names of an instance's action log, as Nova names its instance actions.
const (
	actionCreate = "create"
	actionUpdate = "update"
	actionDelete = "delete"
	actionStop   = "stop"
)

// firstHostOffset skips the network address and the addresses a cloud keeps for its gateway
// and DNS when handing out private IPs.
const firstHostOffset = 4

// instancePlan is a validated create: what the new instance is made of and where it goes.
type instancePlan struct {
	flavor         kakaocloud.Flavor
	image          kakaocloud.InstanceImage
	subnets        []kakaocloud.Subnet
	zone           string
	securityGroups []kakaocloud.SecurityGroupRef
	userData       string
}

// createInstance serves POST /api/v1/instances: 202 at once, the build goes on as the clock
// advances.
func (e *Emulator) createInstance(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var request kakaocloud.CreateInstanceRequest
	if err := decodeBody(w, r, &request); err != nil {
		return 0, nil, err
	}
	spec := request.Instance
	plan, err := e.planInstance(spec)
	if err != nil {
		return 0, nil, err
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	addresses, err := e.allocateAddressesLocked(plan.subnets)
	if err != nil {
		return 0, nil, err
	}
	now := e.now()
	in := &instance{
		Instance: kakaocloud.Instance{
			ID:               newUUID(),
			Name:             spec.Name,
			Description:      spec.Description,
			AvailabilityZone: plan.zone,
			InstanceType:     plan.flavor.InstanceType,
			KeyName:          spec.KeyName,
			Hostname:         "host-" + strings.ReplaceAll(addresses[0].PrivateIP, ".", "-"),
			Flavor: kakaocloud.InstanceFlavor{
				ID:             plan.flavor.ID,
				Name:           plan.flavor.Name,
				VCPUs:          plan.flavor.VCPUs,
				MemoryMB:       plan.flavor.MemoryMB,
				InstanceFamily: plan.flavor.InstanceFamily,
				HWType:         plan.flavor.HWType,
				HWCount:        plan.flavor.HWCount,
			},
			Image:           plan.image,
			Addresses:       addresses,
			AttachedVolumes: attachedVolumes(spec.Volumes),
			SecurityGroups:  plan.securityGroups,
			CreatedAt:       now,
		},
		failureMessage: e.buildFailureLocked(plan.flavor.Name, plan.zone),
		userData:       plan.userData,
	}
	in.setState(kakaocloud.InstanceStatusBuilding, "building", "spawning", powerStateNoState, now)
	in.log(actionCreate, now)
	e.instances = append(e.instances, in)
	e.created++

	// The SDK requires disk_config but names no values; MANUAL is one of OpenStack compute's
	// two (AUTO, MANUAL), and what the answer says is not read.
	created := kakaocloud.CreatedInstance{ID: in.ID, SecurityGroups: []kakaocloud.SecurityGroupRef{}, DiskConfig: "MANUAL"}
	for _, sg := range plan.securityGroups {
		created.SecurityGroups = append(created.SecurityGroups, kakaocloud.SecurityGroupRef{Name: sg.Name})
	}
	return http.StatusAccepted, kakaocloud.CreateInstanceResponse{Instance: created}, nil
}

// planInstance validates a create against the catalog, in the order a reader of the
// request would meet the problems, and answers the first with a specific 400.
func (e *Emulator) planInstance(spec kakaocloud.CreateInstance) (instancePlan, error) {
	var plan instancePlan
	if err := validateInstanceName(spec.Name); err != nil {
		return plan, err
	}
	if err := validateDescription(spec.Description); err != nil {
		return plan, err
	}
	flavor, ok := e.flavorsByID[spec.FlavorID]
	if !ok {
		return plan, badRequest("instance.flavor_id %q: no such flavor", spec.FlavorID)
	}
	plan.flavor = flavor
	if plan.image, ok = e.imagesByID[spec.ImageID]; !ok {
		return plan, badRequest("instance.image_id %q: no such image", spec.ImageID)
	}
	if len(spec.Subnets) == 0 {
		return plan, badRequest("instance.subnets must name at least one subnet")
	}
	for i, attachment := range spec.Subnets {
		subnet, ok := e.subnetsByID[attachment.ID]
		if !ok {
			return plan, badRequest("instance.subnets[%d].id %q: no such subnet", i, attachment.ID)
		}
		plan.subnets = append(plan.subnets, subnet)
	}
	zone, err := placementZone(spec.AvailabilityZone, flavor, plan.subnets)
	if err != nil {
		return plan, err
	}
	plan.zone = zone
	if err := e.validateVolumes(spec.Volumes); err != nil {
		return plan, err
	}
	if len(spec.SecurityGroups) == 0 {
		return plan, badRequest("instance.security_groups is required: name at least one security group")
	}
	for i, ref := range spec.SecurityGroups {
		sg, ok := e.securityGroupsByName[ref.Name]
		if !ok {
			return plan, badRequest("instance.security_groups[%d].name %q: no such security group", i, ref.Name)
		}
		plan.securityGroups = append(plan.securityGroups, kakaocloud.SecurityGroupRef{ID: sg.ID, Name: sg.Name})
	}
	if plan.userData, err = decodeUserData(spec.UserData); err != nil {
		return plan, err
	}
	return plan, nil
}

// placementZone returns the zone a create lands in: the one requested, else the first
// subnet's. The flavor must be offered there and every subnet must be in it.
func placementZone(requested string, flavor kakaocloud.Flavor, subnets []kakaocloud.Subnet) (string, error) {
	offered := strings.Join(flavor.Zones, ", ")
	zone := requested
	if zone == "" {
		zone = subnets[0].AvailabilityZone
		if !slices.Contains(flavor.Zones, zone) {
			return "", badRequest("flavor %s is not offered in %s, the zone of subnet %s; it is offered in %s", flavor.Name, zone, subnets[0].Name, offered)
		}
	} else if !slices.Contains(flavor.Zones, zone) {
		return "", badRequest("instance.availability_zone %q: flavor %s is not offered there; it is offered in %s", zone, flavor.Name, offered)
	}
	for _, subnet := range subnets {
		if subnet.AvailabilityZone != zone {
			return "", badRequest("subnet %s is in %s, not in the instance's availability zone %s", subnet.Name, subnet.AvailabilityZone, zone)
		}
	}
	return zone, nil
}

func attachedVolumes(volumes []kakaocloud.VolumeSpec) []kakaocloud.AttachedVolume {
	var attached []kakaocloud.AttachedVolume
	for i, volume := range volumes {
		attached = append(attached, kakaocloud.AttachedVolume{
			ID:                    newUUID(),
			Status:                "in-use",
			Size:                  volume.Size,
			IsRoot:                i == 0, // the first volume is the boot volume
			IsDeleteOnTermination: volume.IsDeleteOnTermination,
		})
	}
	return attached
}

// allocateAddressesLocked gives the new instance one private IP per subnet: the next free one
// after the subnet's last given address, wrapping at the end of the subnet. Addresses of
// instances that are gone are free again, but are given again only once the rest of the subnet
// has been handed out, as a cloud's address management spreads its choices rather than hand a
// freed address straight back: a node's name comes from its address, and a new VM that took
// the address of one just deleted would carry the name of a node that may still be draining
// (assumption A23).
func (e *Emulator) allocateAddressesLocked(subnets []kakaocloud.Subnet) ([]kakaocloud.InstanceAddress, error) {
	used := map[netip.Addr]bool{}
	for _, in := range e.instances {
		for _, address := range in.Addresses {
			if ip, err := netip.ParseAddr(address.PrivateIP); err == nil {
				used[ip] = true
			}
		}
	}
	addresses := make([]kakaocloud.InstanceAddress, 0, len(subnets))
	for _, subnet := range subnets {
		ip, err := freeAddress(subnet, used, e.lastAddress[subnet.ID])
		if err != nil {
			return nil, err
		}
		used[ip] = true
		e.lastAddress[subnet.ID] = ip
		addresses = append(addresses, kakaocloud.InstanceAddress{PrivateIP: ip.String(), NetworkInterfaceID: newUUID()})
	}
	return addresses, nil
}

// freeAddress returns the first address of the subnet's host range after last that used does
// not hold, wrapping to the start of the range (no last: from the start).
func freeAddress(subnet kakaocloud.Subnet, used map[netip.Addr]bool, last netip.Addr) (netip.Addr, error) {
	prefix := netip.MustParsePrefix(subnet.CIDRBlock).Masked() // Validate checked it
	first := prefix.Addr()
	for range firstHostOffset {
		first = first.Next()
	}
	// The host range ends before the last address of the prefix, the broadcast address.
	inRange := func(addr netip.Addr) bool { return addr.Compare(first) >= 0 && prefix.Contains(addr.Next()) }
	next := func(addr netip.Addr) netip.Addr {
		if addr = addr.Next(); inRange(addr) {
			return addr
		}
		return first
	}
	if inRange(first) {
		start := first
		if last.IsValid() && inRange(last) {
			start = next(last)
		}
		for addr := start; ; {
			if !used[addr] {
				return addr, nil
			}
			if addr = next(addr); addr == start {
				break
			}
		}
	}
	return netip.Addr{}, newError(http.StatusConflict, "subnet %s (%s) has no free private IP address", subnet.Name, subnet.CIDRBlock)
}

// getInstance serves GET /api/v1/instances/{id}.
func (e *Emulator) getInstance(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	return e.withInstance(r, func(in *instance) (int, any, error) {
		return http.StatusOK, kakaocloud.GetInstanceResponse{Instance: in.snapshot()}, nil
	})
}

// withInstance serves a call on the instance the request's path names: serve runs under the
// lock, and an unknown id is answered with 404.
func (e *Emulator) withInstance(r *http.Request, serve func(in *instance) (int, any, error)) (int, any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	in, err := e.instanceLocked(r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	return serve(in)
}

func (e *Emulator) instanceLocked(id string) (*instance, error) {
	for _, in := range e.instances {
		if in.ID == id {
			return in, nil
		}
	}
	return nil, notFound("instance %q not found", id)
}

// listInstances serves GET /api/v1/instances. Like the real API, name matches substrings.
// Instances younger than the list lag are left out.
func (e *Emulator) listInstances(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	listedBefore := e.now().Add(-e.listLag)
	// Filtered and paged as they are; only the page is copied out.
	page, pagination, err := listPage(r.URL.Query(), e.instances, func(in *instance) string { return in.Name },
		// An instance younger than the list lag is not in the listing index yet.
		func(_ url.Values, in *instance) bool { return e.listLag == 0 || !in.CreatedAt.After(listedBefore) },
		exact("id", func(in *instance) string { return in.ID }),
		func(query url.Values, in *instance) bool { return strings.Contains(in.Name, query.Get("name")) },
		func(query url.Values, in *instance) bool {
			return query.Get("status") == "" || strings.EqualFold(query.Get("status"), in.Status)
		},
		exact("availability_zone", func(in *instance) string { return in.AvailabilityZone }),
		exact("flavor_name", func(in *instance) string { return in.Flavor.Name }))
	if err != nil {
		return 0, nil, err
	}
	instances := make([]kakaocloud.Instance, 0, len(page))
	for _, in := range page {
		instances = append(instances, in.snapshot())
	}
	return http.StatusOK, kakaocloud.ListInstancesResponse{Instances: instances, Pagination: pagination}, nil
}

// updateInstance serves PUT /api/v1/instances/{id}: a new name and/or description.
func (e *Emulator) updateInstance(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var request kakaocloud.UpdateInstanceRequest
	if err := decodeBody(w, r, &request); err != nil {
		return 0, nil, err
	}
	update := request.Instance
	if update.Name == nil && update.Description == nil {
		return 0, nil, badRequest("instance must give a name, a description or both")
	}
	if update.Name != nil {
		if err := validateInstanceName(*update.Name); err != nil {
			return 0, nil, err
		}
	}
	if update.Description != nil {
		if err := validateDescription(*update.Description); err != nil {
			return 0, nil, err
		}
	}
	return e.withInstance(r, func(in *instance) (int, any, error) {
		now := e.now()
		if update.Name != nil {
			in.Name = *update.Name
		}
		if update.Description != nil {
			in.Description = *update.Description
		}
		in.UpdatedAt = now
		in.log(actionUpdate, now)
		return http.StatusOK, kakaocloud.UpdateInstanceResponse{Instance: kakaocloud.UpdatedInstance{
			ID: in.ID, Name: in.Name, Description: in.Description,
			VMState: in.VMState, TaskState: in.TaskState, PowerState: in.PowerState, Hostname: in.Hostname,
			Flavor: &kakaocloud.UpdatedFlavor{VCPUs: in.Flavor.VCPUs, RAM: in.Flavor.MemoryMB, OriginalName: in.Flavor.Name},
		}}, nil
	})
}

// deleteInstance serves DELETE /api/v1/instances/{id}: 202 with no body; the instance is
// deleting, then gone. Deleting it again is accepted again.
func (e *Emulator) deleteInstance(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	return e.withInstance(r, func(in *instance) (int, any, error) {
		if in.Status != kakaocloud.InstanceStatusDeleting {
			now := e.now()
			in.deletedAt = now
			in.setState(kakaocloud.InstanceStatusDeleting, in.VMState, "deleting", in.PowerState, now)
			in.log(actionDelete, now)
		}
		return http.StatusAccepted, nil, nil
	})
}

// listActionLogs serves GET /api/v1/instances/{id}/action-logs, oldest first.
func (e *Emulator) listActionLogs(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	return e.withInstance(r, func(in *instance) (int, any, error) {
		return http.StatusOK, kakaocloud.ListActionLogsResponse{Actions: slices.Clone(in.actionLogs)}, nil
	})
}

// newRequestID returns a request ID in the form OpenStack services log them.
func newRequestID() string {
	return "req-" + newUUID()
}
