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

// Package nodepool holds the NodePool rules more than one package applies: the template hash
// NodeClaims are stamped with at launch (Hash, upstream's, under upstream's HashVersion), and
// the static drift of a NodeClaim from its NodePool as it is now (StaticDrift: the stamped
// hash, then the requirements against the node's labels). The NodePool controller stamps the
// hash, the NodeClaim conditions controller sets Drifted from the drift, and whatif tells
// which NodeClaims an edited NodePool would drift.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/scheduling.
package nodepool
