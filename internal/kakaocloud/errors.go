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
	// RetryAfter is the server's Retry-After, when it sent one.
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
// answer of KakaoCloud (transport failures, cancelled contexts).
func KindOf(err error) Kind {
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		return apiErr.Kind
	}
	return ""
}

// classify maps an HTTP status and error body to a Kind. KakaoCloud documents no error
// codes for quota or capacity failures; they are recognised from the code and message text
// (docs/assumptions.md).
func classify(status int, code, message string) Kind {
	text := strings.ToLower(code + " " + message)
	switch {
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case strings.Contains(text, "quota"):
		return ErrQuotaExceeded
	case IsCapacityMessage(text):
		return ErrInsufficientCapacity
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		return ErrBadRequest
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusForbidden:
		return ErrForbidden
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusConflict:
		return ErrConflict
	case status >= 500:
		return ErrServer
	}
	return ErrUnknown
}

// IsCapacityMessage reports whether a failure message (an error body or the action log of
// an instance that went to error) says the cloud had no capacity for the request.
func IsCapacityMessage(message string) bool {
	text := strings.ToLower(message)
	for _, s := range []string{"no valid host", "insufficient", "not enough hosts", "out of capacity"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
