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
	"net/url"
	"strconv"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// listFlavors serves GET /api/v1/flavors with filters name (exact), instance_family,
// instance_type and vcpus.
func (e *Emulator) listFlavors(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	query := r.URL.Query()
	vcpus := -1
	if value := query.Get("vcpus"); value != "" {
		var err error
		if vcpus, err = strconv.Atoi(value); err != nil || vcpus < 1 {
			return 0, nil, badRequest("vcpus %q must be a positive integer", value)
		}
	}
	flavors, pagination, err := listPage(query, e.catalog.Flavors, flavorName, exact("name", flavorName),
		exact("instance_family", func(f kakaocloud.Flavor) string { return f.InstanceFamily }),
		exact("instance_type", func(f kakaocloud.Flavor) string { return f.InstanceType }),
		func(_ url.Values, f kakaocloud.Flavor) bool { return vcpus < 0 || f.VCPUs == vcpus })
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, kakaocloud.ListFlavorsResponse{Flavors: flavors, Pagination: pagination}, nil
}

func flavorName(f kakaocloud.Flavor) string { return f.Name }

// getFlavor serves GET /api/v1/flavors/{id}.
func (e *Emulator) getFlavor(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	id := r.PathValue("id")
	flavor, ok := e.flavorsByID[id]
	if !ok {
		return 0, nil, notFound("flavor %q not found", id)
	}
	return http.StatusOK, kakaocloud.GetFlavorResponse{Flavor: flavor}, nil
}
