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
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/labelindex"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// SnapshotInput is what one disruption decision reads: the cluster's objects as listed, the
// instance types of each NodePool, and what the loop has under way. Nothing in it is
// modified.
type SnapshotInput struct {
	Now       time.Time
	NodePools []*karpv1.NodePool
	// InstanceTypes are each NodePool's instance types, by NodePool name.
	InstanceTypes map[string][]*cloudprovider.InstanceType
	NodeClaims    []*karpv1.NodeClaim
	Nodes         []*corev1.Node
	Pods          []*corev1.Pod
	PDBs          []*policyv1.PodDisruptionBudget
	// DaemonSetPods are one pod per DaemonSet (its template), for the overhead of new nodes.
	DaemonSetPods []*corev1.Pod
	// NamespaceLabels are the labels of each namespace, for pod affinity namespace selectors.
	NamespaceLabels map[string]map[string]string
	// VolumeRequirements say where pods' persistent volumes keep them (see VolumeRequirements).
	VolumeRequirements map[*corev1.Pod]scheduling.Requirements
	// PodVolumes are the CSI volumes pods use (see simulation.Input.PodVolumes), and CSINodes
	// the nodes' CSINodes by node name: the nodes' volume attach limits.
	PodVolumes map[*corev1.Pod]scheduling.VolumeUsage
	CSINodes   map[string]*storagev1.CSINode
	// InFlight names the NodeClaims of commands under way, candidates and replacements: they
	// are neither candidates nor somewhere pods can be moved to.
	InFlight sets.Set[string]
	// Deleted names NodeClaims this loop deleted: they are deleting whatever the cache says, as
	// the next pass can come before the cache has seen the deletion.
	Deleted sets.Set[string]
	// Nominated names NodeClaims that pods are on their way to (replacements whose candidates
	// are still draining): they are not candidates.
	Nominated sets.Set[string]
	// Headed are where the commands under way put their candidates' pods on nodes that stay
	// (their Command.Placed on existing nodes): the room is held for those pods while they are
	// still on their candidates (holdHeaded).
	Headed []simulation.Placement
	// Repair is what node repair reads; nil when the repair method is off (node repair
	// turned off, or left to the legacy controller).
	Repair *RepairInput
	// Policies are --preference-policy and --min-values-policy, for every simulation.
	Policies simulation.Policies
	// BufferPods are the CapacityBuffers' virtual pods (capacitybuffer.ReadVirtualPods): room
	// kept on nodes, see Snapshot.holdBuffers.
	BufferPods []*corev1.Pod
}

// Snapshot is the cluster as one disruption decision sees it, with what every method needs
// precomputed: which node each NodeClaim has and what runs on it, what each node costs, where
// pods could be moved to, and which pods are still waiting for a node. What it works out on
// the way (the budgets, the Balanced totals, what holds each node) depends on it alone; what a
// decision finds is in its Decision.
type Snapshot struct {
	now       time.Time
	pools     map[string]*pool
	poolNames []string
	nodes     []*StateNode // managed nodes, by NodeClaim name
	byName    map[string]*StateNode
	// pending are pods that need a node: unbound ones and those of nodes being deleted.
	pending []*corev1.Pod
	// waiting counts those of them that fit no node or NodeClaim in flight: provisioning is
	// yet to launch theirs, and consolidation waits for it (consolidate).
	waiting    int
	daemons    []*corev1.Pod
	namespaces map[string]map[string]string
	volumes    map[*corev1.Pod]scheduling.Requirements
	podVolumes map[*corev1.Pod]scheduling.VolumeUsage
	csiNodes   map[string]*storagev1.CSINode
	pdbs       map[string][]pdbInfo // by namespace
	// pdbIndex finds, by namespace, the budgets that may select a pod.
	pdbIndex map[string]*labelindex.Index[int]
	// dests are where pods may go, emptiest first.
	dests []*dest
	// uninitialized names the destinations whose node has not initialized (NodeClaims in
	// flight among them): no candidate's pod is moved there (see simulate).
	uninitialized sets.Set[destination.Destination]
	// bystanders are the nodes pods may not be moved to (being deleted, disrupted or
	// cordoned) whose pods still count for topology spread and pod (anti-)affinity.
	bystanders []simulation.ExistingNode
	// antiAffinity is whether some bound pod has a required anti-affinity, which binds the pods
	// of every simulation.
	antiAffinity bool
	// budgets caches allowances per reason.
	budgets map[karpv1.DisruptionReason]map[string]budgetState
	// balanced caches the totals Balanced NodePools score moves against.
	balanced map[string]poolTotals
	// repairs is what node repair reads, nil when the repair method is off.
	repairs  *RepairInput
	policies simulation.Policies
}

