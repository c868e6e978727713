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
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// InstanceFilter narrows ListInstances. Name matches as a substring, as KakaoCloud does.
type InstanceFilter struct {
	Name             string
	Status           string
	AvailabilityZone string
}

// CreateInstance starts creating a VM and returns its id; the VM is building until active.
// A create is never retried after a server error or a lost answer: KakaoCloud has no
// idempotency key, so the caller must look the VM up by name before trying again.
func (c *Client) CreateInstance(ctx context.Context, instance CreateInstance) (CreatedInstance, error) {
	var resp CreateInstanceResponse
	_, err := c.do(ctx, call{
		service: ServiceBCS, operation: "CreateInstance", method: http.MethodPost, path: PathInstances,
		body: CreateInstanceRequest{Instance: instance},
	}, &resp)
	return resp.Instance, err
}

// GetInstance returns a VM; ErrNotFound when there is none with that id.
func (c *Client) GetInstance(ctx context.Context, id string) (Instance, error) {
	return getOne(ctx, c, call{service: ServiceBCS, operation: "GetInstance", path: PathInstances + "/" + url.PathEscape(id)},
		func(r *GetInstanceResponse) Instance { return r.Instance })
}

// ListInstances returns every VM that matches the filter, across all pages.
func (c *Client) ListInstances(ctx context.Context, f InstanceFilter) ([]Instance, error) {
	return listAll(ctx, c, call{
		service: ServiceBCS, operation: "ListInstances", path: PathInstances,
		query: filter("name", f.Name, "status", f.Status, "availability_zone", f.AvailabilityZone),
	}, func(r *ListInstancesResponse) ([]Instance, Pagination) { return r.Instances, r.Pagination })
}

// FindInstancesByName returns the VMs whose name is exactly name. KakaoCloud's name filter
// matches substrings and names are not unique, so there may be several, or none.
func (c *Client) FindInstancesByName(ctx context.Context, name string) ([]Instance, error) {
	candidates, err := c.ListInstances(ctx, InstanceFilter{Name: name})
	if err != nil {
		return nil, err
	}
	return Named(candidates, name, func(i Instance) string { return i.Name }), nil
}

// Named keeps the entries of a listing called name exactly: a name filter of the API may
// match more (the instance listing's matches every name that contains it).
func Named[T any](entries []T, name string, nameOf func(T) string) []T {
	var kept []T
	for _, entry := range entries {
		if nameOf(entry) == name {
			kept = append(kept, entry)
		}
	}
	return kept
}

// UpdateInstance changes a VM's name and/or description, and returns the VM as the update's
// answer describes it (not all of a GetInstance's fields).
func (c *Client) UpdateInstance(ctx context.Context, id string, update UpdateInstance) (UpdatedInstance, error) {
	var resp UpdateInstanceResponse
	_, err := c.do(ctx, call{
		service: ServiceBCS, operation: "UpdateInstance", method: http.MethodPut,
		path: PathInstances + "/" + url.PathEscape(id), body: UpdateInstanceRequest{Instance: update}, idempotent: true,
	}, &resp)
	return resp.Instance, err
}

// DeleteInstance starts deleting a VM. A VM that is already gone counts as deleted: the
// caller confirms the end of a deletion with GetInstance returning ErrNotFound.
func (c *Client) DeleteInstance(ctx context.Context, id string) error {
	_, err := c.do(ctx, call{
		service: ServiceBCS, operation: "DeleteInstance", method: http.MethodDelete,
		path: PathInstances + "/" + url.PathEscape(id), idempotent: true,
	}, nil)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// ListInstanceActionLogs returns a VM's action log, which says why it went to error.
func (c *Client) ListInstanceActionLogs(ctx context.Context, id string) ([]ActionLog, error) {
	var resp ListActionLogsResponse
	_, err := c.do(ctx, call{
		service: ServiceBCS, operation: "ListActionLogs", method: http.MethodGet,
		path: PathInstances + "/" + url.PathEscape(id) + "/action-logs", idempotent: true,
	}, &resp)
	return resp.Actions, err
}

// FlavorFilter narrows ListFlavors.
type FlavorFilter struct {
	Name           string
	InstanceFamily string
	InstanceType   string
	VCPUs          int
}

// ListFlavors returns every instance type that matches the filter.
func (c *Client) ListFlavors(ctx context.Context, f FlavorFilter) ([]Flavor, error) {
	vcpus := ""
	if f.VCPUs > 0 {
		vcpus = strconv.Itoa(f.VCPUs)
	}
	return listAll(ctx, c, call{
		service: ServiceBCS, operation: "ListFlavors", path: PathFlavors,
		query: filter("name", f.Name, "instance_family", f.InstanceFamily, "instance_type", f.InstanceType, "vcpus", vcpus),
	}, func(r *ListFlavorsResponse) ([]Flavor, Pagination) { return r.Flavors, r.Pagination })
}

// GetFlavor returns one instance type.
func (c *Client) GetFlavor(ctx context.Context, id string) (Flavor, error) {
	return getOne(ctx, c, call{service: ServiceBCS, operation: "GetFlavor", path: PathFlavors + "/" + url.PathEscape(id)},
		func(r *GetFlavorResponse) Flavor { return r.Flavor })
}
