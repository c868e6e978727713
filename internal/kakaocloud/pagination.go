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
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
)

// maxListPages bounds a listing: a server whose pagination never ends (a total that keeps
// ahead of the pages, pages that do not advance) would otherwise keep the client reading.
// 1,000 pages of 100 is far more VMs than a cluster's listing holds.
const maxListPages = 1000

// listAll reads every page of a paginated list. page decodes one answer into its items and
// its pagination block.
func listAll[T any, P any](ctx context.Context, c *Client, cl call, page func(*P) ([]T, Pagination)) ([]T, error) {
	var all []T
	for offset, pages := 0, 0; ; pages++ {
		if pages == maxListPages {
			return nil, fmt.Errorf("kakaocloud %s.%s: the listing did not end after %d pages (%d items; the last page reported a total of more)",
				cl.service, cl.operation, maxListPages, len(all))
		}
		q := url.Values{}
		maps.Copy(q, cl.query)
		q.Set("limit", strconv.Itoa(c.pageSize))
		q.Set("offset", strconv.Itoa(offset))
		// Oldest first: an item created while the pages are read goes to the end, rather than
		// pushing every later page back by one as the default, newest first, does.
		q.Set("sort_keys", "created_at")
		q.Set("sort_dirs", "asc")
		pc := cl
		pc.method, pc.query, pc.idempotent = http.MethodGet, q, true
		var resp P
		if _, err := c.do(ctx, pc, &resp); err != nil {
			return nil, err
		}
		items, p := page(&resp)
		all = append(all, items...)
		offset += len(items)
		// Stop at the reported total, or at a short page when the server reports none.
		if len(items) == 0 || (p.Total > 0 && offset >= p.Total) || (p.Total == 0 && len(items) < c.pageSize) {
			return all, nil
		}
	}
}

// filter builds query parameters from name/value pairs, leaving out empty values.
func filter(pairs ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	return q
}

// getOne is an idempotent GET answered at once (cl's method is set here): one object, or a
// list the API does not page. Its answer of type P is unwrapped by pick; an error comes back
// with the zero value.
func getOne[T any, P any](ctx context.Context, c *Client, cl call, pick func(*P) T) (T, error) {
	var resp P
	cl.method, cl.idempotent = http.MethodGet, true
	if _, err := c.do(ctx, cl, &resp); err != nil {
		var zero T
		return zero, err
	}
	return pick(&resp), nil
}
