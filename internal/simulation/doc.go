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

// Package simulation places pods as the kube-scheduler would, for provisioning and disruption
// alike (Schedule): on existing nodes, on NodeClaims in flight and on new NodeClaims of the
// cheapest instance types that fit, honouring requests, node selectors and affinity, taints,
// host ports, topology spread, pod (anti-)affinity, volume topology and attach limits, and the
// NodePools' weights, limits and minValues; test/conformance replays its placements through
// the kube-scheduler. It also builds what a provisioning pass simulates from the cluster as
// package state reads it (Builder, ClusterInput, PodsToPlace, NodeCapacity, InFlightCapacity),
// for the provisioner and for whatif alike. Schedule is pure; Builder reads the workloads
// default topology spread is deduced from and the pods' volumes. The requirements algebra is
// package scheduling's. The arrow runs simulation -> state, as upstream Karpenter's scheduler
// reads its cluster state.
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/scheduling, internal/state, internal/utils/destination, internal/utils/labelindex,
// internal/utils/node, internal/utils/pod, internal/utils/resources, internal/volumetopology.
package simulation
