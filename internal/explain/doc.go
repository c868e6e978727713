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

// Package explain answers kubectl karpenter's "what if" questions inside the operator, where
// the instance types, their prices and the operator's policies are: what an edited NodePool or
// KCNodeClass would drift, launch and cost, and where a pod would land. It reads the manager's
// cache, simulates with provisioning's own input and the scheduling simulation, and changes
// nothing. Handler serves it on the webhook server as an aggregated API (group
// explain.karpenter.kakaocloud.com): the API server passes a question on for a user RBAC lets
// create whatifs, naming the user with its front-proxy client certificate, which FrontProxy
// verifies.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/cloudprovider,
// internal/nodepool, internal/simulation, internal/state, internal/utils/destination,
// internal/utils/pod.
package explain
