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

// Scheduling simulation.
//
// Schedule decides, without touching the API server, where a batch of pending pods goes: onto
// existing nodes with room, onto NodeClaims opened earlier in the same run, or onto new
// NodeClaims from the highest-weight NodePool that accepts them. It honours resource requests
// (init containers, sidecars and pod overhead included), nodeSelector and required node
// affinity (OR terms tried in turn), taints and tolerations, host ports, daemonset overhead,
// instance-type offerings (zone, capacity type, availability), NodePool limits
// (pessimistically, by the largest instance type a NodeClaim may become), minValues, volume
// topology, existing nodes' volume attach limits (volumelimits.go), topology spread constraints
// and pod affinity and anti-affinity (topology.go).
// Preferences are honoured first and relaxed one at a time when a pod fits nowhere (pod.go).
//
// Not modelled: dynamic resource allocation, reserved capacity.

package simulation

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// Input is everything one scheduling run looks at.
type Input struct {
	// Pods are the pods to place.
	Pods []*corev1.Pod
	// NodePools are the NodePools new capacity may come from.
	NodePools []NodePoolInput
	// ExistingNodes are tried first, in the given order.
	ExistingNodes []ExistingNode
	// DaemonSetPods are one pod per daemonset (its template); their requests are added to each
	// new NodeClaim they would run on.
	DaemonSetPods []*corev1.Pod
	// NamespaceLabels are the labels of each namespace, for pod affinity namespaceSelectors.
	NamespaceLabels map[string]map[string]string
	// VolumeRequirements are, per pod, where its persistent volumes force it to run (a bound
	// volume's node affinity, an unbound claim's allowed topologies).
	VolumeRequirements map[*corev1.Pod]scheduling.Requirements
	// PodVolumes are, per pod, the CSI volumes it uses, by driver: those of the pods to
	// place, and those of the pods of the ExistingNodes with VolumeLimits, which hold their
	// slots there. A pod not listed uses none.
	PodVolumes map[*corev1.Pod]scheduling.VolumeUsage
	// Policies are the operator's --preference-policy and --min-values-policy.
	Policies Policies
	// Nominated names, by pod UID, the existing node (an ExistingNode's ID) an earlier run put
	// the pod on: most often a NodeClaim in flight opened for it. Nominated pods are placed
	// first, each back on its node while it fits there, so that a pass that sees them still
	// pending does not hand their room to other pods and open another NodeClaim for them.
	Nominated map[k8stypes.UID]destination.Destination
	// Progress, when set, is told before each try how many pods the run has yet to try, for
	// the scheduler metrics (Simulate).
	Progress func(queued int)
}

// Policies are how a run treats what pods prefer and what NodePools ask of minValues, as
// upstream Karpenter's --preference-policy and --min-values-policy set it.
type Policies struct {
	// IgnorePreferences drops the preferences from the start (preferred node and pod
	// (anti-)affinity, ScheduleAnyway spreads; PreferNoSchedule taints are still avoided until
	// nothing else fits): upstream's Ignore. Otherwise they are honoured first and relaxed one
	// at a time (Respect).
	IgnorePreferences bool
	// MinValuesBestEffort lowers a requirement's minValues to what the instance types that
	// fit cover, instead of leaving the pods pending (upstream's BestEffort; Strict
	// otherwise). The NodeClaim then says so (karpenter.sh/nodeclaim-min-values-relaxed).
	MinValuesBestEffort bool
}

// NodePoolInput is a NodePool with its instance types and what its limits still allow.
type NodePoolInput struct {
	NodePool      *karpv1.NodePool
	InstanceTypes []*cloudprovider.InstanceType
	// Remaining is spec.limits minus what the NodePool's nodes use; nil means unlimited.
	Remaining corev1.ResourceList
	// Unavailable, when set, says why the NodePool cannot launch anything now; pods it would
	// have taken are told so.
	Unavailable string
}

