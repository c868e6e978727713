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

// Package bootstrap writes the user data that makes a KakaoCloud VM join the cluster as the
// node of its NodeClaim: a short-lived bootstrap token, the cluster's endpoint and CA, and the
// kubelet flags that register the node with the NodeClaim's labels and taints (the
// karpenter.sh/unregistered taint among them). How KakaoCloud's worker images start the
// kubelet is not documented; the script's assumptions are listed in docs/assumptions.md (A19).
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/cloudprovider,
// internal/instancetype, internal/kakaocloud, internal/signing, internal/utils/resources.
package bootstrap
