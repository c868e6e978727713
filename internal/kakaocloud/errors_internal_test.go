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
	"net/http"
	"testing"
)

// Every class, with the statuses the official SDK's error models document for every
// operation (400, 401, 403, 404, 409, 500) and those a gateway or an OpenStack compute API
// may add (413, 422, 429, 502, 503): the status decides first, the text only where a quota or
// capacity refusal could come with it.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		status        int
		code, message string
		want          Kind
	}{
		{http.StatusBadRequest, "BadRequest", "name must be 1 to 63 characters", ErrBadRequest},
		{http.StatusBadRequest, "BadRequest", "Quota exceeded for instances", ErrQuotaExceeded},
		{http.StatusBadRequest, "BadRequest", "Insufficient capacity for flavor m2a.large", ErrInsufficientCapacity},
		{http.StatusBadRequest, "BadRequest", "volume size insufficient for the image's min_disk", ErrBadRequest},
		{http.StatusUnauthorized, "Unauthorized", "The request you have made requires authentication", ErrUnauthorized},
		{http.StatusUnauthorized, "Unauthorized", "quota service unavailable", ErrUnauthorized},
		{http.StatusForbidden, "Forbidden", "Insufficient privileges to create an instance", ErrForbidden},
		{http.StatusForbidden, "Forbidden", "No valid host: not enough hosts", ErrForbidden},
		{http.StatusForbidden, "QuotaExceeded", "Quota exceeded for cores: Requested 4, but already used 20 of 20 cores", ErrQuotaExceeded},
		{http.StatusNotFound, "NotFound", "Instance could not be found", ErrNotFound},
		{http.StatusNotFound, "NotFound", "quota set not found", ErrNotFound},
		{http.StatusConflict, "Conflict", "Cannot delete the instance while it is in task_state spawning", ErrConflict},
		{http.StatusConflict, "Conflict", "No valid host was found. There are not enough hosts available.", ErrInsufficientCapacity},
		{http.StatusRequestEntityTooLarge, "", "Quota exceeded for ram", ErrQuotaExceeded},
		{http.StatusRequestEntityTooLarge, "", "user data too long", ErrBadRequest},
		{http.StatusUnprocessableEntity, "", "field required", ErrBadRequest},
		{http.StatusTooManyRequests, "TooManyRequests", "quota of requests per second exceeded", ErrRateLimited},
		{http.StatusInternalServerError, "InternalServerError", "quota service timed out", ErrServer},
		{http.StatusInternalServerError, "InternalServerError", "insufficient capacity", ErrServer},
		{http.StatusBadGateway, "", "", ErrServer},
		{http.StatusServiceUnavailable, "", "out of capacity", ErrServer},
		{http.StatusTeapot, "", "", ErrUnknown},
	} {
		if got := classify(tc.status, tc.code, tc.message); got != tc.want {
			t.Errorf("%d %s %q: %s, want %s", tc.status, tc.code, tc.message, got, tc.want)
		}
	}
}

func TestIsCapacityMessage(t *testing.T) {
	for message, want := range map[string]bool{
		"No valid host was found. There are not enough hosts available.":  true,
		"Insufficient compute resources: free memory 2048 MB < requested": true,
		"The cluster is out of capacity for this flavor":                  true,
		"Insufficient privileges":                                         false,
		"insufficient disk for the image's min_disk":                      false,
		"Build of instance aborted: Failed to allocate the network(s)":    false,
	} {
		if got := IsCapacityMessage(message); got != want {
			t.Errorf("IsCapacityMessage(%q) = %v, want %v", message, got, want)
		}
	}
}
