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
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// dest is somewhere pods may be moved to: a node, or a NodeClaim still coming up.
type dest struct {
	existing simulation.ExistingNode
	node     *StateNode // nil for nodes Karpenter does not manage
	freeCPU  int64      // millicores
	freeMem  int64      // bytes
	freePods int64
	// settling is a managed node within its NodePool's consolidateAfter: consolidation does
	// not move pods there (Snapshot.destinations).
	settling bool
}

// buildDests lists where pods may be moved to: managed nodes that stay, NodeClaims still
// coming up (sized by what they were launched for, as provisioning counts them), and nodes of
// the cluster Karpenter does not manage, emptiest first.
//
//nolint:gocyclo // the three kinds of destination (managed nodes, NodeClaims in flight, unmanaged nodes) with the rules that keep each out, in one place so that none is counted twice
func (s *Snapshot) buildDests(nodes []*corev1.Node, managed sets.Set[string], podsByNode map[string][]*corev1.Pod) {
	add := func(d *dest) {
		free := d.existing.Allocatable.DeepCopy()
		resources.SubtractFrom(free, d.existing.Requested)
		d.freeCPU = free.Cpu().MilliValue()
		d.freeMem = free.Memory().Value()
		d.freePods = free.Pods().Value()
		if _, ok := d.existing.Allocatable[corev1.ResourcePods]; !ok {
			d.freePods = 110
			if d.existing.ID.Kind == destination.Node {
				d.freePods -= int64(len(podsByNode[d.existing.ID.Name]))
			}
		}
		s.dests = append(s.dests, d)
	}
	bystander := func(node *corev1.Node, pods []*corev1.Pod) {
		if len(pods) > 0 {
			s.bystanders = append(s.bystanders, simulation.ExistingNode{ID: destination.OfNode(node), Labels: node.Labels, Taints: node.Spec.Taints,
				Unschedulable: node.Spec.Unschedulable, Allocatable: node.Status.Allocatable, Pods: pods, TopologyOnly: true})
		}
	}
	for _, n := range s.nodes {
		if n.deleting() || n.tainted() || n.inFlight || (n.Node != nil && n.Node.Spec.Unschedulable) {
			if n.Node != nil {
				bystander(n.Node, n.Pods)
			}
			continue
		}
		d := &dest{node: n, existing: simulation.InFlightCapacity(n.NodeClaim), settling: n.settling(s.now)}
		if n.Node != nil {
			d.existing = simulation.NodeCapacity(n.Node, n.NodeClaim, s.csiNodes[n.Node.Name], n.Pods)
		}
		n.dest = d
		if !n.initialized() {
			s.uninitialized.Insert(d.existing.ID)
		}
		add(d)
	}
	for _, node := range nodes {
		if managed.Has(node.Name) {
			continue
		}
		if node.Spec.Unschedulable || !node.DeletionTimestamp.IsZero() || hasDisruptedTaint(node) {
			bystander(node, podsByNode[node.Name])
			continue
		}
		add(&dest{existing: simulation.NodeCapacity(node, nil, s.csiNodes[node.Name], podsByNode[node.Name])})
	}
	s.sortDests()
}

func (s *Snapshot) sortDests() {
	slices.SortStableFunc(s.dests, func(a, b *dest) int {
		return cmp.Or(cmp.Compare(b.freeCPU, a.freeCPU), cmp.Compare(b.freeMem, a.freeMem), destination.Compare(a.existing.ID, b.existing.ID))
	})
}

// nominate places the pending pods as the scheduler and provisioning would, and reserves the
// room they take: a node pods are about to land on is neither empty nor spare capacity.
// Pending pods are those not bound yet and those of nodes being deleted.
func (s *Snapshot) nominate() {
	placed, waiting := s.reserve(s.pending)
	for d := range placed {
		if d.node != nil {
			d.node.nominated = true
		}
	}
	s.waiting = waiting
}

// holdBuffers places the CapacityBuffers' virtual pods after the pending pods, as provisioning
// does, reserves the room they take, and has each node one lands on run it: for the methods
// it is one of the node's pods, so the node is not empty, consolidation moves it only where it
// fits, and drift launches room for it, as upstream keeps a buffer's capacity. Unlike a pending
// pod's, it does not take the node off the candidates: the pod is there again every pass and
// would hold the node forever. Those that fit no node are provisioning's to launch for.
func (s *Snapshot) holdBuffers(pods []*corev1.Pod) {
	byDest, _ := s.reserve(pods)
	for d, placed := range byDest {
		if d.node != nil && d.node.Node != nil {
			d.node.Pods = append(d.node.Pods, placed...)
		}
	}
}

