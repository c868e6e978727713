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

// Package nodepool keeps a NodePool's status and annotations current: the template hash its
// NodeClaims are compared with for drift, the resources and node count it has launched, and
// the conditions that say whether it can launch (its node class is ready, its spec passes the
// checks CEL cannot make) and whether the nodes it launched lately registered
// (NodeRegistrationHealthy, from the outcomes the NodeClaim lifecycle records in
// state.RegistrationHealth).
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/cloudprovider,
// internal/metrics, internal/nodepool, internal/state, internal/utils/conditions,
// internal/utils/nodeclaim, internal/utils/resources.
package nodepool