// pool is a NodePool with its instance types.
type pool struct {
	np     *karpv1.NodePool
	types  []*cloudprovider.InstanceType
	byName map[string]*cloudprovider.InstanceType
	// remaining is spec.limits minus what the pool's NodeClaims hold; nil without limits.
	remaining corev1.ResourceList
	// launchable pools may launch replacements: Ready and not being deleted.
	launchable bool
	// staticFull says why a static NodePool's limits.nodes leaves no room for a replacement;
	// empty when it does.
	staticFull string
}

// static reports whether the NodePool keeps spec.replicas nodes: pods never cause its nodes,
// and a replacement of one of them is a node of its template.
func (p *pool) static() bool { return p.np.Spec.Replicas != nil }

type pdbInfo struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
}

// positions are 0 to n-1.
func positions(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

type budgetState struct {
	Allowance
	total, disrupting int
}

// NewSnapshot prepares a decision's view of the cluster.
func NewSnapshot(in SnapshotInput) *Snapshot {
	s := &Snapshot{
		now:           in.Now,
		pools:         map[string]*pool{},
		byName:        map[string]*StateNode{},
		daemons:       in.DaemonSetPods,
		namespaces:    in.NamespaceLabels,
		volumes:       in.VolumeRequirements,
		podVolumes:    in.PodVolumes,
		csiNodes:      in.CSINodes,
		pdbs:          map[string][]pdbInfo{},
		pdbIndex:      map[string]*labelindex.Index[int]{},
		uninitialized: sets.New[destination.Destination](),
		budgets:       map[karpv1.DisruptionReason]map[string]budgetState{},
		repairs:       in.Repair,
		policies:      in.Policies,
	}
	s.addPools(in)
	managedNodes := s.addNodes(in)
	podsByNode := s.addPods(in)
	s.addPDBs(in.PDBs)
	s.buildDests(in.Nodes, managedNodes, podsByNode)
	s.holdHeaded(in.Headed)
	s.nominate()
	s.holdBuffers(in.BufferPods)
	return s
}

// addPools adds the NodePools with their instance types and the limits they have left.
func (s *Snapshot) addPools(in SnapshotInput) {
	for _, np := range in.NodePools {
		p := &pool{
			np: np, types: in.InstanceTypes[np.Name], byName: map[string]*cloudprovider.InstanceType{},
			launchable: np.DeletionTimestamp.IsZero() && meta.IsStatusConditionTrue(np.Status.Conditions, karpv1.ConditionTypeReady),
		}
		for _, it := range p.types {
			p.byName[it.Name] = it
		}
		p.remaining = state.LimitsLeft(np, in.NodeClaims, p.types)
		if p.static() {
			if room, why, limited := state.StaticNodeRoom(np, in.NodeClaims); limited && room == 0 {
				p.staticFull = why
			}
		}
		s.pools[np.Name] = p
		s.poolNames = append(s.poolNames, np.Name)
	}
	slices.Sort(s.poolNames)
}

// addNodes adds a StateNode per NodeClaim, with its node, NodePool and price, and returns the
// names of the nodes Karpenter manages.
func (s *Snapshot) addNodes(in SnapshotInput) sets.Set[string] {
	nodesByProviderID := make(map[string]*corev1.Node, len(in.Nodes))
	for _, n := range in.Nodes {
		if n.Spec.ProviderID != "" {
			nodesByProviderID[n.Spec.ProviderID] = n
		}
	}
	managedNodes := sets.New[string]()
	for _, nodeClaim := range in.NodeClaims {
		n := &StateNode{NodeClaim: nodeClaim, inFlight: in.InFlight.Has(nodeClaim.Name), deleted: in.Deleted.Has(nodeClaim.Name), nominated: in.Nominated.Has(nodeClaim.Name)}
		if in.Repair != nil {
			if f, ok := in.Repair.Unhealthy[nodeClaim.Name]; ok {
				n.unhealthy = &f
			}
		}
		if nodeClaim.Status.ProviderID != "" {
			n.Node = nodesByProviderID[nodeClaim.Status.ProviderID]
		}
		if n.Node != nil {
			managedNodes.Insert(n.Node.Name)
		}
		if p := s.pools[nodeClaim.Labels[karpv1.LabelNodePool]]; p != nil {
			n.pool = p
			n.instanceType = p.byName[nodeClaim.Labels[karpv1.LabelInstanceType]]
			n.price, n.priceKnown = n.instanceType.PriceOf(nodeClaim.Labels)
		}
		s.nodes = append(s.nodes, n)
		s.byName[nodeClaim.Name] = n
	}
	slices.SortFunc(s.nodes, func(a, b *StateNode) int { return cmp.Compare(a.Name(), b.Name()) })
	return managedNodes
}

// addPods puts the bound pods on their nodes and lists the pods that need a node, and returns
// the bound pods by node name.
func (s *Snapshot) addPods(in SnapshotInput) map[string][]*corev1.Pod {
	podsByNode := map[string][]*corev1.Pod{}
	for _, pod := range in.Pods {
		if podutil.IsTerminal(pod) {
			continue
		}
		if pod.Spec.NodeName == "" {
			// The pods provisioning places, as upstream's disruption simulates them: those the
			// kube-scheduler found no node for (not a gated pod, not one nominated for
			// preemption).
			if podutil.IsProvisionable(pod) {
				s.pending = append(s.pending, pod)
			}
			continue
		}
		podsByNode[pod.Spec.NodeName] = append(podsByNode[pod.Spec.NodeName], pod)
		s.antiAffinity = s.antiAffinity || simulation.HasRequiredAntiAffinity(pod)
	}
	leaving := state.NewLeaving(in.PDBs, in.Now)
	for _, n := range s.nodes {
		if n.Node == nil {
			continue
		}
		n.Pods = podsByNode[n.Node.Name]
		if n.deleting() && !n.inFlight {
			for _, pod := range n.Pods {
				if leaving.Leaves(pod) {
					s.pending = append(s.pending, pod)
				}
			}
		}
	}
	return podsByNode
}

// addPDBs indexes the PodDisruptionBudgets by namespace and selector.
func (s *Snapshot) addPDBs(pdbList []*policyv1.PodDisruptionBudget) {
	for _, pdb := range pdbList {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			sel = labels.Nothing()
		}
		s.pdbs[pdb.Namespace] = append(s.pdbs[pdb.Namespace], pdbInfo{pdb: pdb, selector: sel})
	}
	for ns, pdbs := range s.pdbs {
		s.pdbIndex[ns] = labelindex.New(positions(len(pdbs)), func(i int) labels.Selector { return pdbs[i].selector })
	}
}