// reserve places pods on the destinations and takes the room they need there, and counts the
// pods that fit none of them (those a new NodeClaim would take). Only their room is reserved:
// for topology the pods count where they are bound now (a node being deleted) or nowhere yet
// (unbound or virtual), as the kube-scheduler counts them.
func (s *Snapshot) reserve(pods []*corev1.Pod) (map[*dest][]*corev1.Pod, int) {
	if len(pods) == 0 {
		return nil, 0
	}
	res := simulation.Schedule(s.input(pods, s.allDests(), nil))
	byKey := s.destsByKey()
	out := map[*dest][]*corev1.Pod{}
	for id, placed := range res.ExistingPlacements {
		d := byKey.of(id)
		if d == nil {
			continue
		}
		d.take(placed)
		out[d] = placed
	}
	s.sortDests()
	needNode := 0
	for _, n := range res.NewNodeClaims {
		needNode += len(n.Pods)
	}
	return out, needNode
}

// destsByKey are the destinations by their ID's kind and name.
type destsByKey map[destination.Destination]*dest

func (s *Snapshot) destsByKey() destsByKey {
	byKey := make(destsByKey, len(s.dests))
	for _, d := range s.dests {
		byKey[d.existing.ID.Key()] = d
	}
	return byKey
}

// of is the destination id names, nil when none is the same (destination.Destination.Same).
func (m destsByKey) of(id destination.Destination) *dest {
	if d := m[id.Key()]; d != nil && d.existing.ID.Same(id) {
		return d
	}
	return nil
}

// take counts the room pods need as requested on the destination.
func (d *dest) take(pods []*corev1.Pod) {
	requests := state.Requests(pods)
	requested := d.existing.Requested.DeepCopy()
	if requested == nil {
		requested = corev1.ResourceList{}
	}
	resources.AddTo(requested, requests)
	d.existing.Requested = requested
	d.freeCPU -= requests.Cpu().MilliValue()
	d.freeMem -= requests.Memory().Value()
	d.freePods -= int64(len(pods))
}

// holdHeaded holds, on the nodes the commands under way put their candidates' pods on
// (SnapshotInput.Headed), the room those pods will take there, for as long as they are still
// on their candidates. Upstream simulates the pods of the nodes it disrupts in every decision
// from the moment a command starts; without the hold, a second command decided while the
// first waits for its replacement to come up would count on the same room, and whichever
// drains second leaves pods with no node. A pod that has left is pending or bound elsewhere
// by then, and counted there (nominate), not twice.
func (s *Snapshot) holdHeaded(placements []simulation.Placement) {
	if len(placements) == 0 {
		return
	}
	onCandidates := sets.New[types.UID]()
	for _, n := range s.nodes {
		if n.inFlight {
			for _, pod := range n.Pods {
				onCandidates.Insert(pod.UID)
			}
		}
	}
	byKey := s.destsByKey()
	held := map[*dest][]*corev1.Pod{}
	for _, p := range placements {
		if !onCandidates.Has(p.Pod.UID) {
			continue
		}
		d := byKey.of(p.ExistingNode)
		if n := s.byName[p.ExistingNode.Name]; d == nil && p.ExistingNode.Kind == destination.NodeClaim && n != nil &&
			destination.OfNodeClaim(n.NodeClaim).Same(p.ExistingNode) {
			// The NodeClaim the pod was placed on has registered its node since.
			d = n.dest
		}
		if d != nil {
			held[d] = append(held[d], p.Pod)
		}
	}
	for d, pods := range held {
		d.take(pods)
	}
	s.sortDests()
}

// existingNodes lists the nodes of a simulation of pods: the destinations, leaving out the
// excluded nodes and the destinations that cannot hold even the smallest of the pods. The
// scheduler places pods first fit, so a simulation costs about pods × the destinations it
// skips: near lists only the emptiest destinations with room for twice the pods (at least
// minNearDestinations of them), to try first; all lists every destination, for when near is
// not enough (all is nil when near already holds every destination). Both end with every other
// node that runs pods, excluded ones aside, marked TopologyOnly: the kube-scheduler counts
// their pods for spreads and anti-affinity, so the simulation must too.
func (s *Snapshot) existingNodes(exclude sets.Set[string], pods []*corev1.Pod, settledOnly bool) (near, all []simulation.ExistingNode) {
	dests, pruned := s.destinations(exclude, pods, settledOnly)
	nearCount := nearCount(dests, pods)
	all = make([]simulation.ExistingNode, 0, len(dests)+len(pruned))
	for _, d := range dests {
		all = append(all, d.existing)
	}
	all = append(all, pruned...)
	if nearCount < 0 || nearCount == len(dests) {
		return all, nil
	}
	near = slices.Clone(all)
	for i := nearCount; i < len(dests); i++ {
		near[i].TopologyOnly = true
	}
	return near, all
}

