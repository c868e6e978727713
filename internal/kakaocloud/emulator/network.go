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

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// listSubnets serves the VPC service's GET /api/v1/subnets with filters id, name (exact),
// availability_zone and vpc_id.
func (e *Emulator) listSubnets(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	subnets, pagination, err := listPage(r.URL.Query(), e.catalog.Subnets, subnetName,
		exact("id", func(s kakaocloud.Subnet) string { return s.ID }), exact("name", subnetName),
		exact("availability_zone", func(s kakaocloud.Subnet) string { return s.AvailabilityZone }),
		exact("vpc_id", func(s kakaocloud.Subnet) string { return s.VPCID }))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, kakaocloud.ListSubnetsResponse{Subnets: subnets, Pagination: pagination}, nil
}

func subnetName(s kakaocloud.Subnet) string { return s.Name }

// getSubnet serves the VPC service's GET /api/v1/subnets/{id}.
func (e *Emulator) getSubnet(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	id := r.PathValue("id")
	subnet, ok := e.subnetsByID[id]
	if !ok {
		return 0, nil, notFound("subnet %q not found", id)
	}
	return http.StatusOK, kakaocloud.GetSubnetResponse{Subnet: subnet}, nil
}

// listSecurityGroups serves the Network service's GET /api/v1/security-groups with filters
// id and name (exact).
func (e *Emulator) listSecurityGroups(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	groups, pagination, err := listPage(r.URL.Query(), e.catalog.SecurityGroups, securityGroupName,
		exact("id", func(sg kakaocloud.SecurityGroup) string { return sg.ID }), exact("name", securityGroupName))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, kakaocloud.ListSecurityGroupsResponse{SecurityGroups: groups, Pagination: pagination}, nil
}

func securityGroupName(sg kakaocloud.SecurityGroup) string { return sg.Name }

// getSecurityGroup serves the Network service's GET /api/v1/security-groups/{id}.
func (e *Emulator) getSecurityGroup(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	id := r.PathValue("id")
	sg, ok := findBy(e.catalog.SecurityGroups, id, func(sg kakaocloud.SecurityGroup) string { return sg.ID })
	if !ok {
		return 0, nil, notFound("security group %q not found", id)
	}
	return http.StatusOK, kakaocloud.GetSecurityGroupResponse{SecurityGroup: sg}, nil
}
