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
	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// subnetListing serves the VPC service's GET /api/v1/subnets, with filters id, name,
// availability_zone and vpc_id, and GET /api/v1/subnets/{id}. The official SDK does not say
// whether the name filter is exact; it is read as the instance listing's, which the SDK
// documents as "contains", so that a client trusting it to be exact is caught here.
var subnetListing = catalogListing[kakaocloud.Subnet]{
	listOp: OpListSubnets, getOp: OpGetSubnet, service: kakaocloud.ServiceVPC, path: kakaocloud.PathSubnets,
	kind:         "subnet",
	entries:      func(c *Catalog) []kakaocloud.Subnet { return c.Subnets },
	id:           func(s kakaocloud.Subnet) string { return s.ID },
	name:         func(s kakaocloud.Subnet) string { return s.Name },
	nameContains: true,
	filters: []filter[kakaocloud.Subnet]{
		exact("id", func(s kakaocloud.Subnet) string { return s.ID }),
		exact("availability_zone", func(s kakaocloud.Subnet) string { return s.AvailabilityZone }),
		exact("vpc_id", func(s kakaocloud.Subnet) string { return s.VPCID }),
	},
	listAnswer: func(page []kakaocloud.Subnet, pagination kakaocloud.Pagination) any {
		return kakaocloud.ListSubnetsResponse{Subnets: page, Pagination: pagination}
	},
	getAnswer: func(s kakaocloud.Subnet) any { return kakaocloud.GetSubnetResponse{Subnet: s} },
}

// securityGroupListing serves the Network service's GET /api/v1/security-groups, with
// filters id and name (read as "contains", as subnetListing's), and
// GET /api/v1/security-groups/{id}.
var securityGroupListing = catalogListing[kakaocloud.SecurityGroup]{
	listOp: OpListSecurityGroups, getOp: OpGetSecurityGroup, service: kakaocloud.ServiceNetwork, path: kakaocloud.PathSecurityGroups,
	kind:         "security group",
	entries:      func(c *Catalog) []kakaocloud.SecurityGroup { return c.SecurityGroups },
	id:           func(sg kakaocloud.SecurityGroup) string { return sg.ID },
	name:         func(sg kakaocloud.SecurityGroup) string { return sg.Name },
	nameContains: true,
	filters: []filter[kakaocloud.SecurityGroup]{
		exact("id", func(sg kakaocloud.SecurityGroup) string { return sg.ID }),
	},
	listAnswer: func(page []kakaocloud.SecurityGroup, pagination kakaocloud.Pagination) any {
		return kakaocloud.ListSecurityGroupsResponse{SecurityGroups: page, Pagination: pagination}
	},
	getAnswer: func(sg kakaocloud.SecurityGroup) any { return kakaocloud.GetSecurityGroupResponse{SecurityGroup: sg} },
}