// Results is the outcome of a scheduling run.
type Results struct {
	// NewNodeClaims are the NodeClaims to launch, in the order they were opened.
	NewNodeClaims []*NewNodeClaim
	// ExistingPlacements maps an existing node's ID to the pods placed on it.
	ExistingPlacements map[destination.Destination][]*corev1.Pod
	// PodErrors says, for every pod that could not be placed, why not.
	PodErrors map[*corev1.Pod]error
	// Placed lists every placement in the order the simulation made it: what each pod saw
	// when it was placed depends on the pods placed before it.
	Placed []Placement
	// IncompatibleNodePools names the NodePools (available ones) whose requirements leave
	// none of their instance types with an available offering: they can launch nothing.
	IncompatibleNodePools []string
	// Ignored counts the pods refused before any try, as what they ask cannot be modelled;
	// each has its PodErrors entry too.
	Ignored int
}

// Placement is where one pod was placed: an existing node (its ExistingNode's ID) or a new
// NodeClaim.
type Placement struct {
	Pod          *corev1.Pod
	ExistingNode destination.Destination
	NodeClaim    *NewNodeClaim
}

// poolTemplate is a NodePool prepared for a run.
type poolTemplate struct {
	pool      *karpv1.NodePool
	name      string
	taints    []corev1.Taint
	base      scheduling.Requirements // template requirements and labels, nodepool, instance type values
	types     []*itInfo               // types compatible with the template
	remaining *resVec                 // nil = unlimited
	full      bool                    // the limits leave room for none of types
	// launchable caches, per "key=value", whether the limits leave room for a type that can
	// have that label (a zone: a type with an offering there); reset when remaining changes.
	launchable map[string]bool
	daemons    []*podInfo // daemonset pods tolerating the template's taints
	err        error      // why the pool can take nothing, if so
	// incompatible is whether the pool is available but its requirements leave none of its
	// instance types.
	incompatible bool
	// minValuesBestEffort is Policies.MinValuesBestEffort.
	minValuesBestEffort bool
}

func newPoolTemplate(in *NodePoolInput, daemons []*podInfo) *poolTemplate {
	np := in.NodePool
	t := &poolTemplate{pool: np, name: np.Name, taints: np.Spec.Template.Spec.Taints}
	reqs := scheduling.FromNodeClaimRequirements(np.Spec.Template.Spec.Requirements...)
	reqs.Add(scheduling.FromLabels(np.Spec.Template.Labels).Values()...)
	reqs.Add(scheduling.NewRequirement(karpv1.LabelNodePool, karpv1.NodeSelectorOpIn, np.Name))
	for _, it := range in.InstanceTypes {
		info := newITInfo(it)
		if info.compatible(reqs) {
			t.types = append(t.types, info)
		}
	}
	if len(t.types) == 0 {
		t.err = fmt.Errorf("no instance type with an available offering satisfies the nodepool requirements")
	}
	if in.Unavailable != "" {
		t.err = errors.New(in.Unavailable)
	}
	t.incompatible = len(t.types) == 0 && in.Unavailable == ""
	t.base = merge(reqs, typeRequirements(t.types, reqs))
	if in.Remaining != nil {
		remaining := toVec(in.Remaining)
		t.remaining = &remaining
		t.full = t.exhausted()
	}
	t.launchable = map[string]bool{}
	for _, d := range daemons {
		if tolerates(d.pod, t.taints, false) == nil {
			t.daemons = append(t.daemons, d)
		}
	}
	return t
}

// exhausted reports whether the pool's limits leave room for none of its instance types.
func (t *poolTemplate) exhausted() bool {
	if t.remaining == nil {
		return false
	}
	for _, it := range t.types {
		if len(it.capacity.exceeded(*t.remaining)) == 0 {
			return false
		}
	}
	return true
}

// canLaunchIn reports whether the pool's limits still leave room for a node with label
// key=value: a type that fits them and, for a zone, has an offering there.
func (t *poolTemplate) canLaunchIn(key, value string) bool {
	if t.remaining == nil {
		return true
	}
	if t.full {
		return false
	}
	id := key + "=" + value
	if ok, cached := t.launchable[id]; cached {
		return ok
	}
	ok := slices.ContainsFunc(t.types, func(it *itInfo) bool {
		if len(it.capacity.exceeded(*t.remaining)) > 0 {
			return false
		}
		if key == karpv1.LabelTopologyZone {
			return slices.ContainsFunc(it.it.Offerings, func(of cloudprovider.Offering) bool { return of.Available && of.Zone == value })
		}
		r, has := it.reqs[key]
		return !has || r.Has(value)
	})
	t.launchable[id] = ok
	return ok
}

