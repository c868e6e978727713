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

// Package health is node repair: a registered node that one of the cloud provider's repair
// policies finds unhealthy past its toleration (NotReady too long; a VM KakaoCloud reports
// failed or stopped) has its NodeClaim deleted with its terminationGracePeriod already over,
// so that its pods are deleted without waiting on PodDisruptionBudgets and provisioned again
// elsewhere, as upstream Karpenter's node repair does. A circuit breaker holds repair in a
// NodePool while more of its nodes than its repair.maxUnhealthy are unhealthy at once.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/utils/nodeclaim, internal/utils/result.
package health
