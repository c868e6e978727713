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

// Package disruption is the disruption loop: it replaces or removes the nodes that the
// disruption decision (internal/disruption) picks, unhealthy, drifted, emptied or underused,
// and publishes what the decision says of the nodes it leaves alone.
//
// The loop, a singleton run on the leader, makes a pass every few seconds: it moves the
// commands under way on, reads the cluster into the decision's input (the cluster from the
// cache, each NodePool's instance types from the cloud provider, what repair finds unhealthy,
// what its commands have under way), lets the decision decide (or validate the consolidation
// moves it decided one validation delay ago), reports what was decided (events, metrics, the
// NodeClaims' DisruptionBlocked condition, the NodePools' status.disruptionBlocked), and
// carries the commands out: taint, launch the replacements, wait for them to initialize,
// delete. It reads the NodeClaim conditions that internal/controller/nodeclaim/disruption
// keeps (Drifted, Consolidatable); expiry is internal/controller/nodeclaim/expiration's. It
// never imports a cloud provider's implementation, only the cloudprovider interface.
//
// Of this project it imports api/karpenter/v1, internal/capacitybuffer, internal/cloudprovider,
// internal/disruption, internal/events, internal/metrics, internal/repair, internal/scheduling,
// internal/simulation, internal/state, internal/utils/conditions, internal/utils/destination,
// internal/utils/node, internal/utils/nodeclaim, internal/volumetopology.
package disruption
