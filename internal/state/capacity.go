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

package state

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// The one model of capacity provisioning and disruption share: where pods may land without a
// new NodeClaim, and how much of its limits a NodePool has left. Provisioning places pending
// pods on it; disruption places the pods of the nodes it would remove. Were they to count
// differently, one would launch what the other then removes.

// Held is what a NodeClaim holds of its NodePool's limits: its capacity once launched, and one
// of limits.nodes. Before launch it holds, resource by resource, the most any instance type of
// types its requirements allow could bring: the run that opened it charged that much, and a
// later run that charged less would see room the launch may take, and balance spreads over
// domains the first run could not reach. With none of types allowed (its NodePool's types are
// not known), what it was created for.
func Held(nodeClaim *karpv1.NodeClaim, types []*cloudprovider.InstanceType) corev1.ResourceList {
	held := nodeClaim.Status.Capacity
	if len(held) == 0 {
		held = mostAllowed(nodeClaim, types)
	}
	if len(held) == 0 {
		held = nodeClaim.Spec.Resources.Requests
	}
	return resources.Merge(held, corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("1")})
}

// mostAllowed is the per-resource maximum capacity of the types a NodeClaim's requirements
// allow; nil when they allow none.
func mostAllowed(nodeClaim *karpv1.NodeClaim, types []*cloudprovider.InstanceType) corev1.ResourceList {
	reqs := scheduling.FromNodeClaimRequirements(nodeClaim.Spec.Requirements...)
	var capacities []corev1.ResourceList
	for _, it := range types {
		if reqs.IsIntersecting(scheduling.FromLabels(it.Labels)) {
			capacities = append(capacities, it.Capacity)
		}
	}
	if len(capacities) == 0 {
		return nil
	}
	return resources.Max(capacities...)
}

// LimitsLeft is np's limits minus what its NodeClaims that are not being deleted hold (types
// are np's instance types); nil when it has no limits. Only the limited resources are counted.
func LimitsLeft(np *karpv1.NodePool, nodeClaims []*karpv1.NodeClaim, types []*cloudprovider.InstanceType) corev1.ResourceList {
	if len(np.Spec.Limits) == 0 {
		return nil
	}
	left := corev1.ResourceList(np.Spec.Limits).DeepCopy()
	for _, nodeClaim := range nodeClaims {
		if nodeClaim.Labels[karpv1.LabelNodePool] == np.Name && nodeClaim.DeletionTimestamp.IsZero() {
			resources.SubtractFrom(left, Held(nodeClaim, types))
		}
	}
	return left
}

// SchedulingTaints are the taints pods must tolerate to be counted on the node. A node
// Karpenter launched that is not initialized yet still carries the taints of its start (the
// ephemeral ones, its NodeClaim's startup taints): they go before pods can run, and the pods
// it was launched for wait for it, so they are not counted, as upstream Karpenter does not
// count them. Counting them would launch a second node for the same pods.
func SchedulingTaints(node *corev1.Node, nodeClaim *karpv1.NodeClaim) []corev1.Taint {
	if nodeClaim == nil || node.Labels[karpv1.LabelInitialized] == "true" {
		return node.Spec.Taints
	}
	return slices.DeleteFunc(slices.Clone(node.Spec.Taints), func(t corev1.Taint) bool {
		return karpv1.IsEphemeralTaint(t) || slices.ContainsFunc(nodeClaim.Spec.StartupTaints, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
	})
}

// Requests is what pods request together, as the scheduler counts a pod's requests: each
// takes one of the node's pods besides, or a node full of small pods would look empty.
func Requests(pods []*corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, pod := range pods {
		resources.AddTo(out, resources.PodRequests(pod))
	}
	if len(pods) > 0 {
		out[corev1.ResourcePods] = *resource.NewQuantity(int64(len(pods)), resource.DecimalSI)
	}
	return out
}
