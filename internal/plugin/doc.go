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

// Package plugin answers the questions of kubectl karpenter from the cluster's objects, read
// only, and from the operator's simulation: why a pod waits (where provisioning nominated it,
// read from its latest Nominated event's related object; or, when provisioning last found no
// place for it, why each NodePool refuses it, asking the operator's whatif about the pod as it
// is now), why a node is or is not being disrupted (its NodeClaim's conditions and the
// disruption loop's latest words on it), what a NodePool's budgets and limits allow now; and,
// asking the operator, which has the instance types and their prices, what an edit of a
// NodePool or KCNodeClass, or a new pod, would do. Decisions are read from structured state
// (conditions, event reasons and related objects, the simulation's answer); the notes of the
// operator's events are shown as they were written, never read.
//
// Of this project it imports api/karpenter/v1, internal/disruption, internal/explain,
// internal/simulation, internal/utils/destination, internal/utils/node, internal/utils/pod.
package plugin
