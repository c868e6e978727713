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
	"strings"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// catalogListing serves one kind of catalog entry (flavors, images, subnets, security groups)
// through its service's list and get operations. The catalog's entries never change after
// New, so they are read without the lock.
type catalogListing[T any] struct {
	listOp, getOp string
	service, path string
	// kind names an entry in the get's not-found message.
	kind    string
	entries func(*Catalog) []T
	id      func(T) string
	// name is filtered on, in every listing, and orders a list sorted by name.
	name func(T) string
	// nameContains filters on names that contain the query's name, as the instance listing
	// documents its own name filter; false filters on the exact name.
	nameContains bool
	// check rejects query parameters the filters cannot read; nil when every filter reads
	// any value.
	check func(url.Values) error
	// filters are the kind's own filters, besides name.
	filters []filter[T]
	// listAnswer and getAnswer wrap entries in the operation's response type.
	listAnswer func([]T, kakaocloud.Pagination) any
	getAnswer  func(T) any
}

// routes are the list operation at the kind's path and the get operation below it.
func (l catalogListing[T]) routes() []operationRoute {
	return []operationRoute{
		{l.listOp, http.MethodGet, l.service, l.path, l.list},
		{l.getOp, http.MethodGet, l.service, l.path + "/{id}", l.get},
	}
}

// list serves the page of entries the query's filters and paging ask for.
func (l catalogListing[T]) list(e *Emulator, _ http.ResponseWriter, r *http.Request) (int, any, error) {
	query := r.URL.Query()
	if l.check != nil {
		if err := l.check(query); err != nil {
			return 0, nil, err
		}
	}
	byName := exact("name", l.name)
	if l.nameContains {
		byName = func(query url.Values, entry T) bool { return strings.Contains(l.name(entry), query.Get("name")) }
	}
	filters := append([]filter[T]{byName}, l.filters...)
	entries, pagination, err := listPage(query, l.entries(e.catalog), l.name, filters...)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, l.listAnswer(entries, pagination), nil
}

// get serves the entry with the path's id.
func (l catalogListing[T]) get(e *Emulator, _ http.ResponseWriter, r *http.Request) (int, any, error) {
	id := r.PathValue("id")
	entry, ok := findBy(l.entries(e.catalog), id, l.id)
	if !ok {
		return 0, nil, notFound("%s %q not found", l.kind, id)
	}
	return http.StatusOK, l.getAnswer(entry), nil
}
