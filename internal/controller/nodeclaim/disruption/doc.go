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

// Package disruption keeps the NodeClaim conditions the disruption loop reads: Drifted (the
// NodePool's template or requirements changed since launch, or the cloud provider finds the
// VM no longer matches its KCNodeClass) and Consolidatable (consolidateAfter has passed since
// the last pod event on the node). It decides nothing: the loop in internal/controller/disruption
// acts on the conditions. It knows the KakaoCloud drift reasons (cloudprovider/kakao) only to
// word their messages.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/cloudprovider,
// internal/nodepool, internal/utils/conditions, internal/utils/nodeclaim, internal/utils/result,
// internal/utils/uidcache.
package disruption
