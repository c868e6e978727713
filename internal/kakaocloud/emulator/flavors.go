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
	"net/url"
	"strconv"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// flavorListing serves BCS's GET /api/v1/flavors, with filters name (exact), instance_family,
// instance_type and vcpus, and GET /api/v1/flavors/{id}.
var flavorListing = catalogListing[kakaocloud.Flavor]{
	listOp: OpListFlavors, getOp: OpGetFlavor, service: kakaocloud.ServiceBCS, path: kakaocloud.PathFlavors,
	kind:    "flavor",
	entries: func(c *Catalog) []kakaocloud.Flavor { return c.Flavors },
	id:      func(f kakaocloud.Flavor) string { return f.ID },
	name:    func(f kakaocloud.Flavor) string { return f.Name },
	check: func(query url.Values) error {
		if err := validateInstanceType(query); err != nil {
			return err
		}
		if value := query.Get("vcpus"); value != "" {
			if vcpus, err := strconv.Atoi(value); err != nil || vcpus < 1 {
				return badRequest("vcpus %q must be a positive integer", value)
			}
		}
		return nil
	},
	filters: []filter[kakaocloud.Flavor]{
		exact("instance_family", func(f kakaocloud.Flavor) string { return f.InstanceFamily }),
		exact("instance_type", func(f kakaocloud.Flavor) string { return f.InstanceType }),
		func(query url.Values, f kakaocloud.Flavor) bool {
			// check let only a positive integer through, or nothing, which keeps every flavor.
			vcpus, err := strconv.Atoi(query.Get("vcpus"))
			return err != nil || f.VCPUs == vcpus
		},
	},
	listAnswer: func(page []kakaocloud.Flavor, pagination kakaocloud.Pagination) any {
		return kakaocloud.ListFlavorsResponse{Flavors: page, Pagination: pagination}
	},
	getAnswer: func(f kakaocloud.Flavor) any { return kakaocloud.GetFlavorResponse{Flavor: f} },
}
