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

// Package scheduling holds the requirements algebra the simulation (package simulation) and
// the controllers use to decide whether a pod, a NodePool, a NodeClaim and an instance type can
// be brought together, and the volumes pods use, as upstream Karpenter's pkg/scheduling does.
//
// A Requirement is the set of values one label key may take on a node, together with whether a
// node that does not carry the label at all satisfies it. Requirements maps keys to Requirement
// and is the conjunction of its members.
//
// Of this project it imports api/karpenter/v1.
package scheduling
