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

// Topology: pod topology spread constraints and inter-pod affinity and anti-affinity.
//
// Every distinct constraint (kind, topology key, namespaces, selector, skew) is one
// topologyGroup that counts, per domain of its key, the pods its selector matches: pods already
// bound to existing nodes and pods placed earlier in the run. A pod is constrained by the groups
// it owns and, for anti-affinity, by the groups whose selector matches it (the symmetric rule
// the kube-scheduler applies). Before a pod is tried on a node, the groups narrow the domains
// the node may be in; on a NodeClaim whose zone is still open this becomes a zone requirement.
//
// Hostname domains of new NodeClaims are placeholders, one per NodeClaim, and a hostname
// spread always counts a new node as a domain with no pods (minimum 0), as upstream Karpenter
// does: another node can always be launched.

package simulation

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/labelindex"
)

type topologyKind uint8

const (
	kindSpread topologyKind = iota
	kindAffinity
	kindAntiAffinity
)

func (k topologyKind) String() string {
	switch k {
	case kindSpread:
		return "topology spread"
	case kindAffinity:
		return "pod affinity"
	default:
		return "pod anti-affinity"
	}
}

// topologyGroup counts the pods one selector matches in each domain of one key.
type topologyGroup struct {
	kind       topologyKind
	key        string
	namespaces sets.Set[string] // nil: every namespace
	selector   labels.Selector
	maxSkew    int32
	minDomains int32
	describe   string
	// filter, for a spread, says which nodes count. The spread is balanced over the domains
	// of the nodes it counts (nodeDomains, which grows as pods are placed) and those that
	// NodePools its pods can launch into can still give a node (poolDomains).
	filter      *spreadFilter
	nodeDomains sets.Set[string]
	poolDomains map[string][]*poolTemplate
	// launchers are, for a hostname spread, the NodePools its pods can launch into.
	launchers []*poolTemplate
	// closed are pool domains the run no longer balances over (see closeUnlaunched).
	closed sets.Set[string]

	counts map[string]int32 // matching pods per domain; every known domain is present
	total  int32
	// peak is, for a spread, the highest count a pod owning it made its domain reach in this
	// run: a domain with no pods that becomes eligible later is harmless unless peak exceeds
	// maxSkew (see balancedDomains).
	peak int32
	// owners counts, for anti-affinity, the pods owning the term per domain: a pod the
	// selector matches may not join them.
	owners map[string]int32
}

// matches reports whether the group's selector counts the pod.
func (g *topologyGroup) matches(pod *corev1.Pod) bool {
	if g.namespaces != nil && !g.namespaces.Has(pod.Namespace) {
		return false
	}
	return g.selector.Matches(labels.Set(pod.Labels))
}

// podTerm is a constraint a pod owns: a group and whether it is only a preference.
type podTerm struct {
	group     *topologyGroup
	preferred bool
	weight    int32
}

// topology is the set of groups of one scheduling run.
type topology struct {
	groups  map[string]*topologyGroup
	ordered []*topologyGroup
	// domains are the known values of each topology key: zones the NodePools can launch in,
	// labels of existing nodes. Hostname domains are added as nodes are opened.
	domains  map[string][]string
	nsLabels map[string]map[string]string
	// groupIndex finds the groups that may count a pod (see index).
	groupIndex *groupIndex
	// keys are the groups' topology keys but the hostname, listed when keysOf groups existed.
	keys   []string
	keysOf int
}

func newTopology(nsLabels map[string]map[string]string) *topology {
	return &topology{groups: map[string]*topologyGroup{}, domains: map[string][]string{}, nsLabels: nsLabels}
}

