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

package disruption

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

// What a pass reads into the decision's input (engine.SnapshotInput).

// readInput reads what a decision needs: the cluster (state.Read, from the cache and never
// modified), each NodePool's instance types, what node repair finds unhealthy, and what the
// orchestration has under way.
func (c *Controller) readInput(ctx context.Context) (engine.SnapshotInput, error) {
	in := engine.SnapshotInput{Now: c.now(), InstanceTypes: map[string][]*cloudprovider.InstanceType{}, Policies: c.Policies}
	cluster, err := state.Read(ctx, c.Client)
	if err != nil {
		return in, fmt.Errorf("reading the cluster: %w", err)
	}
	in.NodePools, in.NodeClaims, in.Nodes = cluster.NodePools, cluster.NodeClaims, cluster.Nodes
	// The pods the simulations move are constrained as the kube-scheduler will constrain them.
	if in.Pods, err = simulation.WithClusterDefaultSpread(ctx, c.Client, c.SchedulerConfig, cluster.Pods); err != nil {
		return in, fmt.Errorf("giving the pods the default topology spread constraints: %w", err)
	}
	in.PDBs, in.DaemonSetPods, in.NamespaceLabels = cluster.PDBs, cluster.DaemonSetPods, cluster.NamespaceLabels
	if c.CapacityBuffers {
		var buffers []*corev1.Pod
		if _, buffers, err = capacitybuffer.ReadVirtualPods(ctx, c.Client); err != nil {
			return in, fmt.Errorf("reading the capacity buffers' pods: %w", err)
		}
		if in.BufferPods, err = simulation.WithClusterDefaultSpread(ctx, c.Client, c.SchedulerConfig, buffers); err != nil {
			return in, fmt.Errorf("giving the capacity buffers' pods the default topology spread constraints: %w", err)
		}
	}
	for _, np := range in.NodePools {
		types, err := c.CloudProvider.GetInstanceTypes(ctx, np)
		if err != nil {
			log.FromContext(ctx).Error(err, "listing instance types; the NodePool's nodes cannot be priced or replaced now", "NodePool", klog.KObj(np))
			continue
		}
		in.InstanceTypes[np.Name] = types
	}
	existing := sets.New[string]()
	for _, nodeClaim := range in.NodeClaims {
		existing.Insert(nodeClaim.Name)
	}
	if in.VolumeRequirements, in.PodVolumes, err = c.podVolumes(ctx, in.Pods); err != nil {
		return in, err
	}
	in.CSINodes = cluster.CSINodes
	if c.NodeRepair {
		if in.Repair, err = c.repairInput(ctx, in); err != nil {
			return in, err
		}
	}
	in.InFlight, in.Headed = c.orchestrator.inFlight(), c.orchestrator.headed()
	in.Deleted = c.orchestrator.deletedNodeClaims(existing)
	var headedFor sets.Set[destination.Destination]
	in.Nominated, headedFor = c.orchestrator.nominated(existing)
	in.Nominated.Insert(headedTo(in.NodeClaims, headedFor)...)
	return in, nil
}

// headedTo names the NodeClaims pods are headed for: those of the destinations, whether the
// pods were placed on the NodeClaim or on its node.
func headedTo(nodeClaims []*karpv1.NodeClaim, destinations sets.Set[destination.Destination]) []string {
	byKey := map[destination.Destination][]destination.Destination{}
	for d := range destinations {
		byKey[d.Key()] = append(byKey[d.Key()], d)
	}
	headed := func(d destination.Destination) bool { return slices.ContainsFunc(byKey[d.Key()], d.Same) }
	var out []string
	for _, nodeClaim := range nodeClaims {
		if (nodeClaim.Status.NodeName != "" && headed(destination.NodeNamed(nodeClaim.Status.NodeName))) || headed(destination.OfNodeClaim(nodeClaim)) {
			out = append(out, nodeClaim.Name)
		}
	}
	return out
}

// repairInput finds the nodes unhealthy past a repair policy's toleration and the NodePools
// whose circuit breaker holds repair. Only a node that meets a policy's condition costs a
// look at its VM's state.
//
//nolint:gocyclo // each NodeClaim goes through the repair policies' checks in order, the cheap ones before the call to KakaoCloud; split, the order would no longer show
func (c *Controller) repairInput(ctx context.Context, in engine.SnapshotInput) (*engine.RepairInput, error) {
	out := &engine.RepairInput{Unhealthy: map[string]repair.Finding{}, Held: map[string]string{}}
	policies := c.CloudProvider.RepairPolicies()
	total, unhealthy := map[string]int{}, map[string]int{}
	for _, node := range in.Nodes {
		if pool, ok := node.Labels[karpv1.LabelNodePool]; ok {
			total[pool]++
			if repair.MeetsAPolicy(policies, node) {
				unhealthy[pool]++
			}
		}
	}
	nodes := make(map[string]*corev1.Node, len(in.Nodes))
	for _, node := range in.Nodes {
		if node.Spec.ProviderID != "" {
			nodes[node.Spec.ProviderID] = node
		}
	}
	for _, nodeClaim := range in.NodeClaims {
		node := nodes[nodeClaim.Status.ProviderID]
		if node == nil || nodeClaim.Status.ProviderID == "" || !nodeClaim.DeletionTimestamp.IsZero() || !repair.MeetsAPolicy(policies, node) {
			continue
		}
		found, _, err := repair.Evaluate(ctx, c.CloudProvider, node, nodeClaim, in.Now)
		if err != nil {
			return nil, fmt.Errorf("evaluating the health of node %s: %w", node.Name, err)
		}
		if found != nil {
			out.Unhealthy[nodeClaim.Name] = *found
		}
	}
	for _, np := range in.NodePools {
		why, err := repair.Breaker(np, total[np.Name], unhealthy[np.Name])
		if err != nil {
			why = "repair is held: " + err.Error()
		}
		if why != "" {
			out.Held[np.Name] = why
		}
	}
	return out, nil
}

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// podVolumes says where the pods' persistent volumes keep them (SnapshotInput's
// VolumeRequirements), and which CSI volumes they use (PodVolumes: which nodes' attach limits
// count), from the volumes of the pods that have claims; nothing is read when no pod has one.
// A pod whose claim does not exist yet is not kept anywhere by it.
func (c *Controller) podVolumes(ctx context.Context, pods []*corev1.Pod) (map[*corev1.Pod]scheduling.Requirements, map[*corev1.Pod]scheduling.VolumeUsage, error) {
	withClaims := slices.DeleteFunc(slices.Clone(pods), func(pod *corev1.Pod) bool {
		return !slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil || v.Ephemeral != nil })
	})
	if len(withClaims) == 0 {
		return map[*corev1.Pod]scheduling.Requirements{}, map[*corev1.Pod]scheduling.VolumeUsage{}, nil
	}
	volumes, err := volumetopology.Load(ctx, c.Client)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the pods' volumes: %w", err)
	}
	reqs, used, _ := volumes.Of(withClaims)
	return reqs, used, nil
}