// daemonOverhead sums the requests of the daemonset pods that would run on a node with reqs.
func (t *poolTemplate) daemonOverhead(reqs scheduling.Requirements) resVec {
	var out resVec
	for _, d := range t.daemons {
		if daemonRuns(reqs, d.requirements) {
			out = out.add(d.requests)
		}
	}
	return out
}

// daemonRuns reports whether a daemonset pod with dsReqs would run on a node with nodeReqs. A
// custom label the node requirements do not mention will not be on the node; an unmentioned
// well-known label is unknown, and counted as matching (pessimistic).
func daemonRuns(nodeReqs, dsReqs scheduling.Requirements) bool {
	for k, d := range dsReqs {
		if n, ok := nodeReqs[k]; ok {
			if !n.Intersects(d) {
				return false
			}
		} else if v, ok := launchedNodeLabels[k]; ok {
			if !d.Has(v) {
				return false
			}
		} else if !d.AllowsAbsent() && !karpv1.WellKnownLabels.Has(k) {
			return false
		}
	}
	return true
}

// launchedNodeLabels are the labels every node the controller launches gets once registered
// and initialized: a DaemonSet that requires them runs there, as upstream counts it.
var launchedNodeLabels = map[string]string{karpv1.LabelRegistered: "true", karpv1.LabelInitialized: "true"}

