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
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

// Builder builds what a provisioning pass simulates: the provisioner's input, and whatif's on
// an edited copy of the cluster.
type Builder struct {
	// Reader reads the workloads default topology spread is deduced from and the pods'
	// volumes.
	Reader client.Reader
	// InstanceTypes are a NodePool's instance types, as the cloud provider gives them.
	InstanceTypes func(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error)
	// Policies are --preference-policy and --min-values-policy.
	Policies Policies
	// SchedulerConfig is --scheduler-config: default topology spread constraints, nil when none.
	SchedulerConfig *SchedulerConfiguration
}

// Input is what a provisioning pass over pods simulates on cluster: ClusterInput with the
// NodePools' instance types, the default topology spread constraints added to the pods, the
// operator's policies and what the pods' volumes decide (WithVolumes). The pods whose volumes
// cannot be placed yet are left out and returned with why. It changes nothing: kubectl
// karpenter's whatif simulates the same pass on an edited copy of the cluster.
func (b Builder) Input(ctx context.Context, cluster *state.Cluster, pods []*corev1.Pod) (Input, []Waiting, error) {
	pods, err := WithClusterDefaultSpread(ctx, b.Reader, b.SchedulerConfig, pods)
	if err != nil {
		return Input{}, nil, fmt.Errorf("giving the pods the default topology spread constraints: %w", err)
	}
	input := ClusterInput(cluster, pods, NodePools(ctx, cluster, b.InstanceTypes))
	input.Policies = b.Policies
	waiting, err := b.volumes(ctx, &input)
	if err != nil {
		return Input{}, nil, err
	}
	return input, waiting, nil
}

// ClusterInput is what a provisioning pass simulates: the pods to place (PodsToPlace),
// every node and NodeClaim in flight they could go to or that counts for their topology, the
// daemonsets, namespace labels and the given NodePools. The nodes' volume attach limits come
// from their CSINodes; what the pods' volumes decide is added by the caller (WithVolumes).
func ClusterInput(cluster *state.Cluster, pods []*corev1.Pod, pools []NodePoolInput) Input {
	return Input{
		Pods: pods, NodePools: pools, ExistingNodes: existingCapacity(cluster, pods),
		DaemonSetPods: cluster.DaemonSetPods, NamespaceLabels: cluster.NamespaceLabels,
	}
}

// PodsToPlace are the pods a provisioning pass finds a place for: the provisionable pods,
// and, as upstream Karpenter's provisioner does, the pods that will have to leave nodes
// being deleted (state.DeletingNodePods). Placed while they still run, they get capacity
// when the deletion starts, sized for all of them; once evicted and pending again, they fit
// the NodeClaims in flight that were opened for them, and nothing launches twice.
func PodsToPlace(cluster *state.Cluster, now time.Time) []*corev1.Pod {
	return append(PendingPods(cluster), cluster.DeletingNodePods(now)...)
}

// PendingPods are the cluster's provisionable pods.
func PendingPods(cluster *state.Cluster) []*corev1.Pod {
	var pods []*corev1.Pod
	for _, pod := range cluster.Pods {
		if podutil.IsProvisionable(pod) {
			pods = append(pods, pod)
		}
	}
	return pods
}

// NodePools returns the NodePools with their instance types (from instanceTypes) and
// remaining limits; one that is not ready comes with the reason.
func NodePools(ctx context.Context, cluster *state.Cluster, instanceTypes func(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error)) []NodePoolInput {
	var out []NodePoolInput
	for _, np := range cluster.NodePools {
		// A static NodePool keeps spec.replicas nodes whatever the pods need: pods land on its
		// nodes, never cause one.
		if !np.DeletionTimestamp.IsZero() || np.Spec.Replicas != nil {
			continue
		}
		if !meta.IsStatusConditionTrue(np.Status.Conditions, karpv1.ConditionTypeReady) {
			// Kept in the run so that each pod's event names the NodePool and why it cannot
			// launch (most often its KCNodeClass is not ready).
			why := "its status is not computed yet"
			if c := meta.FindStatusCondition(np.Status.Conditions, karpv1.ConditionTypeReady); c != nil && c.Message != "" {
				why = c.Message
			}
			out = append(out, NodePoolInput{NodePool: np, Unavailable: "not ready: " + why})
			continue
		}
		its, err := instanceTypes(ctx, np)
		if err != nil {
			log.FromContext(ctx).Error(err, "skipping NodePool: cannot list its instance types", "NodePool", klog.KObj(np))
			continue
		}
		out = append(out, NodePoolInput{NodePool: np, InstanceTypes: its, Remaining: state.LimitsLeft(np, cluster.NodeClaims, its)})
	}
	return out
}

