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

// Package destination names where provisioning and disruption put a pod: a node of the
// cluster, or a NodeClaim whose node has not registered yet. A Destination is typed (its kind,
// name and UID), so that no code builds a place's identity from text or reads it back from
// text; its String, upstream Karpenter's wording (node/NAME, nodeclaim/NAME), is for event
// notes and logs only. Object stands for it as an event's related object, and FromReference
// reads it back from one.
//
// Of this project it imports api/karpenter/v1.
package destination