// open tries to open a new NodeClaim from the pool for the pod.
func (t *poolTemplate) open(p *podInfo, topo *topology, hostname string) (*NewNodeClaim, error) {
	if t.err != nil {
		return nil, t.err
	}
	if err := p.tolerates(t.taints); err != nil {
		return nil, err
	}
	n := &NewNodeClaim{NodePoolName: t.name, NodePool: t.pool, tmpl: t, hostname: hostname, reqs: t.base, types: t.types, podRequests: resVec{}}
	topoReqs, err := topo.requirementsFor(p, n.view())
	if err != nil {
		return nil, err
	}
	reqs, types, ds, err := n.canAdd(p, topoReqs)
	if err != nil {
		return nil, err
	}
	keep, err := topo.balancedDomains(&nodeView{reqs: reqs, hostname: hostname, taints: t.taints})
	if err != nil {
		return nil, err
	}
	if keep != nil {
		keep.Add(topoReqs.Values()...)
		// Narrowed, the NodeClaim may lose the types or offerings the pod needs: then it is not
		// opened, as when it may launch in none of those domains.
		if reqs, types, ds, err = n.canAdd(p, keep); err != nil {
			return nil, err
		}
	}
	if t.remaining != nil {
		var within []*itInfo
		exceeded := map[string]bool{}
		for _, it := range types {
			if over := it.capacity.exceeded(*t.remaining); len(over) > 0 {
				for _, o := range over {
					exceeded[o] = true
				}
				continue
			}
			within = append(within, it)
		}
		if len(within) == 0 {
			names := make([]string, 0, len(exceeded))
			for k := range exceeded {
				names = append(names, k)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("would exceed limits %s", strings.Join(names, ", "))
		}
		types = within
		largest := resVec{}
		for _, it := range types {
			largest = maxVec(largest, it.capacity)
		}
		remaining := t.remaining.subLimited(largest)
		t.remaining = &remaining
		t.full = t.exhausted()
		clear(t.launchable)
	}
	n.add(p, reqs, types, ds)
	return n, nil
}

// Schedule runs the simulation. It is deterministic for a given input.
func Schedule(in Input) *Results {
	s := newScheduler(in)
	tell := func(queued int) {
		if in.Progress != nil {
			in.Progress(queued)
		}
	}
	pods := s.placeAllNominated()
	var failed []*podInfo
	for i, p := range pods {
		tell(len(pods) - i + len(failed))
		if err := s.placeRelaxing(p); err != nil {
			failed = append(failed, p)
			s.res.PodErrors[p.pod] = err
		}
	}
	// A pod may need one placed after it (required pod affinity to a later pod): try the
	// failures again, in further passes as long as a pass places one, as upstream's queue
	// does by putting them back.
	for progress := len(failed) < len(pods); progress && len(failed) > 0; {
		progress = false
		left := failed[:0]
		for i, p := range failed {
			tell(len(failed) - i + len(left))
			if err := s.place(p); err == nil {
				delete(s.res.PodErrors, p.pod)
				progress = true
				continue
			}
			left = append(left, p)
		}
		failed = left
	}
	res := s.results()
	for _, t := range s.pools {
		if t.incompatible {
			res.IncompatibleNodePools = append(res.IncompatibleNodePools, t.name)
		}
	}
	return res
}

// scheduler is the state of one run.
type scheduler struct {
	pods     []*podInfo
	pools    []*poolTemplate
	existing []*existingNode
	topo     *topology
	claims   []*NewNodeClaim // in opening order
	byPods   []*NewNodeClaim // fewest pods first
	res      *Results
	// preferNoSchedule is whether any node or NodePool has a PreferNoSchedule taint, which
	// makes tolerating them a relaxation worth trying.
	preferNoSchedule bool
}

//nolint:gocyclo // the simulation's input turned into its state, one part of Input after another
func newScheduler(in Input) *scheduler {
	s := &scheduler{topo: newTopology(in.NamespaceLabels), res: &Results{ExistingPlacements: map[destination.Destination][]*corev1.Pod{}, PodErrors: map[*corev1.Pod]error{}}}
	for _, pod := range in.Pods {
		if len(pod.Spec.ResourceClaims) > 0 {
			// Where such a pod fits depends on devices this simulation does not model; upstream
			// Karpenter does not provision for it either without dynamic resource allocation.
			s.res.PodErrors[pod] = errors.New("the pod requests dynamic resources (spec.resourceClaims), which KakaoCloud nodes do not offer")
			s.res.Ignored++
			continue
		}
		p := newPodInfo(pod, in.VolumeRequirements[pod])
		p.volumes = in.PodVolumes[pod]
		terms, err := s.topo.termsOf(pod)
		if err != nil {
			s.res.PodErrors[pod] = err
			s.res.Ignored++
			continue
		}
		p.terms = terms
		if in.Policies.IgnorePreferences {
			p.ignorePreferences()
		}
		s.pods = append(s.pods, p)
	}
	slices.SortStableFunc(s.pods, comparePods)
	if len(in.Nominated) > 0 {
		for _, p := range s.pods {
			p.nominated = in.Nominated[p.pod.UID]
		}
		unnominated := func(p *podInfo) int {
			if !p.nominated.IsZero() {
				return 0
			}
			return 1
		}
		slices.SortStableFunc(s.pods, func(a, b *podInfo) int { return cmp.Compare(unnominated(a), unnominated(b)) })
	}

	daemons := make([]*podInfo, len(in.DaemonSetPods))
	for i, d := range in.DaemonSetPods {
		daemons[i] = newPodInfo(d, nil)
		// Where a DaemonSet runs is decided by what it requires: its preferred node-affinity
		// terms do not keep it off a node, as they keep no pod off one.
		daemons[i].preferred = nil
		daemons[i].computeRequirements()
	}
	s.pools = make([]*poolTemplate, len(in.NodePools))
	for i := range in.NodePools {
		s.pools[i] = newPoolTemplate(&in.NodePools[i], daemons)
		s.pools[i].minValuesBestEffort = in.Policies.MinValuesBestEffort
		s.preferNoSchedule = s.preferNoSchedule || hasPreferNoSchedule(s.pools[i].taints)
	}
	slices.SortStableFunc(s.pools, func(a, b *poolTemplate) int {
		return cmp.Or(cmp.Compare(weight(b.pool), weight(a.pool)), cmp.Compare(a.name, b.name))
	})

	s.existing = make([]*existingNode, 0, len(in.ExistingNodes))
	existingTerms := map[*corev1.Pod][]podTerm{}
	constrained := len(s.topo.ordered) > 0
	for i := range in.ExistingNodes {
		n := &in.ExistingNodes[i]
		if n.TopologyOnly && !constrained && !slices.ContainsFunc(n.Pods, HasRequiredAntiAffinity) {
			continue // counts for nothing: no pod of the run has a topology constraint
		}
		e := newExistingNode(n)
		e.volumes = attachedVolumes(n, in.PodVolumes)
		e.reserveDaemons(daemons)
		s.existing = append(s.existing, e)
		s.preferNoSchedule = s.preferNoSchedule || hasPreferNoSchedule(e.node.Taints)
		for _, pod := range e.node.Pods {
			if terms := s.topo.requiredAntiAffinityTerms(pod); len(terms) > 0 {
				existingTerms[pod] = terms
			}
		}
	}
	// Domains are known once every group exists; then pods already running are counted.
	s.topo.domainsFromPools(s.pools)
	for _, e := range s.existing {
		if e.labels != nil {
			s.topo.domainsFromLabels(e.labels)
		}
	}
	s.topo.seal(s.existing, s.pools)
	for _, e := range s.existing {
		s.topo.countNode(e.node.Pods, existingTerms, e.view())
	}
	for _, p := range s.pods {
		s.topo.bind(p)
	}
	return s
}

// HasRequiredAntiAffinity reports whether the pod has a required pod anti-affinity term, which
// binds the pods it selects wherever they are placed.
func HasRequiredAntiAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

func hasPreferNoSchedule(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
}

// placeRelaxing places the pod, relaxing its preferences one at a time until it fits.
//
// When nothing takes it, a zone spread may refuse the nodes only because of a zone where no
// node is and none can be launched for the pod: one a NodeClaim of the run could have got when
// an earlier pod was placed, before later placements narrowed it to another. The
// kube-scheduler, which counts nodes only, will bind the pod to one of the nodes. The run then
// closes those zones to the spread, as placeNominated does, and puts the pod where the
// kube-scheduler will.
func (s *scheduler) placeRelaxing(p *podInfo) error {
	err := s.place(p)
	for err != nil && p.relax(s.preferNoSchedule) {
		err = s.place(p)
	}
	if err == nil {
		return nil
	}
	closed := s.topo.closeUnlaunched(p, s.nodeDomains)
	if len(closed) == 0 {
		return err
	}
	if s.placeOnNodes(p) {
		return nil
	}
	s.topo.reopen(closed)
	return err
}

// placeOnNodes puts the pod on an existing node, else on a NodeClaim opened in this run.
func (s *scheduler) placeOnNodes(p *podInfo) bool {
	for _, e := range s.existing {
		if s.placeExisting(p, e) {
			return true
		}
	}
	return s.placeOpen(p)
}

// nodeDomains are the domains of the group's key where a node it counts is, or may still
// be: the existing nodes and this run's NodeClaims, as their requirements stand now.
func (s *scheduler) nodeDomains(g *topologyGroup) sets.Set[string] {
	out := sets.New[string]()
	for _, e := range s.existing {
		s.topo.insertNodeDomains(g, out, e.view())
	}
	for _, n := range s.claims {
		s.topo.insertNodeDomains(g, out, n.view())
	}
	return out
}

// place puts the pod on an existing node, else on a NodeClaim opened in this run, else on a
// new NodeClaim from the first NodePool that can take it.
func (s *scheduler) place(p *podInfo) error {
	if s.placeOnNodes(p) {
		return nil
	}
	refused := &NodePoolsError{}
	hostname := fmt.Sprintf("hostname-placeholder-%04d", len(s.claims)+1)
	for _, t := range s.pools {
		n, err := t.open(p, s.topo, hostname)
		if err != nil {
			refused.Reasons = append(refused.Reasons, NodePoolReason{NodePool: t.name, Reason: err.Error()})
			continue
		}
		s.topo.record(p, n.view())
		s.claims = append(s.claims, n)
		s.byPods = append(s.byPods, n)
		s.res.Placed = append(s.res.Placed, Placement{Pod: p.pod, NodeClaim: n})
		return nil
	}
	return refused
}

// placeExisting puts the pod on the existing node if it fits there.
func (s *scheduler) placeExisting(p *podInfo, e *existingNode) bool {
	if e.node.TopologyOnly {
		return false
	}
	topoReqs, err := s.topo.requirementsFor(p, e.view())
	if err != nil {
		return false
	}
	reqs, err := e.canAdd(p, topoReqs)
	if err != nil {
		return false
	}
	e.add(p, reqs)
	s.topo.record(p, e.view())
	s.res.Placed = append(s.res.Placed, Placement{Pod: p.pod, ExistingNode: e.node.ID})
	return true
}

// placeAllNominated puts the nominated pods back on their nodes first, in passes as long as
// a pass places one (a pod the earlier run placed late, once others had moved the spread
// counts, fits again only once they are back), and returns the pods left to place: those
// that no longer fit their node, then the others, in queue order.
func (s *scheduler) placeAllNominated() []*podInfo {
	var nominated, others []*podInfo
	for _, p := range s.pods {
		if !p.nominated.IsZero() {
			nominated = append(nominated, p)
		} else {
			others = append(others, p)
		}
	}
	for progress := true; progress && len(nominated) > 0; {
		progress = false
		var left []*podInfo
		for _, p := range nominated {
			if s.placeNominated(p) {
				progress = true
			} else {
				left = append(left, p)
			}
		}
		nominated = left
	}
	return append(nominated, others...)
}

// placeNominated puts a pod an earlier run placed on an existing node (most often a NodeClaim
// in flight opened for it) back there, relaxing its preferences as far as that takes: that
// run already weighed them, and deciding again would open a second NodeClaim for the pod
// while the first comes up. False, with the pod as it was, when it no longer fits there.
//
// A zone spread may refuse it only because a NodePool can now launch in a zone with none of
// the spread's pods and no node (a launch since freed some of its limits, say): the
// kube-scheduler, which counts nodes only, will bind the pod where it was put. Then this run
// leaves those zones closed to the spread rather than launch twice for the pod.
func (s *scheduler) placeNominated(p *podInfo) bool {
	i := slices.IndexFunc(s.existing, func(e *existingNode) bool { return e.node.ID.Same(p.nominated) })
	if i < 0 {
		return false
	}
	if s.placeOnRelaxing(p, s.existing[i]) {
		return true
	}
	closed := s.topo.closeUnlaunched(p, s.nodeDomains)
	if len(closed) > 0 && s.placeOnRelaxing(p, s.existing[i]) {
		return true
	}
	s.topo.reopen(closed)
	return false
}

// placeOnRelaxing places the pod on the existing node, relaxing its preferences until it fits
// there; false, with the pod as it was, when it does not.
func (s *scheduler) placeOnRelaxing(p *podInfo, e *existingNode) bool {
	// relax replaces the fields it changes, so a copy restores the pod.
	saved := *p
	for !s.placeExisting(p, e) {
		if !p.relax(s.preferNoSchedule) {
			*p = saved
			return false
		}
	}
	return true
}

// placeOpen tries the NodeClaims opened in this run, fewest pods first, and keeps byPods in
// that order (among equal counts, the order in which they reached it).
func (s *scheduler) placeOpen(p *podInfo) bool {
	byPods := s.byPods
	for i, n := range byPods {
		topoReqs, err := s.topo.requirementsFor(p, n.view())
		if err != nil {
			continue
		}
		reqs, types, ds, err := n.canAdd(p, topoReqs)
		if err != nil {
			continue
		}
		n.add(p, reqs, types, ds)
		s.topo.record(p, n.view())
		s.res.Placed = append(s.res.Placed, Placement{Pod: p.pod, NodeClaim: n})
		// n has one more pod: move it right past the claims that now have fewer.
		j := i
		for j+1 < len(byPods) && len(byPods[j+1].Pods) < len(n.Pods) {
			byPods[j] = byPods[j+1]
			j++
		}
		byPods[j] = n
		return true
	}
	return false
}

func (s *scheduler) results() *Results {
	for _, e := range s.existing {
		if len(e.pods) > 0 {
			s.res.ExistingPlacements[e.node.ID] = e.pods
		}
	}
	for _, n := range s.claims {
		n.finalize()
	}
	s.res.NewNodeClaims = s.claims
	return s.res
}

func weight(np *karpv1.NodePool) int32 {
	if np.Spec.Weight == nil {
		return 0
	}
	return *np.Spec.Weight
}

// comparePods orders pods by CPU request descending, then memory descending, then creation
// time, then namespace and name.
func comparePods(a, b *podInfo) int {
	return cmp.Or(
		cmp.Compare(b.requests.core[coreCPU], a.requests.core[coreCPU]),
		cmp.Compare(b.requests.core[coreMemory], a.requests.core[coreMemory]),
		a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time),
		cmp.Compare(a.pod.Namespace, b.pod.Namespace),
		cmp.Compare(a.pod.Name, b.pod.Name),
	)
}
