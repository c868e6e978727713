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
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Kind classifies a failed call. Kinds are errors themselves, so callers test with
// errors.Is(err, kakaocloud.ErrNotFound).
type Kind string

func (k Kind) Error() string { return string(k) }

// Kinds of failure.
const (
	ErrBadRequest           Kind = "BadRequest"
	ErrUnauthorized         Kind = "Unauthorized"
	ErrForbidden            Kind = "Forbidden"
	ErrNotFound             Kind = "NotFound"
	ErrConflict             Kind = "Conflict"
	ErrRateLimited          Kind = "RateLimited"
	ErrQuotaExceeded        Kind = "QuotaExceeded"
	ErrInsufficientCapacity Kind = "InsufficientCapacity"
	ErrServer               Kind = "ServerError"
	ErrUnknown              Kind = "Unknown"
)

// APIError is a KakaoCloud answer other than 2xx.
type APIError struct {
	Service    string
	Operation  string
	StatusCode int
	Kind       Kind
	// Code and Message are the body's error.code and error.message.
	Code    string
	Message string
	// RetryAfter is the server's Retry-After, when it sent one, capped at the client's
	// Config.MaxRetryAfter.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("kakaocloud %s.%s: %d %s: %s", e.Service, e.Operation, e.StatusCode, e.Kind, msg)
}

// Is makes errors.Is(err, ErrNotFound) and friends work.
func (e *APIError) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && e.Kind == k
}

// KindOf returns the kind of a client error, or "" for errors that did not come from an
// answer of KakaoCloud (transport failures, cancelled contexts). A call the client refused to
// send, for its own rate limit, is of kind ErrRateLimited: it had no effect either.
func KindOf(err error) Kind {
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		return apiErr.Kind
	}
	if kind, ok := errors.AsType[Kind](err); ok {
		return kind
	}
	return ""
}

// RetryAfterOf returns how long a throttled call asks its caller to wait before trying again:
// the server's Retry-After (capped), or 0 when it gave none or err is not a throttled call.
func RetryAfterOf(err error) time.Duration {
	if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.Kind == ErrRateLimited {
		return apiErr.RetryAfter
	}
	return 0
}

// classify maps an HTTP status and error body to a Kind, by the status first. The official
// SDK's error model documents 400, 401, 403, 404, 409 and 500 for every operation, with an
// error.code string whose values it does not list; KakaoCloud documents no code or status
// for a quota or capacity refusal. So the text is read only within the statuses such a
// refusal can come with, each reading an assumption (docs/assumptions.md, A7):
//   - 401 and 404 say what they say, whatever the text;
//   - 5xx is a server error: the call may or may not have been carried out, and a quota
//     mentioned in it does not make it a definite refusal;
//   - 403 is a quota refusal when the text says quota (as OpenStack's compute API answers
//     one), else a refusal of the credentials' rights: "insufficient privileges" is not a
//     shortage of capacity;
//   - 400, 409, 413 and 422 are a quota or capacity refusal when the text says so, else the
//     request's fault (413 is how older OpenStack compute APIs refuse over quota).
//
//nolint:gocyclo // one case per HTTP status and wording KakaoCloud answers with, documented above as a table
func classify(status int, code, message string) Kind {
	text := strings.ToLower(code + " " + message)
	quota := strings.Contains(text, "quota")
	switch {
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusNotFound:
		return ErrNotFound
	case status >= 500:
		return ErrServer
	case status == http.StatusForbidden && quota:
		return ErrQuotaExceeded
	case status == http.StatusForbidden:
		return ErrForbidden
	case status >= 400 && quota:
		return ErrQuotaExceeded
	case status >= 400 && IsCapacityMessage(text):
		return ErrInsufficientCapacity
	case status == http.StatusConflict:
		return ErrConflict
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge || status == http.StatusUnprocessableEntity:
		return ErrBadRequest
	}
	return ErrUnknown
}

// capacityPhrases say the cloud had no capacity for a request: OpenStack's scheduler's "No
// valid host was found" and "not enough hosts", and the plain phrases of a shortage. A bare
// "insufficient" is not one: "insufficient privileges" and "insufficient disk for the image"
// are the caller's to fix, not a reason to try another zone.
var capacityPhrases = []string{
	"no valid host", "not enough hosts", "out of capacity",
	"insufficient capacity", "insufficient resources", "insufficient compute", "insufficient host",
}

// IsCapacityMessage reports whether a failure message (an error body or the action log of
// an instance that went to error) says the cloud had no capacity for the request.
func IsCapacityMessage(message string) bool {
	text := strings.ToLower(message)
	for _, phrase := range capacityPhrases {
		if strings.Contains(text, phrase) {
			return true
		}
	}
	return false
}
