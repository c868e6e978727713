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

// Package static keeps a static NodePool (spec.replicas set, upstream Karpenter's static
// capacity) at its replica count: NodeClaims are created from its template, with every
// instance type it allows, while it has fewer (within limits.nodes), and the surplus is deleted
// when it has more (NodeClaims not launched first, then empty nodes, then the nodes with the
// fewest pods). Pods never cause a static NodePool's nodes (provisioning leaves the NodePool
// out) and consolidation never removes them; drift, expiry and repair replace them.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/simulation, internal/state, internal/utils/index, internal/utils/nodeclaim,
// internal/utils/pod.
package static
