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

// Package nodeclaim holds the one rule for writing a NodeClaim that several controllers
// write: every patch carries the resourceVersion it was computed from, and every delete the
// UID of the NodeClaim it means; and when a NodeClaim's consolidateAfter ends, which its
// Consolidatable condition and the disruption loop's simulations both read.
//
// Of this project it imports api/karpenter/v1, internal/utils/conditions.
package nodeclaim