// existingCapacity is what pods may land on without a new NodeClaim: the managed nodes, with
// what their pods already request, and the NodeClaims still coming up, sized by what they
// were launched for. Counting the latter is what keeps a pod that waits for its node from
// causing a second NodeClaim. A pod being placed (one leaving a node being deleted) is not
// counted where it runs now: the kube-scheduler will see its replacement, not it.
func existingCapacity(cluster *state.Cluster, placing []*corev1.Pod) []ExistingNode {
	bound := cluster.BoundPods()
	// By name: the pods placed may be copies (given default topology spread constraints).
	moving := map[types.NamespacedName]bool{}
	for _, pod := range placing {
		if pod.Spec.NodeName != "" {
			moving[client.ObjectKeyFromObject(pod)] = true
		}
	}
	deleting := cluster.DeletingNodes()
	var out []ExistingNode
	registered := map[string]bool{}
	claims := make(map[string]*karpv1.NodeClaim, len(cluster.NodeClaims))
	for _, c := range cluster.NodeClaims {
		if c.Status.ProviderID != "" {
			claims[c.Status.ProviderID] = c
		}
	}
	for _, n := range cluster.Nodes {
		// Every node counts, managed or not: pods may land on any of them, and the pods on
		// them count for topology. A node on its way out keeps its NodeClaim from looking in
		// flight, and its pods still count where they run, but it takes no new pod.
		if n.Spec.ProviderID != "" {
			registered[n.Spec.ProviderID] = true
		}
		pods := bound[n.Name]
		if len(moving) > 0 {
			pods = slices.DeleteFunc(slices.Clone(pods), func(pod *corev1.Pod) bool { return moving[client.ObjectKeyFromObject(pod)] })
		}
		node := NodeCapacity(n, claims[n.Spec.ProviderID], cluster.CSINodes[n.Name], pods)
		node.TopologyOnly = deleting[n.Name] || nodeutil.HasTaint(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
		out = append(out, node)
	}
	for _, c := range cluster.NodeClaims {
		if c.DeletionTimestamp.IsZero() && (c.Status.ProviderID == "" || !registered[c.Status.ProviderID]) {
			out = append(out, InFlightCapacity(c))
		}
	}
	return out
}

// Waiting is a pod left out of a pass because its volumes cannot be placed yet, and why.
type Waiting struct {
	Pod *corev1.Pod
	Why string
}

// volumes adds to the pass's input what the pods' volumes decide (WithVolumes), read from
// the cache, and returns the pods left out with why.
func (b Builder) volumes(ctx context.Context, input *Input) ([]Waiting, error) {
	volumes, err := volumetopology.Load(ctx, b.Reader)
	if err != nil {
		return nil, fmt.Errorf("reading the pods' volumes: %w", err)
	}
	return WithVolumes(input, volumes), nil
}

// WithVolumes adds to a provisioning pass's input what the pods' volumes decide: where they
// keep each pod to place (VolumeRequirements), and the CSI volumes of those pods and of the
// pods of the existing nodes with attach limits (PodVolumes), which the limits count. The
// pods whose claims or volumes do not exist yet are taken out of the input and returned with
// why: the kube-scheduler cannot place them either.
func WithVolumes(input *Input, volumes *volumetopology.Volumes) []Waiting {
	var whys map[*corev1.Pod]string
	input.VolumeRequirements, input.PodVolumes, whys = volumes.Of(input.Pods)
	placeable := make([]*corev1.Pod, 0, len(input.Pods))
	var waiting []Waiting
	for _, pod := range input.Pods {
		if why, ok := whys[pod]; ok {
			waiting = append(waiting, Waiting{Pod: pod, Why: why})
			continue
		}
		placeable = append(placeable, pod)
	}
	input.Pods = placeable
	for _, node := range input.ExistingNodes {
		// Only a node with limits counts what its pods use.
		if len(node.VolumeLimits) > 0 && !node.TopologyOnly {
			volumes.AddCSIVolumes(input.PodVolumes, node.Pods)
		}
	}
	return waiting
}
