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

// Package status serves, for NodeClaims, NodePools, nodes and KCNodeClasses, the
// operator_<kind>_status_condition_* and operator_<kind>_termination_* metric families that
// upstream Karpenter v1.15 gets from operatorpkg's status controller, under the same names,
// types, labels and buckets, so that dashboards and alerts written for upstream read them
// unchanged; for NodeClaims and NodePools also the older operator_status_condition_* and
// operator_termination_* families, labelled with group and kind instead. One generic
// Reconciler per kind reads the object's conditions through a small adapter, remembers what
// it reported last (in memory only) to see a condition change status, and drops an object's
// series once the object is gone.
//
// Of this project it imports api/kakaocloud/v1, api/karpenter/v1, internal/metrics.
package status
