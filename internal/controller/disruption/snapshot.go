/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package disruption

import (
	"cmp"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// SnapshotInput is what one disruption decision reads: the cluster's objects as listed, the
// instance types of each NodePool, and what the orchestration has under way. Nothing in it is
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
	// InFlight names the NodeClaims of commands under way, candidates and replacements: they
	// are neither candidates nor somewhere pods can be moved to.
	InFlight sets.Set[string]
	// Nominated names NodeClaims that pods are on their way to (replacements whose candidates
	// are still draining): they are not candidates.
	Nominated sets.Set[string]
}

// Snapshot is the cluster as one disruption decision sees it, with what every method needs
// precomputed: which node each NodeClaim has and what runs on it, what each node costs, where
// pods could be moved to, and which pods are still waiting for a node.
type Snapshot struct {
	now       time.Time
	pools     map[string]*pool
	poolNames []string
	nodes     []*StateNode // managed nodes, by NodeClaim name
	byName    map[string]*StateNode
	// pending are pods that need a node: unbound ones and those of nodes being deleted.
	pending    []*corev1.Pod
	daemons    []*corev1.Pod
	namespaces map[string]map[string]string
	volumes    map[*corev1.Pod]scheduling.Requirements
	pdbs       map[string][]pdbInfo // by namespace
	// dests are where pods may go, emptiest first.
	dests []*dest
	// bystanders are the nodes pods may not be moved to (being deleted, disrupted or
	// cordoned) whose pods still count for topology spread and pod (anti-)affinity.
	bystanders []scheduling.ExistingNode
	// antiAffinity is whether some bound pod has a required anti-affinity, which binds the pods
	// of every simulation.
	antiAffinity bool
	// budgets caches allowances per reason.
	budgets map[karpv1.DisruptionReason]map[string]budgetState
	// consolidationCands caches the consolidation candidates of a decision.
	consolidationCands *[]*Candidate
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
}

// StateNode is a managed node: a NodeClaim, its Node once registered, and its pods.
type StateNode struct {
	NodeClaim *karpv1.NodeClaim
	Node      *corev1.Node
	// Pods are the node's pods that have not finished, DaemonSet pods included.
	Pods []*corev1.Pod

	pool         *pool
	instanceType *cloudprovider.InstanceType
	price        float64
	priceKnown   bool
	inFlight     bool
	nominated    bool
	dest         *dest // where pods could land on this node, nil when nowhere
}

// Name is the NodeClaim's name.
func (n *StateNode) Name() string { return n.NodeClaim.Name }

// initialized reports whether the NodeClaim's node is up and initialized.
func (n *StateNode) initialized() bool {
	return n.Node != nil && meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)
}

// deleting reports whether the NodeClaim or its node is being deleted.
func (n *StateNode) deleting() bool {
	return !n.NodeClaim.DeletionTimestamp.IsZero() || (n.Node != nil && !n.Node.DeletionTimestamp.IsZero())
}

// tainted reports whether the node carries karpenter.sh/disrupted.
func (n *StateNode) tainted() bool {
	return n.Node != nil && hasDisruptedTaint(n.Node)
}

// markedForDisruption reports whether the node is on its way out: deleting, tainted, or a
// candidate of a command under way.
func (n *StateNode) markedForDisruption() bool {
	return n.deleting() || n.tainted() || n.inFlight
}

func (n *StateNode) ready() bool {
	if n.Node == nil {
		return false
	}
	for _, c := range n.Node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// displayName names the node for messages: NodeClaim/instance type/zone.
func (n *StateNode) displayName() string {
	s := n.NodeClaim.Name
	if t := n.NodeClaim.Labels[karpv1.LabelInstanceType]; t != "" {
		s += "/" + t
	}
	if z := n.NodeClaim.Labels[karpv1.LabelTopologyZone]; z != "" {
		s += "/" + z
	}
	return s
}

func hasDisruptedTaint(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.MatchTaint(&karpv1.DisruptedNoScheduleTaint) {
			return true
		}
	}
	return false
}

// dest is somewhere pods may be moved to: a node, or a NodeClaim still coming up.
type dest struct {
	existing scheduling.ExistingNode
	node     *StateNode // nil for nodes Karpenter does not manage
	freeCPU  int64      // millicores
	freeMem  int64      // bytes
	freePods int64
}

type pdbInfo struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
}

type budgetState struct {
	Allowance
	total, disrupting int
}

