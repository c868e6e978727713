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

package simulation

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// The cluster's nodes and NodeClaims in flight as the simulation places pods on them, from the
// one model of capacity provisioning and disruption share (package state).

// NodeCapacity is a node as a place pods may land: its allocatable, what the pods bound to it
// already request, the taints a pod must tolerate there (SchedulingTaints) and its volume
// attach limits. nodeClaim is the node's NodeClaim, nil for a node Karpenter does not manage;
// csiNode its CSINode, nil when it has none.
func NodeCapacity(node *corev1.Node, nodeClaim *karpv1.NodeClaim, csiNode *storagev1.CSINode, pods []*corev1.Pod) ExistingNode {
	return ExistingNode{
		ID: destination.OfNode(node), Labels: node.Labels, Taints: state.SchedulingTaints(node, nodeClaim), Unschedulable: node.Spec.Unschedulable,
		Allocatable: node.Status.Allocatable, Requested: state.Requests(pods), Pods: pods, VolumeLimits: VolumeLimits(csiNode),
	}
}

// InFlightCapacity is a NodeClaim whose node has not registered yet as a place pods may land,
// sized by what it was launched for: its allocatable once launched; before, what it was
// created for, shaped by its requirements (its zone, type and labels are not decided until
// launch). Counting it is what keeps a pod that waits for its node from causing a second
// NodeClaim.
func InFlightCapacity(nodeClaim *karpv1.NodeClaim) ExistingNode {
	node := ExistingNode{ID: destination.OfNodeClaim(nodeClaim), Labels: nodeClaim.Labels, Taints: nodeClaim.Spec.Taints, Allocatable: nodeClaim.Status.Allocatable}
	if len(node.Allocatable) == 0 {
		node.Allocatable = nodeClaim.Spec.Resources.Requests
		node.Requirements = scheduling.FromNodeClaimRequirements(nodeClaim.Spec.Requirements...)
		node.Requirements.Add(scheduling.FromLabels(nodeClaim.Labels).Values()...)
	}
	return node
}
