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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// maxRequestBodyBytes bounds request bodies; the largest real one, a create with 16 KiB of
// user data, is far below it.
const maxRequestBodyBytes = 1 << 20

// apiError is an error answer: its status, its wire code and a message that says exactly what
// was wrong, and for faults the Retry-After to send.
type apiError struct {
	status     int
	code       string
	message    string
	retryAfter time.Duration
}

func (e *apiError) Error() string { return e.message }

// newError returns an *apiError whose code is the status text without spaces ("NotFound",
// "BadRequest"), the form KakaoCloud's string codes take.
func newError(status int, format string, args ...any) error {
	return &apiError{status: status, code: statusCode(status), message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return newError(http.StatusBadRequest, format, args...)
}

func notFound(format string, args ...any) error {
	return newError(http.StatusNotFound, format, args...)
}

func statusCode(status int) string {
	if text := http.StatusText(status); text != "" {
		return strings.ReplaceAll(text, " ", "")
	}
	return "Error"
}

// keystoneErrorResponse is IAM's error body, whose code is the numeric status. The wire
// ErrorResponse reads it (its ErrorCode accepts numbers) but always writes a string code,
// so the emulator writes this shape itself.
type keystoneErrorResponse struct {
	Error keystoneError `json:"error"`
}

type keystoneError struct {
	Code    int    `json:"code"`
	Title   string `json:"title"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set(headerContentType, mediaTypeJSON)
	w.WriteHeader(status)
	if body != nil {
		// The status is sent; an encoding error can only be a broken connection.
		_ = json.NewEncoder(w).Encode(body)
	}
}

// writeError writes err in the wire error shape, the Keystone one for IAM.
func writeError(w http.ResponseWriter, err error, keystone bool) {
	var apiErr *apiError
	if !errors.As(err, &apiErr) {
		apiErr = &apiError{status: http.StatusInternalServerError, code: statusCode(http.StatusInternalServerError), message: err.Error()}
	}
	if apiErr.retryAfter > 0 {
		seconds := int(math.Ceil(apiErr.retryAfter.Seconds()))
		w.Header().Set(kakaocloud.HeaderRetryAfter, strconv.Itoa(seconds))
	}
	if keystone {
		writeJSON(w, apiErr.status, keystoneErrorResponse{Error: keystoneError{
			Code: apiErr.status, Title: http.StatusText(apiErr.status), Message: apiErr.message,
		}})
		return
	}
	writeJSON(w, apiErr.status, kakaocloud.ErrorResponse{Error: kakaocloud.ErrorDetail{
		Code: kakaocloud.ErrorCode(apiErr.code), Message: apiErr.message,
	}})
}

// decodeBody reads a JSON request body into v; any problem is a 400 that says what it was.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	decoder := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBodyBytes))
	if err := decoder.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.Is(err, io.EOF):
			return badRequest("the request body is empty; a JSON object is required")
		case errors.As(err, &tooLarge):
			return newError(http.StatusRequestEntityTooLarge, "the request body exceeds %d bytes", tooLarge.Limit)
		default:
			return badRequest("the request body is not valid JSON: %v", err)
		}
	}
	if decoder.More() {
		return badRequest("the request body has data after its JSON object")
	}
	return nil
}
