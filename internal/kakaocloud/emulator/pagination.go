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
	"slices"
	"strconv"
	"strings"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Paging of the BCS, Image, VPC and Network lists.
const (
	defaultPageLimit = 20
	// maxPageLimit is the emulator's guess at the server maximum (the official provider sends
	// 1000); larger limits are clamped to it, and the response says so in pagination.limit.
	maxPageLimit     = 1000
	sortKeyCreatedAt = "created_at"
	sortKeyName      = "name"
	sortDirAsc       = "asc"
	sortDirDesc      = "desc"
)

// pageRequest is a list call's paging and sorting.
type pageRequest struct {
	limit      int
	offset     int
	sortKey    string
	descending bool
}

// parsePageRequest reads limit, offset, sort_keys and sort_dirs, with the real API's
// defaults: 20 items from offset 0, newest first.
func parsePageRequest(query url.Values) (pageRequest, error) {
	page := pageRequest{limit: defaultPageLimit}
	if value := query.Get("limit"); value != "" {
		limit, err := strconv.Atoi(value)
		if err != nil || limit < 1 {
			return pageRequest{}, badRequest("limit %q must be a positive integer", value)
		}
		page.limit = min(limit, maxPageLimit)
	}
	if value := query.Get("offset"); value != "" {
		offset, err := strconv.Atoi(value)
		if err != nil || offset < 0 {
			return pageRequest{}, badRequest("offset %q must be a non-negative integer", value)
		}
		page.offset = offset
	}
	sortKey, err := queryChoice(query, "sort_keys", sortKeyCreatedAt, sortKeyCreatedAt, sortKeyName)
	if err != nil {
		return pageRequest{}, err
	}
	sortDir, err := queryChoice(query, "sort_dirs", sortDirDesc, sortDirAsc, sortDirDesc)
	if err != nil {
		return pageRequest{}, err
	}
	page.sortKey, page.descending = sortKey, sortDir == sortDirDesc
	return page, nil
}

// queryChoice reads query parameter key, which takes one of the choices, or is absent and then
// is fallback.
func queryChoice(query url.Values, key, fallback string, choices ...string) (string, error) {
	value := query.Get(key)
	switch {
	case value == "":
		return fallback, nil
	case slices.Contains(choices, value):
		return value, nil
	}
	return "", badRequest("%s %q is not supported; use %s", key, value, strings.Join(choices, " or "))
}

// paginate sorts items, given in creation order (catalog order for catalog entries), and
// cuts out the requested page; the total counts every item given.
func paginate[T any](items []T, page pageRequest, nameOf func(T) string) ([]T, kakaocloud.Pagination) {
	sorted := slices.Clone(items)
	if page.sortKey == sortKeyName {
		slices.SortStableFunc(sorted, func(a, b T) int { return strings.Compare(nameOf(a), nameOf(b)) })
	}
	if page.descending {
		slices.Reverse(sorted)
	}
	start := min(page.offset, len(sorted))
	end := min(start+page.limit, len(sorted))
	// A non-nil slice, so that an empty page is [] on the wire, not null.
	result := append(make([]T, 0, end-start), sorted[start:end]...)
	return result, kakaocloud.Pagination{Total: len(sorted), Offset: page.offset, Limit: page.limit}
}

// filter accepts an item of a listing, or not, by the listing's query.
type filter[T any] func(query url.Values, item T) bool

// exact is the filter of query parameter key: when given, it must equal the item's field.
func exact[T any](key string, field func(T) string) filter[T] {
	return func(query url.Values, item T) bool { return queryMatches(query, key, field(item)) }
}

// listPage serves a listing: the page the query asks for (ordered by nameOf when it sorts
// by name) of the items, in creation order, that every filter accepts.
func listPage[T any](query url.Values, items []T, nameOf func(T) string, filters ...filter[T]) ([]T, kakaocloud.Pagination, error) {
	page, err := parsePageRequest(query)
	if err != nil {
		return nil, kakaocloud.Pagination{}, err
	}
	kept := filterItems(items, func(item T) bool {
		return !slices.ContainsFunc(filters, func(f filter[T]) bool { return !f(query, item) })
	})
	list, pagination := paginate(kept, page, nameOf)
	return list, pagination, nil
}

// filterItems returns the items keep accepts, in order.
func filterItems[T any](items []T, keep func(T) bool) []T {
	var kept []T
	for _, item := range items {
		if keep(item) {
			kept = append(kept, item)
		}
	}
	return kept
}

// queryMatches reports whether a query parameter, if given, equals value.
func queryMatches(query url.Values, key, value string) bool {
	want := query.Get(key)
	return want == "" || want == value
}