// minNearDestinations is the fewest destinations a simulation tries first.
const minNearDestinations = 16

// budget is what a pool allows now for reason, less the nodes already being disrupted.
func (s *Snapshot) budget(poolName string, reason karpv1.DisruptionReason) budgetState {
	byPool, ok := s.budgets[reason]
	if !ok {
		byPool = map[string]budgetState{}
		totals, disrupting := map[string]int{}, map[string]int{}
		for _, n := range s.nodes {
			if n.pool == nil {
				continue
			}
			counts, disrupted := BudgetCounts(BudgetNode{
				Initialized: n.initialized(), Terminating: meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInstanceTerminating),
				Disrupted: n.markedForDisruption(), Ready: n.ready(),
			}, reason)
			if counts {
				totals[n.pool.np.Name]++
			}
			if disrupted {
				disrupting[n.pool.np.Name]++
			}
		}
		for _, name := range s.poolNames {
			a := AllowedDisruptions(s.pools[name].np, reason, s.now, totals[name])
			byPool[name] = budgetState{Allowance: a, total: totals[name], disrupting: disrupting[name]}
		}
		s.budgets[reason] = byPool
	}
	return byPool[poolName]
}

// budgetReasons are the reasons budgets are reported for, in order.
var budgetReasons = []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonDrifted, karpv1.DisruptionReasonUnderutilized, karpv1.DisruptionReasonUnhealthy}

// poolBudgets are what every NodePool's budgets allow now, by NodePool name and then reason.
func (s *Snapshot) poolBudgets() []PoolBudget {
	out := make([]PoolBudget, 0, len(s.poolNames)*len(budgetReasons))
	for _, name := range s.poolNames {
		for _, reason := range budgetReasons {
			b := s.budget(name, reason)
			out = append(out, PoolBudget{NodePool: name, Reason: reason, Allowed: b.Nodes, Disrupting: b.disrupting})
		}
	}
	return out
}

// UnaccountedTaints are the managed nodes that carry karpenter.sh/disrupted though no command
// under way and no deletion accounts for it (a restart in the middle of a command leaves
// them).
func (s *Snapshot) UnaccountedTaints() []*StateNode {
	var out []*StateNode
	for _, n := range s.nodes {
		if n.Node != nil && n.tainted() && !n.deleting() && !n.inFlight {
			out = append(out, n)
		}
	}
	return out
}

// allowed is how many more nodes of the pool may be disrupted for reason now.
func (b budgetState) allowed() int { return max(b.Nodes-b.disrupting, 0) }

func conditionStatus(nodeClaim *karpv1.NodeClaim, t string) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(nodeClaim.Status.Conditions, t); c != nil {
		return c.Status
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
