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

// Package expiration deletes a NodeClaim whose expireAfter has elapsed since it was created,
// as upstream Karpenter does: expiry is not a disruption method, so no disruption budget holds
// it; the node's termination drains it, honouring PodDisruptionBudgets until
// terminationGracePeriod runs out.
//
// Of this project it imports api/karpenter/v1, internal/metrics, internal/utils/nodeclaim,
// internal/utils/pod.
package expiration
