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

// SecurityGroupFilter narrows ListSecurityGroups.
type SecurityGroupFilter struct {
	ID   string
	Name string
}

// ListSecurityGroups returns every security group that matches the filter.
func (c *Client) ListSecurityGroups(ctx context.Context, f SecurityGroupFilter) ([]SecurityGroup, error) {
	return listAll(ctx, c, call{
		service: ServiceNetwork, operation: "ListSecurityGroups", path: PathSecurityGroups,
		query: filter("id", f.ID, "name", f.Name),
	}, func(r *ListSecurityGroupsResponse) ([]SecurityGroup, Pagination) {
		return r.SecurityGroups, r.Pagination
	})
}

// GetSecurityGroup returns one security group; ErrNotFound when it does not exist.
func (c *Client) GetSecurityGroup(ctx context.Context, id string) (SecurityGroup, error) {
	return getOne(ctx, c, call{service: ServiceNetwork, operation: "GetSecurityGroup", path: PathSecurityGroups + "/" + url.PathEscape(id)},
		func(r *GetSecurityGroupResponse) SecurityGroup { return r.SecurityGroup })
}
