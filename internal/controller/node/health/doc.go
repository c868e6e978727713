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

// Package health is what makes a node unhealthy, and the legacy repair controller. Evaluate
// finds the cloud provider's repair policy a registered node meets past its toleration
// (NotReady too long; a VM KakaoCloud reports failed or stopped), and Breaker whether a
// NodePool's circuit breaker holds repair (more of its nodes than its repair.maxUnhealthy
// unhealthy at once): the disruption loop's repair method reads both. The Reconciler of this
// package runs only with --legacy-node-repair: it deletes an unhealthy node's NodeClaim with
// its terminationGracePeriod already over, without budgets, as node repair did before
// upstream Karpenter v1.15.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/utils/nodeclaim, internal/utils/pod, internal/utils/result.
package health