// termsOf builds (or finds) the groups of a pod's own constraints.
func (t *topology) termsOf(pod *corev1.Pod) ([]podTerm, error) {
	var terms []podTerm
	for i := range pod.Spec.TopologySpreadConstraints {
		tsc := &pod.Spec.TopologySpreadConstraints[i]
		sel, err := spreadSelector(pod, tsc)
		if err != nil {
			return nil, fmt.Errorf("topology spread constraint on %s: %w", tsc.TopologyKey, err)
		}
		minDomains := int32(1)
		if tsc.MinDomains != nil {
			minDomains = *tsc.MinDomains
		}
		g := t.group(kindSpread, tsc.TopologyKey, sets.New(pod.Namespace), sel, tsc.MaxSkew, minDomains, newSpreadFilter(pod, tsc))
		terms = append(terms, podTerm{group: g, preferred: tsc.WhenUnsatisfiable == corev1.ScheduleAnyway})
	}
	a := pod.Spec.Affinity
	if a == nil {
		return terms, nil
	}
	add := func(kind topologyKind, term *corev1.PodAffinityTerm, preferred bool, weight int32) error {
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			return fmt.Errorf("%s term on %s: %w", kind, term.TopologyKey, err)
		}
		if term.LabelSelector == nil {
			sel = labels.Nothing()
		}
		sel = withMatchLabelKeys(sel, pod, term.MatchLabelKeys, selection.In)
		sel = withMatchLabelKeys(sel, pod, term.MismatchLabelKeys, selection.NotIn)
		ns, err := t.termNamespaces(pod, term)
		if err != nil {
			return fmt.Errorf("%s term on %s: %w", kind, term.TopologyKey, err)
		}
		terms = append(terms, podTerm{group: t.group(kind, term.TopologyKey, ns, sel, 0, 0, nil), preferred: preferred, weight: weight})
		return nil
	}
	type termsOf struct {
		kind      topologyKind
		required  []corev1.PodAffinityTerm
		preferred []corev1.WeightedPodAffinityTerm
	}
	var kinds []termsOf
	if pa := a.PodAffinity; pa != nil {
		kinds = append(kinds, termsOf{kindAffinity, pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution})
	}
	if pa := a.PodAntiAffinity; pa != nil {
		kinds = append(kinds, termsOf{kindAntiAffinity, pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution})
	}
	for _, k := range kinds {
		for i := range k.required {
			if err := add(k.kind, &k.required[i], false, 0); err != nil {
				return nil, err
			}
		}
		for i := range k.preferred {
			if err := add(k.kind, &k.preferred[i].PodAffinityTerm, true, k.preferred[i].Weight); err != nil {
				return nil, err
			}
		}
	}
	return terms, nil
}

