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

// Package provisioning turns pods that cannot be scheduled into NodeClaims: it batches pending
// pods, simulates where they would go (existing nodes, NodeClaims in flight, new NodeClaims of
// the cheapest fitting instance types), creates the new NodeClaims and says, on each pod it
// cannot place, why.
//
// Of this project it imports api/autoscaling/v1beta1, api/karpenter/v1, internal/capacitybuffer,
// internal/cloudprovider, internal/metrics, internal/scheduling, internal/simulation,
// internal/state, internal/utils/destination, internal/utils/pod, internal/utils/pretty.
package provisioning
