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

// Package state is the cluster as the controllers that decide about nodes see it. Provisioning
// and disruption each read it once per decision from the manager's shared informer cache, so
// both decide on the same objects: NodePools, NodeClaims (the ones in flight included, which
// keeps a pod that waits for its node from causing a second NodeClaim), nodes, pods, the pods
// each DaemonSet adds to a node, PodDisruptionBudgets, namespace labels and CSINodes (each
// node's volume attach limits). It also holds the one model of capacity both place pods on:
// nodes and NodeClaims in flight as places pods may land, and the limits each NodePool has
// left; and what controllers share that the API does not hold: whether each NodePool's latest
// nodes registered (RegistrationHealth), and when provisioning saw, decided about and placed
// each pending pod (PodSchedulingTimes).
//
// Of this project it imports api/karpenter/v1, internal/cloudprovider, internal/metrics,
// internal/scheduling, internal/utils/pod, internal/utils/resources.
package state
