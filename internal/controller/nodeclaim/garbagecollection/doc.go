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

// Package garbagecollection removes the NodeClaims whose VM is gone after their node registered (a
// VM deleted in the console, or by the cloud), as upstream Karpenter's NodeClaim garbage
// collection does: their pods then get a node again instead of waiting on a node that will
// never come back. VMs without a NodeClaim are the garbagecollection package's.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/utils/node,
// internal/utils/nodeclaim, internal/utils/singleton.
package garbagecollection
