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

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// resolveEndpoints serves the configuration service's GET /api/v1/client-endpoints/resolve:
// the endpoints of every service for the caller's token, which here are the emulator's own,
// at the address the request came to.
func (e *Emulator) resolveEndpoints(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	endpoints := e.Endpoints(scheme + "://" + r.Host)
	delete(endpoints, kakaocloud.ServiceConfig)
	return http.StatusOK, kakaocloud.ClientEndpointResponse{
		Success: true,
		Data:    &kakaocloud.ClientEndpoint{ID: "emulator", ServiceEndpoints: endpoints, Priority: 1},
	}, nil
}
