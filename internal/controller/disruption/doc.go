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

// Package disruption replaces or removes nodes that are unhealthy, drifted, emptied or
// underused, one budget at a time, without breaking PodDisruptionBudgets, and says what holds
// the nodes it leaves alone.
//
// The disruption controller, a singleton loop, takes a snapshot of the cluster every few
// seconds, tries the methods in order (repair, emptiness, drift, multi-node consolidation,
// single-node consolidation; see Snapshot.Decide, which is pure), decides more independent
// consolidation moves in the same pass (DecideBatch), re-validates them after one delay, and
// carries the commands out: taint, launch replacements, wait for them to initialize, delete. It reads the NodeClaim conditions that internal/controller/nodeclaim/
// disruption keeps (Drifted, Consolidatable); expiry is internal/controller/nodeclaim/
// expiration's. It never imports a cloud provider's implementation, only the cloudprovider
// interface.
//
// Of this project it imports api/karpenter/v1, internal/capacitybuffer, internal/cloudprovider,
// internal/events, internal/metrics, internal/repair, internal/scheduling, internal/simulation,
// internal/state, internal/utils/conditions, internal/utils/destination, internal/utils/labelindex,
// internal/utils/node, internal/utils/nodeclaim, internal/utils/pod, internal/utils/pretty,
// internal/utils/resources, internal/volumetopology.
package disruption