// spreadSelector is the constraint's selector plus, for each matchLabelKeys key, the pod's own
// value of it (what the API server does for pod affinity, done here for spreads).
func spreadSelector(pod *corev1.Pod, tsc *corev1.TopologySpreadConstraint) (labels.Selector, error) {
	if tsc.LabelSelector == nil {
		return labels.Nothing(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("reading its labelSelector: %w", err)
	}
	return withMatchLabelKeys(sel, pod, tsc.MatchLabelKeys, selection.In), nil
}

func withMatchLabelKeys(sel labels.Selector, pod *corev1.Pod, keys []string, op selection.Operator) labels.Selector {
	for _, k := range keys {
		v, ok := pod.Labels[k]
		if !ok {
			continue
		}
		if r, err := labels.NewRequirement(k, op, []string{v}); err == nil {
			sel = sel.Add(*r)
		}
	}
	return sel
}

// termNamespaces resolves an affinity term's namespaces: those listed plus those its
// namespaceSelector matches; the pod's own namespace when it has neither; every namespace for
// an empty selector.
func (t *topology) termNamespaces(pod *corev1.Pod, term *corev1.PodAffinityTerm) (sets.Set[string], error) {
	if term.NamespaceSelector == nil {
		if len(term.Namespaces) == 0 {
			return sets.New(pod.Namespace), nil
		}
		return sets.New(term.Namespaces...), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return nil, fmt.Errorf("reading its namespaceSelector: %w", err)
	}
	if sel.Empty() {
		return nil, nil
	}
	ns := sets.New(term.Namespaces...)
	for name, l := range t.nsLabels {
		if sel.Matches(labels.Set(l)) {
			ns.Insert(name)
		}
	}
	return ns, nil
}

// group returns the group with this identity, creating it.
func (t *topology) group(kind topologyKind, key string, ns sets.Set[string], sel labels.Selector, maxSkew, minDomains int32, filter *spreadFilter) *topologyGroup {
	key = scheduling.NormalizeKey(key)
	nsDesc := "*"
	if ns != nil {
		nsDesc = strings.Join(sets.List(ns), ",")
	}
	id := fmt.Sprintf("%d|%s|%s|%s|%d|%d", kind, key, nsDesc, sel.String(), maxSkew, minDomains)
	if filter != nil {
		id += "|" + filter.id
	}
	if g, ok := t.groups[id]; ok {
		return g
	}
	desc := fmt.Sprintf("%s on %s for pods matching {%s}", kind, key, sel.String())
	if kind == kindSpread {
		desc = fmt.Sprintf("topology spread on %s (maxSkew %d) for pods matching {%s}", key, maxSkew, sel.String())
	}
	g := &topologyGroup{kind: kind, key: key, namespaces: ns, selector: sel, maxSkew: maxSkew, minDomains: minDomains,
		describe: desc, counts: map[string]int32{}, owners: map[string]int32{}, filter: filter}
	t.groups[id] = g
	t.ordered = append(t.ordered, g)
	return g
}

// addDomains makes values known domains of key.
func (t *topology) addDomains(key string, values ...string) {
	for _, v := range values {
		if !slices.Contains(t.domains[key], v) {
			t.domains[key] = append(t.domains[key], v)
		}
	}
}

// seal sorts the domains, gives every group a zero count for each known domain, and works out
// each spread's eligible domains: those of the nodes it counts and of the NodePools its pods
// can launch into.
//
//nolint:gocyclo // each spread's eligible domains from nodes and from NodePools, done once per filter and key in one loop so that large clusters are walked once
func (t *topology) seal(existing []*existingNode, pools []*poolTemplate) {
	for k := range t.domains {
		slices.Sort(t.domains[k])
	}
	// Spreads whose filters are the same (the same id) on the same key see the same domains:
	// the nodes are looked at once for all of them.
	type seen struct{ filter, key string }
	sealed := map[seen]*topologyGroup{}
	for _, g := range t.ordered {
		for _, d := range t.domains[g.key] {
			if _, ok := g.counts[d]; !ok {
				g.counts[d] = 0
			}
		}
		if g.filter == nil {
			continue
		}
		if first, ok := sealed[seen{g.filter.id, g.key}]; ok {
			g.nodeDomains, g.poolDomains, g.launchers = first.nodeDomains.Clone(), maps.Clone(first.poolDomains), first.launchers
			continue
		}
		sealed[seen{g.filter.id, g.key}] = g
		g.nodeDomains, g.poolDomains = sets.New[string](), map[string][]*poolTemplate{}
		for _, e := range existing {
			t.insertNodeDomains(g, g.nodeDomains, e.view())
		}
		if g.key == corev1.LabelHostname {
			for _, pool := range pools {
				if g.filter.admitsPool(pool) {
					g.launchers = append(g.launchers, pool)
				}
			}
			continue
		}
		for _, pool := range pools {
			if r, ok := pool.base[g.key]; ok && !r.IsComplement() && g.filter.admitsPool(pool) {
				for _, d := range r.Values() {
					if g.filter.reach.Get(g.key).Has(d) {
						g.poolDomains[d] = append(g.poolDomains[d], pool)
					}
				}
			}
		}
	}
}

// eachEligible calls fn with each domain the spread is balanced over now: those of the nodes
// it counts, and those a NodePool its pods can launch into still has room to give a node in.
func (g *topologyGroup) eachEligible(fn func(string)) {
	for d := range g.nodeDomains {
		if !g.closed.Has(d) {
			fn(d)
		}
	}
	for d, pools := range g.poolDomains {
		if !g.nodeDomains.Has(d) && !g.closed.Has(d) && slices.ContainsFunc(pools, func(p *poolTemplate) bool { return p.canLaunchIn(g.key, d) }) {
			fn(d)
		}
	}
}

// nodeView is what topology needs to know of a node a pod is tried on.
type nodeView struct {
	labels   map[string]string       // a real node's labels (normalized keys), or nil
	reqs     scheduling.Requirements // a NodeClaim's requirements, when labels is nil
	hostname string
	taints   []corev1.Taint
}

// insertNodeDomains adds to domains those of the spread's key the node is or may become part
// of, when the spread counts the node.
func (t *topology) insertNodeDomains(g *topologyGroup, domains sets.Set[string], v *nodeView) {
	if g.filter.admits(v) {
		t.eachDomain(v, g.key, func(d string) { domains.Insert(d) })
	}
}

// domains calls fn with each domain of key the node is or may become part of.
func (t *topology) eachDomain(v *nodeView, key string, fn func(string)) {
	if key == corev1.LabelHostname {
		fn(v.hostname)
		return
	}
	if v.labels != nil {
		if d, ok := v.labels[key]; ok {
			fn(d)
		}
		return
	}
	r, ok := v.reqs[key]
	if !ok {
		return // a NodeClaim gets no label its requirements do not mention
	}
	for _, d := range t.domains[key] {
		if r.Has(d) {
			fn(d)
		}
	}
}

// topologyError says which constraint a node cannot meet; it is cheap to create because most
// are discarded while other nodes are tried.
type topologyError struct{ group *topologyGroup }

func (e *topologyError) Error() string { return e.group.describe + " cannot be satisfied" }

// requirementsFor returns the topology requirements for placing p on the node: nil when
// nothing constrains it, a narrowed domain per key for a NodeClaim, or an error when no domain
// of the node is allowed.
//
// A pod a spread counts also narrows an open NodeClaim to one domain of the spread's key, the
// one where the spread has fewest pods, although the pod does not own the spread: the spread
// can only count it in a known domain, and a NodeClaim narrowed later, by another pod, would
// otherwise put it in a domain the spread never counted it in. The kube-scheduler counts it
// there, and would refuse the spread pods placed on the strength of the lower count.
//
//nolint:gocyclo // the narrowing rules for each topology key the pod meets, owned or counted, in the order the kube-scheduler's filters apply
func (t *topology) requirementsFor(p *podInfo, v *nodeView) (scheduling.Requirements, error) {
	if len(p.terms) == 0 && len(p.inverse) == 0 && len(p.spreadKeys) == 0 {
		return nil, nil
	}
	var out scheduling.Requirements
	narrow := func(key string, domains ...string) {
		if out == nil {
			out = scheduling.Requirements{}
		}
		out[key] = scheduling.NewRequirement(key, karpv1.NodeSelectorOpIn, domains...)
	}
	for _, key := range p.topologyKeys {
		allowed, unconstrained, blocking := t.allowedDomains(p, v, key)
		if blocking != nil {
			return nil, &topologyError{group: blocking}
		}
		if unconstrained || v.labels != nil || key == corev1.LabelHostname {
			continue // no domain to narrow: the node's is fixed and allowed, or it has none
		}
		if len(allowed) > 1 {
			if d, ok := leastSpread(p, v, key, allowed); ok {
				allowed = []string{d}
			}
		}
		narrow(key, allowed...)
	}
	if v.labels != nil {
		return out, nil
	}
	for _, key := range p.spreadKeys {
		if slices.Contains(p.topologyKeys, key) {
			continue // narrowed above
		}
		podReq := p.requirements[key]
		var open []string
		t.eachDomain(v, key, func(d string) {
			if podReq == nil || podReq.Has(d) {
				open = append(open, d)
			}
		})
		if len(open) > 1 {
			if d, ok := leastSpread(p, v, key, open); ok {
				narrow(key, d)
			}
		}
	}
	return out, nil
}

// leastSpread picks, of domains, the one where the spreads on key that count p on the node
// have the fewest pods (the first on ties); false when none counts it there.
func leastSpread(p *podInfo, v *nodeView, key string, domains []string) (string, bool) {
	var spreads []*topologyGroup
	for g := range p.counted {
		if g.kind == kindSpread && g.key == key && (g.filter == nil || g.filter.admits(v)) {
			spreads = append(spreads, g)
		}
	}
	if len(spreads) == 0 {
		return "", false
	}
	return pickDomain(domains, func(d string) int32 {
		var pods int32
		for _, g := range spreads {
			pods += g.counts[d]
		}
		return -pods
	}), true
}

// allowedDomains filters the node's domains for key by every constraint on p, then narrows a
// spread or affinity to its single best domain. With nothing allowed it returns the group that
// refused; unconstrained means the node has no domain for the key and only anti-affinity,
// which such a node cannot break, applies.
//
//nolint:gocyclo // every kind of term (spread, affinity, anti-affinity, the symmetric rule) judged per domain in one walk of the domains
func (t *topology) allowedDomains(p *podInfo, v *nodeView, key string) (allowed []string, unconstrained bool, blocking *topologyGroup) {
	var spread, affinity, anti *topologyGroup
	podReq := p.requirements[key]
	t.eachDomain(v, key, func(d string) {
		if podReq != nil && v.labels == nil && !podReq.Has(d) {
			return // the pod itself rules the domain out
		}
		for _, term := range p.terms {
			g := term.group
			if g.key != key {
				continue
			}
			if !g.allows(p, d) {
				blocking = g
				return
			}
			switch g.kind {
			case kindSpread:
				if spread == nil {
					spread = g
				}
			case kindAffinity:
				if affinity == nil {
					affinity = g
				}
			default:
				anti = g
			}
		}
		for _, g := range p.inverse {
			if g.key == key && g.owners[d] > 0 {
				blocking = g
				return
			}
		}
		allowed = append(allowed, d)
	})
	if len(allowed) == 0 {
		if blocking == nil {
			// The node has no domain for the key (the label is missing).
			for _, term := range p.terms {
				if term.group.key == key && term.group.kind != kindAntiAffinity {
					return nil, false, term.group
				}
			}
			return nil, true, nil
		}
		return nil, false, blocking
	}
	if len(allowed) > 1 {
		switch {
		case spread != nil:
			allowed = []string{pickDomain(allowed, func(d string) int32 { return -spread.counts[d] })}
		case affinity != nil:
			allowed = []string{pickDomain(allowed, func(d string) int32 { return affinity.counts[d] })}
		case anti != nil:
			// A node is in one domain; committing to one now keeps the others free for the
			// pods the term repels, instead of blocking every domain the node might be in.
			allowed = allowed[:1]
		}
	}
	return allowed, false, nil
}

// pickDomain returns the domain with the highest score, the first in order on ties.
func pickDomain(domains []string, score func(string) int32) string {
	best, bestScore := domains[0], score(domains[0])
	for _, d := range domains[1:] {
		if s := score(d); s > bestScore {
			best, bestScore = d, s
		}
	}
	return best
}

// allows reports whether the pod, owning this group's constraint, may be placed in domain d.
func (g *topologyGroup) allows(p *podInfo, d string) bool {
	switch g.kind {
	case kindSpread:
		count := g.counts[d]
		if p.counted.Has(g) {
			count++
		}
		return count-g.minCount() <= g.maxSkew
	case kindAffinity:
		if g.counts[d] > 0 {
			return true
		}
		return p.startsAffinityGroups()
	default:
		return g.counts[d] == 0
	}
}

// startsAffinityGroups is the kube-scheduler's exception for the first pod of a group that
// selects itself: when no pod anywhere matches any of the pod's pod affinity terms, the pod
// may go anywhere if it matches all of them itself.
func (p *podInfo) startsAffinityGroups() bool {
	for _, term := range p.terms {
		if g := term.group; g.kind == kindAffinity && (g.total > 0 || !p.counted.Has(g)) {
			return false
		}
	}
	return true
}

// minCount is the smallest number of matching pods in an eligible domain of the spread
// (hostnameMinCount for hostname spreads); 0 when fewer domains are eligible than minDomains.
func (g *topologyGroup) minCount() int32 {
	if g.key == corev1.LabelHostname {
		return g.hostnameMinCount()
	}
	domains, lowest := int32(0), int32(0)
	g.eachEligible(func(d string) {
		if c := g.counts[d]; domains == 0 || c < lowest {
			lowest = c
		}
		domains++
	})
	if domains < g.minDomains {
		return 0
	}
	return lowest
}

// hostnameMinCount is 0 while a NodePool the spread's pods can launch into has room for a
// node (a new node is a hostname with no pods), and otherwise the fewest matching pods on a
// node the spread counts, as the kube-scheduler computes it: a pod whose pools are all at
// their limits may still join the nodes there are.
func (g *topologyGroup) hostnameMinCount() int32 {
	if len(g.nodeDomains) < int(max(g.minDomains, 1)) || slices.ContainsFunc(g.launchers, func(p *poolTemplate) bool { return !p.full }) {
		return 0
	}
	first, lowest := true, int32(0)
	for d := range g.nodeDomains {
		if c := g.counts[d]; first || c < lowest {
			first, lowest = false, c
		}
	}
	return lowest
}

// record counts a pod placed on a node in every group it is counted by.
func (t *topology) record(p *podInfo, v *nodeView) {
	// The node will be there, and the kube-scheduler will count its domain for every spread
	// that admits it, whether or not it holds their pods. While a NodeClaim's domain is open
	// (the launch chooses), each domain it may get counts: a placement must hold whichever it
	// gets.
	for _, g := range t.ordered {
		if g.nodeDomains != nil {
			t.insertNodeDomains(g, g.nodeDomains, v)
		}
	}
	for g := range p.counted {
		if g.filter != nil && !g.filter.admits(v) {
			continue
		}
		var domains []string
		t.eachDomain(v, g.key, func(d string) { domains = append(domains, d) })
		if g.kind == kindAntiAffinity {
			// Any domain the node may still become is blocked for the term's owners.
			for _, d := range domains {
				g.counts[d]++
			}
			g.total++
		} else if len(domains) == 1 {
			g.counts[domains[0]]++
			g.total++
			if g.kind == kindSpread && p.owns(g) {
				g.peak = max(g.peak, g.counts[domains[0]])
			}
		}
	}
	for _, term := range p.terms {
		// Only required anti-affinity binds the pods it selects (the kube-scheduler's symmetric
		// rule); a preference binds just its owner.
		if term.group.kind != kindAntiAffinity || term.preferred {
			continue
		}
		t.eachDomain(v, term.group.key, func(d string) { term.group.owners[d]++ })
	}
}

// owns reports whether the pod's own required constraints include the group.
func (p *podInfo) owns(g *topologyGroup) bool {
	return slices.ContainsFunc(p.terms, func(term podTerm) bool { return term.group == g && !term.preferred })
}

// balancedDomains narrows a NodeClaim about to be opened to the domains that keep the run's
// spreads valid, nil when nothing needs narrowing. The kube-scheduler counts every node a
// spread admits, whichever pods it holds and whichever NodePool it comes from (a taint the
// spread's pods do not tolerate counts under nodeTaintsPolicy Ignore). A NodeClaim opened for
// other pods in a domain a spread was not balanced over would add an empty domain behind the
// spread's back: pods placed earlier in the run, up to maxSkew above the old minimum, would be
// refused against the new one. So such a NodeClaim keeps to the domains the spread already
// counts; when it may launch in none of them it is not opened (unbalancedError): its pod waits
// for a later pass, once the spread's pods are bound and no longer placed against the old
// minimum.
func (t *topology) balancedDomains(v *nodeView) (scheduling.Requirements, error) {
	var out scheduling.Requirements
	for _, g := range t.ordered {
		if g.kind != kindSpread || g.nodeDomains == nil || g.peak <= g.maxSkew || !g.filter.admits(v) {
			continue
		}
		eligible := sets.New[string]()
		g.eachEligible(func(d string) { eligible.Insert(d) })
		var keep, outside []string
		t.eachDomain(v, g.key, func(d string) {
			if eligible.Has(d) {
				keep = append(keep, d)
			} else {
				outside = append(outside, d)
			}
		})
		if len(outside) == 0 {
			continue
		}
		if len(keep) == 0 {
			slices.Sort(outside)
			return nil, &unbalancedError{group: g, domains: outside}
		}
		if out == nil {
			out = scheduling.Requirements{}
		}
		out.Add(scheduling.NewRequirement(g.key, karpv1.NodeSelectorOpIn, keep...))
	}
	return out, nil
}

// unbalancedError is a NodeClaim refused because each domain it may launch in would be a new,
// empty domain of a spread whose pods this run placed against the old minimum.
type unbalancedError struct {
	group   *topologyGroup
	domains []string
}

func (e *unbalancedError) Error() string {
	return fmt.Sprintf("a new node in %s %s would unbalance the %s, whose pods this run placed on other nodes first", e.group.key, strings.Join(e.domains, ", "), e.group.describe)
}

// closedDomain is a domain closed to a spread.
type closedDomain struct {
	group  *topologyGroup
	domain string
}

// closeUnlaunched closes, for each zonal spread the pod must meet, the domains it is balanced
// over although no node is in them: a NodePool could launch there, or a NodeClaim of the run
// could have when an earlier pod was placed. The spread is then
// balanced over its nodes' domains for the rest of the run, and balancedDomains keeps the
// NodeClaims the run opens out of the closed ones once a pod is placed above their count.
//
// nodeDomains says where a node the spread counts is, or may still be, as the run stands:
// g.nodeDomains also keeps the domains a NodeClaim could get when a pod was placed, which
// later placements may have narrowed away.
func (t *topology) closeUnlaunched(p *podInfo, nodeDomains func(*topologyGroup) sets.Set[string]) []closedDomain {
	var out []closedDomain
	for _, term := range p.terms {
		g := term.group
		if g.kind != kindSpread || term.preferred || g.nodeDomains == nil {
			continue
		}
		withNodes := nodeDomains(g)
		for d := range g.domainsKnown() {
			if withNodes.Has(d) || g.closed.Has(d) {
				continue
			}
			if g.closed == nil {
				g.closed = sets.New[string]()
			}
			g.closed.Insert(d)
			out = append(out, closedDomain{g, d})
		}
	}
	return out
}

// domainsKnown are the domains the spread is balanced over, closed or not: those of its
// nodes (as far as a NodeClaim's could reach when a pod was placed) and its NodePools'.
func (g *topologyGroup) domainsKnown() sets.Set[string] {
	out := g.nodeDomains.Clone()
	for d := range g.poolDomains {
		out.Insert(d)
	}
	return out
}

// reopen undoes closeUnlaunched.
func (t *topology) reopen(closed []closedDomain) {
	for _, c := range closed {
		c.group.closed.Delete(c.domain)
	}
}

// requiredAntiAffinityTerms registers the required anti-affinity terms of a pod already
// running: pods of the run that they select must keep out of its domain.
func (t *topology) requiredAntiAffinityTerms(pod *corev1.Pod) []podTerm {
	if !HasRequiredAntiAffinity(pod) {
		return nil
	}
	a := pod.Spec.Affinity
	only := &corev1.Pod{ObjectMeta: pod.ObjectMeta, Spec: corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
	}}}}
	terms, err := t.termsOf(only)
	if err != nil {
		return nil // the API server validated it; a selector we cannot parse selects nothing
	}
	return terms
}

