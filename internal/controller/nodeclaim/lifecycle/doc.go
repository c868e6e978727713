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

// Package lifecycle drives a NodeClaim from request to node and back: launch the VM, wait for
// its node to register and initialize, give up on VMs that never come up, and on deletion
// drain the node, delete the VM and confirm it gone before letting the NodeClaim go.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/state, internal/utils/conditions, internal/utils/index, internal/utils/node,
// internal/utils/nodeclaim, internal/utils/pod, internal/utils/result, internal/utils/uidcache.
package lifecycle
