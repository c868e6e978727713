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
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

func TestPaginationAcrossPages(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	seen := map[string]bool{}
	for _, page := range []struct{ offset, wantCount int }{{0, 10}, {10, 10}, {20, 4}, {30, 0}} {
		var list kakaocloud.ListFlavorsResponse
		h.apiOK(http.MethodGet, fmt.Sprintf("/bcs%s?limit=10&offset=%d", kakaocloud.PathFlavors, page.offset), nil, http.StatusOK, &list)
		if len(list.Flavors) != page.wantCount || list.Pagination != (kakaocloud.Pagination{Total: 24, Offset: page.offset, Limit: 10}) {
			t.Errorf("offset %d: %d flavors, pagination %+v", page.offset, len(list.Flavors), list.Pagination)
		}
		for _, f := range list.Flavors {
			if seen[f.Name] {
				t.Errorf("flavor %s on two pages", f.Name)
			}
			seen[f.Name] = true
		}
	}
	if len(seen) != 24 {
		t.Errorf("pages held %d flavors, want 24", len(seen))
	}
}

func TestPaginationDefaultsAndSorting(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	names := []string{"node-b", "node-c", "node-a"}
	for _, name := range names {
		h.create(h.validCreate(name))
		h.clock.Step(1) // distinct created_at
	}
	list := func(query string) (kakaocloud.Pagination, []string) {
		var got kakaocloud.ListInstancesResponse
		h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathInstances+query, nil, http.StatusOK, &got)
		var listed []string
		for _, in := range got.Instances {
			listed = append(listed, in.Name)
		}
		return got.Pagination, listed
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"node-a", "node-c", "node-b"}}, // newest first
		{"?sort_dirs=asc", []string{"node-b", "node-c", "node-a"}},
		{"?sort_keys=created_at&sort_dirs=desc", []string{"node-a", "node-c", "node-b"}},
		{"?sort_keys=name&sort_dirs=asc", []string{"node-a", "node-b", "node-c"}},
		{"?sort_keys=name", []string{"node-c", "node-b", "node-a"}},
		{"?sort_keys=name&sort_dirs=asc&limit=2&offset=1", []string{"node-b", "node-c"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if _, got := list(tt.query); !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
	if pagination, _ := list(""); pagination != (kakaocloud.Pagination{Total: 3, Offset: 0, Limit: 20}) {
		t.Errorf("default pagination %+v", pagination)
	}
}

func TestPaginationLimitIsClamped(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	var list kakaocloud.ListFlavorsResponse
	h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathFlavors+"?limit=5000", nil, http.StatusOK, &list)
	if list.Pagination.Limit != 1000 || len(list.Flavors) != 24 {
		t.Errorf("pagination %+v with %d flavors; want limit clamped to 1000", list.Pagination, len(list.Flavors))
	}
}

func TestPaginationEmptyPageIsAnEmptyList(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	resp := h.apiOK(http.MethodGet, "/bcs"+kakaocloud.PathInstances+"?offset=5", nil, http.StatusOK, nil)
	if !strings.Contains(string(resp.body), `"instances":[]`) {
		t.Errorf("body %s; want an empty list, not null", resp.body)
	}
}

func TestPaginationBadValues(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	lists := []string{
		"/bcs" + kakaocloud.PathInstances,
		"/bcs" + kakaocloud.PathFlavors,
		"/image" + kakaocloud.PathImages,
		"/vpc" + kakaocloud.PathSubnets,
		"/network" + kakaocloud.PathSecurityGroups,
	}
	tests := []struct {
		query       string
		wantMessage string
	}{
		{"limit=ten", `limit "ten" must be a positive integer`},
		{"limit=-1", `limit "-1" must be a positive integer`},
		{"limit=0", `limit "0" must be a positive integer`},
		{"offset=-5", `offset "-5" must be a non-negative integer`},
		{"offset=1.5", `offset "1.5" must be a non-negative integer`},
		{"sort_keys=id", `sort_keys "id" is not supported`},
		{"sort_dirs=up", `sort_dirs "up" is not supported`},
	}
	for _, list := range lists {
		for _, tt := range tests {
			t.Run(list+"?"+tt.query, func(t *testing.T) {
				wantError(t, h.api(http.MethodGet, list+"?"+tt.query, nil), http.StatusBadRequest, "BadRequest", tt.wantMessage)
			})
		}
	}
}