// countNode counts the pods bound to an existing node in every group that matches them, and
// marks the node's domains as taken for the anti-affinity terms they own. A spread counts only
// the nodes its filter admits and, like the kube-scheduler, no pod that is terminating.
func (t *topology) countNode(pods []*corev1.Pod, terms map[*corev1.Pod][]podTerm, v *nodeView) {
	index := t.index()
	for _, pod := range pods {
		index.Each(pod.Labels, func(g *topologyGroup) {
			if !g.matches(pod) || (g.kind == kindSpread && !pod.DeletionTimestamp.IsZero()) || (g.filter != nil && !g.filter.admits(v)) {
				return
			}
			t.eachDomain(v, g.key, func(d string) {
				g.counts[d]++
				g.total++
			})
		})
	}
	for _, pod := range pods {
		for _, term := range terms[pod] {
			t.eachDomain(v, term.group.key, func(d string) { term.group.owners[d]++ })
		}
	}
}

// groupIndex narrows the groups a pod may be counted by, so that counting the pods of every
// existing node does not try every group on every pod.
type groupIndex struct {
	// size is how many of the topology's groups it lists; groups made later rebuild it.
	size int
	*labelindex.Index[*topologyGroup]
}

// index returns the index of the topology's groups as they are now.
func (t *topology) index() *groupIndex {
	if t.groupIndex != nil && t.groupIndex.size == len(t.ordered) {
		return t.groupIndex
	}
	t.groupIndex = &groupIndex{
		size:  len(t.ordered),
		Index: labelindex.New(t.ordered, func(g *topologyGroup) labels.Selector { return g.selector }),
	}
	return t.groupIndex
}

