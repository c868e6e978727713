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

// Package node publishes upstream Karpenter's node and cluster metrics every few seconds: each
// node's allocatable, overhead, pod and DaemonSet requests and limits, and age, labelled with
// the node's well-known labels; the cluster's utilization; and how many nodes the operator's
// view of the cluster holds and whether that view has synced.
//
// Of this project it imports api/karpenter/v1, internal/metrics, internal/utils/pod,
// internal/utils/resources, internal/utils/singleton.
package node