// NewSnapshot prepares a decision's view of the cluster.
func NewSnapshot(in SnapshotInput) *Snapshot {
	s := &Snapshot{
		now:        in.Now,
		pools:      map[string]*pool{},
		byName:     map[string]*StateNode{},
		daemons:    in.DaemonSetPods,
		namespaces: in.NamespaceLabels,
		volumes:    in.VolumeRequirements,
		pdbs:       map[string][]pdbInfo{},
		budgets:    map[karpv1.DisruptionReason]map[string]budgetState{},
	}
	for _, np := range in.NodePools {
		p := &pool{
			np: np, types: in.InstanceTypes[np.Name], byName: map[string]*cloudprovider.InstanceType{},
			launchable: np.DeletionTimestamp.IsZero() && meta.IsStatusConditionTrue(np.Status.Conditions, karpv1.ConditionTypeReady),
		}
		for _, it := range p.types {
			p.byName[it.Name] = it
		}
		if len(np.Spec.Limits) > 0 {
			p.remaining = corev1.ResourceList(np.Spec.Limits).DeepCopy()
		}
		s.pools[np.Name] = p
		s.poolNames = append(s.poolNames, np.Name)
	}
	slices.Sort(s.poolNames)

	nodesByProviderID := make(map[string]*corev1.Node, len(in.Nodes))
	for _, n := range in.Nodes {
		if n.Spec.ProviderID != "" {
			nodesByProviderID[n.Spec.ProviderID] = n
		}
	}
	managedNodes := sets.New[string]()
	for _, nc := range in.NodeClaims {
		n := &StateNode{NodeClaim: nc, inFlight: in.InFlight.Has(nc.Name), nominated: in.Nominated.Has(nc.Name)}
		if nc.Status.ProviderID != "" {
			n.Node = nodesByProviderID[nc.Status.ProviderID]
		}
		if n.Node != nil {
			managedNodes.Insert(n.Node.Name)
		}
		if p := s.pools[nc.Labels[karpv1.LabelNodePool]]; p != nil {
			n.pool = p
			n.instanceType = p.byName[nc.Labels[karpv1.LabelInstanceType]]
			n.price, n.priceKnown = nodePrice(n.instanceType, nc.Labels)
			if p.remaining != nil && nc.DeletionTimestamp.IsZero() {
				used := nc.Status.Capacity
				if len(used) == 0 {
					used = nc.Spec.Resources.Requests
				}
				resources.SubtractFrom(p.remaining, used)
			}
		}
		s.nodes = append(s.nodes, n)
		s.byName[nc.Name] = n
	}
	slices.SortFunc(s.nodes, func(a, b *StateNode) int { return cmp.Compare(a.Name(), b.Name()) })

	// Pods: on which node, and which still need one.
	podsByNode := map[string][]*corev1.Pod{}
	for _, pod := range in.Pods {
		if podutil.IsTerminal(pod) {
			continue
		}
		if pod.Spec.NodeName == "" {
			if pod.DeletionTimestamp.IsZero() && !podutil.IsOwnedByDaemonSet(pod) {
				s.pending = append(s.pending, pod)
			}
			continue
		}
		podsByNode[pod.Spec.NodeName] = append(podsByNode[pod.Spec.NodeName], pod)
		s.antiAffinity = s.antiAffinity || scheduling.HasRequiredAntiAffinity(pod)
	}
	for _, n := range s.nodes {
		if n.Node == nil {
			continue
		}
		n.Pods = podsByNode[n.Node.Name]
		if n.deleting() && !n.inFlight {
			for _, pod := range n.Pods {
				if podutil.IsReschedulable(pod) {
					s.pending = append(s.pending, pod)
				}
			}
		}
	}

	for _, pdb := range in.PDBs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			sel = labels.Nothing()
		}
		s.pdbs[pdb.Namespace] = append(s.pdbs[pdb.Namespace], pdbInfo{pdb: pdb, selector: sel})
	}

	s.buildDests(in.Nodes, managedNodes, podsByNode)
	s.nominate()
	return s
}