// destinations splits the nodes other than the excluded ones into those the pods may be moved
// to, emptiest first, and the others that run pods, marked TopologyOnly. With settledOnly
// (consolidation), nodes within their NodePool's consolidateAfter are no destination, as in
// upstream's consolidation simulations (IsConsolidationSimulation): a node whose pods were
// just removed is left to become empty, not filled with pods from nodes that had none leave.
//
//nolint:gocyclo // the split of the destinations and the pruning that keeps a large cluster's simulation small share their loop over the nodes
func (s *Snapshot) destinations(exclude sets.Set[string], pods []*corev1.Pod, settledOnly bool) (dests []*dest, pruned []simulation.ExistingNode) {
	minCPU, minMem := int64(0), int64(0)
	for i, pod := range pods {
		r := resources.PodRequests(pod)
		c, m := r.Cpu().MilliValue(), r.Memory().Value()
		if i == 0 || c < minCPU {
			minCPU = c
		}
		if i == 0 || m < minMem {
			minMem = m
		}
	}
	// Nodes that are no destination matter only to pods with topology constraints.
	topology := s.antiAffinity || slices.ContainsFunc(pods, hasTopology)
	dests = make([]*dest, 0, len(s.dests))
	// A candidate's pod may not move to a node that has not initialized (simulate): as
	// upstream's scheduler orders existing nodes, those are tried last, so that one with room
	// to spare, such as a NodeClaim just launched for pending pods, does not take the pods the
	// initialized nodes could hold and refuse the move.
	var uninitialized []*dest
	for _, d := range s.dests {
		if d.node != nil && exclude.Has(d.node.Name()) {
			continue
		}
		settling := settledOnly && d.settling
		if pods != nil && (settling || d.freeCPU < minCPU || d.freeMem < minMem || d.freePods < 1) {
			// A settling node still counts for topology as a domain even when it runs nothing.
			if topology && (settling || len(d.existing.Pods) > 0) {
				e := d.existing
				e.TopologyOnly = true
				pruned = append(pruned, e)
			}
			continue
		}
		if pods != nil && s.uninitialized.Has(d.existing.ID) {
			uninitialized = append(uninitialized, d)
			continue
		}
		dests = append(dests, d)
	}
	dests = append(dests, uninitialized...)
	if !topology {
		return dests, nil
	}
	return dests, append(pruned, s.bystanders...)
}

// hasTopology reports whether the pod has a topology spread or a pod (anti-)affinity.
func hasTopology(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return len(pod.Spec.TopologySpreadConstraints) > 0 || (a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil))
}

// nearCount is how many of the destinations (emptiest first) it takes to hold room for twice
// the pods, at least minNearDestinations of them; -1 when all of them together do not.
func nearCount(dests []*dest, pods []*corev1.Pod) int {
	var needCPU, needMem, haveCPU, haveMem int64
	for _, pod := range pods {
		r := resources.PodRequests(pod)
		needCPU, needMem = needCPU+r.Cpu().MilliValue(), needMem+r.Memory().Value()
	}
	for i, d := range dests {
		haveCPU, haveMem = haveCPU+d.freeCPU, haveMem+d.freeMem
		if i+1 >= minNearDestinations && haveCPU >= 2*needCPU && haveMem >= 2*needMem {
			return i + 1
		}
	}
	return -1
}

// input is a scheduling run of pods onto dests and new NodeClaims of the pools, the freed
// nodes' capacity given back to their pools' limits.
func (s *Snapshot) input(pods []*corev1.Pod, dests []simulation.ExistingNode, freed []*StateNode) simulation.Input {
	return simulation.Input{
		Pods: pods, ExistingNodes: dests, NodePools: s.poolInputs(freed), DaemonSetPods: s.daemons,
		NamespaceLabels: s.namespaces, VolumeRequirements: s.volumes, PodVolumes: s.podVolumes, Policies: s.policies,
	}
}

func (s *Snapshot) allDests() []simulation.ExistingNode {
	near, all := s.existingNodes(nil, nil, false)
	if all == nil {
		return near
	}
	return all
}

// poolInputs lists the NodePools replacements may come from; what the freed nodes held of
// their pools' limits goes back to them. Only the limited resources: a pool limited in cpu
// alone is not limited to the memory of the node it replaces.
func (s *Snapshot) poolInputs(freed []*StateNode) []simulation.NodePoolInput {
	out := make([]simulation.NodePoolInput, 0, len(s.poolNames))
	for _, name := range s.poolNames {
		p := s.pools[name]
		if !p.launchable || len(p.types) == 0 || p.static() {
			continue
		}
		in := simulation.NodePoolInput{NodePool: p.np, InstanceTypes: p.types, Remaining: p.remaining}
		copied := false
		for _, n := range freed {
			if n.pool == p && p.remaining != nil {
				if !copied {
					in.Remaining, copied = p.remaining.DeepCopy(), true
				}
				resources.GiveBack(in.Remaining, state.Held(n.NodeClaim, p.types))
			}
		}
		out = append(out, in)
	}
	return out
}
