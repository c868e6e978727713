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

// Package repair holds node repair's policies, which the disruption loop's repair method and
// the legacy repair controller (internal/controller/node/health, run only with
// --legacy-node-repair) both act on. Assess, pure, finds the cloud provider's repair policy a
// registered node meets past its toleration (NotReady too long; a VM KakaoCloud reports failed
// or stopped), or how long until the node should be looked at again; Evaluate is Assess with
// the one read it may need, the VM's state. MeetsAPolicy is how the circuit breaker counts a
// node unhealthy and Breaker, pure, whether it holds repair in a NodePool (more of its nodes
// than its repair.maxUnhealthy unhealthy at once); Held lists the NodePool's nodes for it. It
// also owns the event reasons both repairers publish and
// karpenter_nodeclaims_unhealthy_disrupted_total, which both count their repairs in
// (RecordRepair).
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/utils/node, internal/utils/result.
package repair