// buildDests lists where pods may be moved to: managed nodes that stay, NodeClaims still
// coming up (sized by what they were launched for, as provisioning counts them), and nodes of
// the cluster Karpenter does not manage, emptiest first.
func (s *Snapshot) buildDests(nodes []*corev1.Node, managed sets.Set[string], podsByNode map[string][]*corev1.Pod) {
	add := func(d *dest) {
		free := d.existing.Allocatable.DeepCopy()
		resources.SubtractFrom(free, d.existing.Requested)
		d.freeCPU = free.Cpu().MilliValue()
		d.freeMem = free.Memory().Value()
		d.freePods = free.Pods().Value()
		if _, ok := d.existing.Allocatable[corev1.ResourcePods]; !ok {
			d.freePods = 110 - int64(len(podsByNode[d.existing.Name]))
		}
		s.dests = append(s.dests, d)
	}
	bystander := func(node *corev1.Node, pods []*corev1.Pod) {
		if len(pods) > 0 {
			s.bystanders = append(s.bystanders, scheduling.ExistingNode{Name: node.Name, Labels: node.Labels, Taints: node.Spec.Taints,
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
		if n.Node != nil {
			d := &dest{node: n, existing: scheduling.ExistingNode{
				Name: n.Node.Name, Labels: n.Node.Labels, Taints: n.Node.Spec.Taints,
				Allocatable: n.Node.Status.Allocatable, Requested: sumRequests(n.Pods), Pods: n.Pods,
			}}
			n.dest = d
			add(d)
			continue
		}
		nc := n.NodeClaim
		d := &dest{node: n, existing: scheduling.ExistingNode{
			Name: "nodeclaim/" + nc.Name, Labels: nc.Labels, Taints: nc.Spec.Taints, Allocatable: nc.Status.Allocatable,
		}}
		if len(d.existing.Allocatable) == 0 {
			d.existing.Allocatable = nc.Spec.Resources.Requests
			d.existing.Requirements = scheduling.FromNodeClaimRequirements(nc.Spec.Requirements...)
			d.existing.Requirements.Add(scheduling.FromLabels(nc.Labels).Values()...)
		}
		n.dest = d
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
		add(&dest{existing: scheduling.ExistingNode{
			Name: node.Name, Labels: node.Labels, Taints: node.Spec.Taints,
			Allocatable: node.Status.Allocatable, Requested: sumRequests(podsByNode[node.Name]), Pods: podsByNode[node.Name],
		}})
	}
	s.sortDests()
}

func (s *Snapshot) sortDests() {
	slices.SortStableFunc(s.dests, func(a, b *dest) int {
		return cmp.Or(cmp.Compare(b.freeCPU, a.freeCPU), cmp.Compare(b.freeMem, a.freeMem), cmp.Compare(a.existing.Name, b.existing.Name))
	})
}

// nominate places the pending pods as the scheduler and provisioning would, and reserves the
// room they take: a node pods are about to land on is neither empty nor spare capacity.
// Pending pods are those not bound yet and those of nodes being deleted.
func (s *Snapshot) nominate() {
	if len(s.pending) == 0 {
		return
	}
	res := scheduling.Schedule(s.input(s.pending, s.allDests(), nil))
	byName := make(map[string]*dest, len(s.dests))
	for _, d := range s.dests {
		byName[d.existing.Name] = d
	}
	for name, pods := range res.ExistingPlacements {
		d := byName[name]
		if d == nil {
			continue
		}
		placed := sumRequests(pods)
		requested := d.existing.Requested.DeepCopy()
		if requested == nil {
			requested = corev1.ResourceList{}
		}
		resources.AddTo(requested, placed)
		// Only their room is reserved: for topology the pods count where they are bound now
		// (a node being deleted) or nowhere yet (unbound), as the kube-scheduler counts them.
		d.existing.Requested = requested
		d.freeCPU -= placed.Cpu().MilliValue()
		d.freeMem -= placed.Memory().Value()
		d.freePods -= int64(len(pods))
		if d.node != nil {
			d.node.nominated = true
		}
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
func (s *Snapshot) existingNodes(exclude sets.Set[string], pods []*corev1.Pod) (near, all []scheduling.ExistingNode) {
	dests, pruned := s.destinations(exclude, pods)
	nearCount := nearCount(dests, pods)
	all = make([]scheduling.ExistingNode, 0, len(dests)+len(pruned))
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
// to, emptiest first, and the others that run pods, marked TopologyOnly.
func (s *Snapshot) destinations(exclude sets.Set[string], pods []*corev1.Pod) (dests []*dest, pruned []scheduling.ExistingNode) {
	minCPU, minMem := int64(0), int64(0)
	for i, pod := range pods {
		r := scheduling.PodRequests(pod)
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
	for _, d := range s.dests {
		if d.node != nil && exclude.Has(d.node.Name()) {
			continue
		}
		if pods != nil && (d.freeCPU < minCPU || d.freeMem < minMem || d.freePods < 1) {
			if topology && len(d.existing.Pods) > 0 {
				e := d.existing
				e.TopologyOnly = true
				pruned = append(pruned, e)
			}
			continue
		}
		dests = append(dests, d)
	}
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
		r := scheduling.PodRequests(pod)
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

// minNearDestinations is the fewest destinations a simulation tries first.
const minNearDestinations = 16

// input is a scheduling run of pods onto dests and new NodeClaims of the pools, the freed
// nodes' capacity given back to their pools' limits.
func (s *Snapshot) input(pods []*corev1.Pod, dests []scheduling.ExistingNode, freed []*StateNode) scheduling.Input {
	return scheduling.Input{
		Pods: pods, ExistingNodes: dests, NodePools: s.poolInputs(freed), DaemonSetPods: s.daemons,
		NamespaceLabels: s.namespaces, VolumeRequirements: s.volumes,
	}
}

func (s *Snapshot) allDests() []scheduling.ExistingNode {
	near, all := s.existingNodes(nil, nil)
	if all == nil {
		return near
	}
	return all
}

// poolInputs lists the NodePools replacements may come from; the capacity of the freed nodes
// goes back to their pools' limits.
func (s *Snapshot) poolInputs(freed []*StateNode) []scheduling.NodePoolInput {
	out := make([]scheduling.NodePoolInput, 0, len(s.poolNames))
	for _, name := range s.poolNames {
		p := s.pools[name]
		if !p.launchable || len(p.types) == 0 {
			continue
		}
		in := scheduling.NodePoolInput{NodePool: p.np, InstanceTypes: p.types, Remaining: p.remaining}
		copied := false
		for _, n := range freed {
			if n.pool == p && p.remaining != nil {
				if !copied {
					in.Remaining, copied = p.remaining.DeepCopy(), true
				}
				resources.AddTo(in.Remaining, n.NodeClaim.Status.Capacity)
			}
		}
		out = append(out, in)
	}
	return out
}

// budget is what a pool allows now for reason, less the nodes already being disrupted.
func (s *Snapshot) budget(poolName string, reason karpv1.DisruptionReason) budgetState {
	byPool, ok := s.budgets[reason]
	if !ok {
		byPool = map[string]budgetState{}
		totals, disrupting := map[string]int{}, map[string]int{}
		for _, n := range s.nodes {
			if n.pool == nil || !n.initialized() || meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInstanceTerminating) {
				continue
			}
			name := n.pool.np.Name
			totals[name]++
			if !n.ready() || n.markedForDisruption() {
				disrupting[name]++
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

// allowed is how many more nodes of the pool may be disrupted for reason now.
func (b budgetState) allowed() int { return max(b.Nodes-b.disrupting, 0) }

// Fingerprint summarises what consolidation decides from: the nodes, what they run, the
// NodePools' disruption settings and the PodDisruptionBudgets. When it has not changed since a
// consolidation pass that found nothing, the next pass would find nothing either.
func (s *Snapshot) Fingerprint() uint64 {
	h := fnv.New64a()
	w := func(parts ...string) {
		for _, p := range parts {
			_, _ = h.Write([]byte(p))
			_, _ = h.Write([]byte{0})
		}
	}
	for _, name := range s.poolNames {
		np := s.pools[name].np
		w(name, strconv.FormatInt(np.Generation, 10), strconv.FormatBool(s.pools[name].launchable))
	}
	for _, n := range s.nodes {
		w(n.Name(), n.NodeClaim.Labels[karpv1.LabelInstanceType], strconv.FormatBool(n.markedForDisruption()), strconv.FormatBool(n.nominated))
		for _, t := range []string{karpv1.ConditionTypeInitialized, karpv1.ConditionTypeConsolidatable, karpv1.ConditionTypeDrifted} {
			w(string(conditionStatus(n.NodeClaim, t)))
		}
		if n.price != 0 {
			w(strconv.FormatFloat(n.price, 'g', -1, 64))
		}
		for _, pod := range n.Pods {
			w(string(pod.UID), pod.Annotations[karpv1.DoNotDisruptAnnotationKey])
		}
	}
	for _, pod := range s.pending {
		w(string(pod.UID))
	}
	for _, ns := range sortedKeys(s.pdbs) {
		for _, p := range s.pdbs[ns] {
			w(ns, p.pdb.Name, strconv.Itoa(int(p.pdb.Status.DisruptionsAllowed)))
		}
	}
	return h.Sum64()
}

func conditionStatus(nc *karpv1.NodeClaim, t string) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(nc.Status.Conditions, t); c != nil {
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

// nodePrice is what a node of the instance type costs in the node's zone and capacity type.
func nodePrice(it *cloudprovider.InstanceType, nodeLabels map[string]string) (float64, bool) {
	if it == nil {
		return 0, false
	}
	zone, ct := nodeLabels[karpv1.LabelTopologyZone], nodeLabels[karpv1.LabelCapacityType]
	for _, of := range it.Offerings {
		if of.Zone == zone && (ct == "" || of.CapacityType == ct) {
			return of.Price, true
		}
	}
	return 0, false
}

func sumRequests(pods []*corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, pod := range pods {
		resources.AddTo(out, scheduling.PodRequests(pod))
	}
	return out
}
