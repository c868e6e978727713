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

// Package health is the legacy node repair controller, run only with --legacy-node-repair: it
// deletes the NodeClaim of a node unhealthy past its repair policy's toleration with its
// terminationGracePeriod already over, without budgets, as node repair did before upstream
// Karpenter v1.15, unless its NodePool's circuit breaker holds repair; and says which, in
// events. What makes a node unhealthy and whether the breaker holds are internal/repair's, which
// the disruption loop's repair method, the default, reads too.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/repair, internal/utils/node, internal/utils/nodeclaim, internal/utils/pod.
package health