// bind computes what a pod of the run is counted by and constrained by.
func (t *topology) bind(p *podInfo) {
	p.counted = sets.New[*topologyGroup]()
	p.inverse = nil
	spreadKeys := sets.New[string]()
	for _, g := range t.ordered {
		if !g.matches(p.pod) {
			continue
		}
		p.counted.Insert(g)
		switch {
		case g.kind == kindAntiAffinity:
			p.inverse = append(p.inverse, g)
		case g.kind == kindSpread && g.key != corev1.LabelHostname:
			spreadKeys.Insert(g.key)
		}
	}
	p.spreadKeys = sets.List(spreadKeys)
	p.refreshKeys()
}

// refreshKeys lists the topology keys that constrain the pod, in order.
func (p *podInfo) refreshKeys() {
	keys := sets.New[string]()
	for _, term := range p.terms {
		keys.Insert(term.group.key)
	}
	for _, g := range p.inverse {
		keys.Insert(g.key)
	}
	p.topologyKeys = sets.List(keys)
}

// domainsFromPools registers the domains NodePools can launch into for every topology key.
func (t *topology) domainsFromPools(pools []*poolTemplate) {
	keys := sets.New[string]()
	for _, g := range t.ordered {
		keys.Insert(g.key)
	}
	for key := range keys {
		if key == corev1.LabelHostname {
			continue
		}
		for _, pool := range pools {
			if r, ok := pool.base[key]; ok && !r.IsComplement() {
				t.addDomains(key, r.Values()...)
			}
		}
	}
}

// domainsFromLabels registers an existing node's label values for every topology key.
func (t *topology) domainsFromLabels(l map[string]string) {
	for _, key := range t.labelKeys() {
		if v, ok := l[key]; ok {
			t.addDomains(key, v)
		}
	}
}

// labelKeys are the groups' topology keys but the hostname, each once, in the groups' order.
func (t *topology) labelKeys() []string {
	if t.keysOf != len(t.ordered) {
		t.keys, t.keysOf = nil, len(t.ordered)
		for _, g := range t.ordered {
			if g.key != corev1.LabelHostname && !slices.Contains(t.keys, g.key) {
				t.keys = append(t.keys, g.key)
			}
		}
	}
	return t.keys
}
