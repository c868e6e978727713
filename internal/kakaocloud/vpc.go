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
)

// SubnetFilter narrows ListSubnets.
type SubnetFilter struct {
	ID               string
	Name             string
	AvailabilityZone string
	VPCID            string
}

// ListSubnets returns every subnet that matches the filter.
func (c *Client) ListSubnets(ctx context.Context, f SubnetFilter) ([]Subnet, error) {
	return listAll(ctx, c, call{
		service: ServiceVPC, operation: "ListSubnets", path: PathSubnets,
		query: filter("id", f.ID, "name", f.Name, "availability_zone", f.AvailabilityZone, "vpc_id", f.VPCID),
	}, func(r *ListSubnetsResponse) ([]Subnet, Pagination) { return r.Subnets, r.Pagination })
}

// GetSubnet returns one subnet; ErrNotFound when it does not exist.
func (c *Client) GetSubnet(ctx context.Context, id string) (Subnet, error) {
	return getOne(ctx, c, call{service: ServiceVPC, operation: "GetSubnet", path: PathSubnets + "/" + url.PathEscape(id)},
		func(r *GetSubnetResponse) Subnet { return r.Subnet })
}
