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
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// MaxInstanceTypes caps the instance types a NodeClaim carries (cheapest first).
const MaxInstanceTypes = 60

// NewNodeClaim is capacity the scheduler decided to launch: the pods it is for and the instance
// types that can hold them.
type NewNodeClaim struct {
	// NodePoolName is the NodePool the NodeClaim is opened from.
	NodePoolName string
	// NodePool is that NodePool; its template shapes ToNodeClaim.
	NodePool *karpv1.NodePool
	// Pods are the pods scheduled to it.
	Pods []*corev1.Pod
	// Requests are the pods' requests plus the daemonset overhead.
	Requests corev1.ResourceList
	// Requirements are the template requirements intersected with those of the pods and the
	// label values (and offering zones and capacity types) of InstanceTypes.
	Requirements scheduling.Requirements
	// InstanceTypes are the compatible types that fit, cheapest first, at most
	// MaxInstanceTypes.
	InstanceTypes []*cloudprovider.InstanceType

	tmpl        *poolTemplate
	hostname    string // placeholder domain for hostname topology
	reqs        scheduling.Requirements
	types       []*itInfo
	podRequests resVec
	dsRequests  resVec
	ports       []hostPort
	// largest is the per-resource maximum allocatable of the types the NodeClaim was opened
	// with: a pod that does not fit it fits none of the types left, and is turned away before
	// any requirement is computed. Types only narrow, so it stays a valid bound.
	largest *resVec
}

// itInfo is an instance type with what the scheduler needs of it precomputed.
type itInfo struct {
	it          *cloudprovider.InstanceType
	reqs        scheduling.Requirements
	labels      map[string]string // reqs, one value per key (normalized)
	allocatable resVec
	capacity    resVec
}

func newITInfo(it *cloudprovider.InstanceType) *itInfo {
	reqs := scheduling.FromLabels(it.Labels)
	labels := make(map[string]string, len(reqs))
	for k, r := range reqs {
		labels[k], _ = r.Any()
	}
	capacity := toVec(it.Capacity)
	// A NodeClaim of any type holds one of its NodePool's limits.nodes.
	capacity.set(karpv1.ResourceNodes, 1000)
	return &itInfo{it: it, reqs: reqs, labels: labels, allocatable: withPodsDefault(toVec(it.Allocatable())), capacity: capacity}
}

// offeringFilter tells which offerings the zone and capacity type requirements of one set of
// requirements allow. A run's offerings have few zones and capacity types between them, and
// finalize and canAdd ask about every offering of every instance type a NodeClaim may still
// be: each pair is looked up in the requirements once, and remembered.
type offeringFilter struct {
	zone, capacityType *scheduling.Requirement // nil: any
	seen               [8]offeringVerdict
	count              int
}

type offeringVerdict struct {
	zone, capacityType string
	allowed            bool
}

func newOfferingFilter(reqs scheduling.Requirements) offeringFilter {
	return offeringFilter{zone: reqs[karpv1.LabelTopologyZone], capacityType: reqs[karpv1.LabelCapacityType]}
}

// allows reports whether the offering is available and its zone and capacity type satisfy the
// requirements.
func (f *offeringFilter) allows(of *cloudprovider.Offering) bool {
	if !of.Available {
		return false
	}
	if f.zone == nil && f.capacityType == nil {
		return true
	}
	for _, v := range f.seen[:f.count] {
		if v.zone == of.Zone && v.capacityType == of.CapacityType {
			return v.allowed
		}
	}
	allowed := (f.zone == nil || f.zone.Has(of.Zone)) && (f.capacityType == nil || f.capacityType.Has(of.CapacityType))
	if f.count < len(f.seen) {
		f.seen[f.count] = offeringVerdict{zone: of.Zone, capacityType: of.CapacityType, allowed: allowed}
		f.count++
	}
	return allowed
}

// hasOffering reports whether some offering of it passes the filter.
func (t *itInfo) hasOffering(f *offeringFilter) bool {
	for i := range t.it.Offerings {
		if f.allows(&t.it.Offerings[i]) {
			return true
		}
	}
	return false
}

// cheapest returns the price of the cheapest offering that passes the filter (false when
// none).
func (t *itInfo) cheapest(f *offeringFilter) (float64, bool) {
	best, found := 0.0, false
	for i := range t.it.Offerings {
		of := &t.it.Offerings[i]
		if (!found || of.Price < best) && f.allows(of) {
			best, found = of.Price, true
		}
	}
	return best, found
}

// compatible reports whether a node of this type can satisfy reqs.
func (t *itInfo) compatible(reqs scheduling.Requirements) bool {
	f := newOfferingFilter(reqs)
	return t.reqs.IsIntersecting(reqs) && t.hasOffering(&f)
}

// typeRequirements returns what launching one of types implies: In over the union of each label
// key every type carries, and the zones and capacity types of their offerings allowed by reqs.
func typeRequirements(types []*itInfo, reqs scheduling.Requirements) scheduling.Requirements {
	values := map[string][]string{}
	counts := map[string]int{}
	for _, t := range types {
		for k, v := range t.labels {
			counts[k]++
			values[k] = append(values[k], v)
		}
	}
	out := scheduling.Requirements{}
	for k, n := range counts {
		if n == len(types) {
			out.Add(scheduling.NewRequirement(k, karpv1.NodeSelectorOpIn, values[k]...))
		}
	}
	var zones, cts []string
	f := newOfferingFilter(reqs)
	for _, t := range types {
		for i := range t.it.Offerings {
			of := &t.it.Offerings[i]
			if !f.allows(of) {
				continue
			}
			if !slices.Contains(zones, of.Zone) {
				zones = append(zones, of.Zone)
			}
			if !slices.Contains(cts, of.CapacityType) {
				cts = append(cts, of.CapacityType)
			}
		}
	}
	if len(zones) > 0 {
		out.Add(scheduling.NewRequirement(karpv1.LabelTopologyZone, karpv1.NodeSelectorOpIn, zones...))
	}
	if len(cts) > 0 && !slices.Contains(cts, "") {
		out.Add(scheduling.NewRequirement(karpv1.LabelCapacityType, karpv1.NodeSelectorOpIn, cts...))
	}
	return out
}

// merge returns a ∩ b without modifying either (requirements are never modified in place).
func merge(a, b scheduling.Requirements) scheduling.Requirements {
	out := maps.Clone(a)
	if out == nil {
		out = scheduling.Requirements{}
	}
	out.Add(b.Values()...)
	return out
}

func (n *NewNodeClaim) view() *nodeView {
	return &nodeView{reqs: n.reqs, hostname: n.hostname, taints: n.tmpl.taints}
}

// canAdd checks whether the pod, with the topology requirements for it on this NodeClaim, fits
// and returns the narrowed requirements, the instance types that remain and the daemonset
// overhead.
//
//nolint:gocyclo // the hot path of the simulation: every check a pod must pass on a NodeClaim in the order that turns most pods away cheapest; split, it would allocate
func (n *NewNodeClaim) canAdd(p *podInfo, topo scheduling.Requirements) (scheduling.Requirements, []*itInfo, resVec, error) {
	if n.largest == nil {
		largest := largestAllocatable(n.types)
		n.largest = &largest
	}
	if !fitsSum(n.podRequests, p.requests, *n.largest) {
		return nil, nil, resVec{}, &doesNotFitError{n.podRequests, p.requests}
	}
	if err := p.tolerates(n.tmpl.taints); err != nil {
		return nil, nil, resVec{}, err
	}
	if hp, clash := portsClash(n.ports, p.ports); clash {
		return nil, nil, resVec{}, fmt.Errorf("host port %d/%s is in use", hp.port, hp.protocol)
	}
	podReqs := p.requirements
	if topo != nil {
		podReqs = merge(podReqs, topo)
	}
	if err := n.reqs.Compatible(podReqs); err != nil {
		return nil, nil, resVec{}, fmt.Errorf("incompatible requirements, %w", err)
	}
	merged := merge(n.reqs, podReqs)
	ds := n.tmpl.daemonOverhead(merged)
	total := n.podRequests.add(p.requests)
	// Every type of n is compatible with n.reqs. A type's labels are single values, so it
	// satisfies n.reqs ∩ pod exactly when it satisfies the pod's requirements; offerings need
	// a second look only when the pod constrains zone or capacity type.
	checkLabels := len(podReqs) > 0
	checkOfferings := podReqs.Has(karpv1.LabelTopologyZone) || podReqs.Has(karpv1.LabelCapacityType)
	var kept []*itInfo
	compatible := 0
	offerings := newOfferingFilter(merged)
	for _, t := range n.types {
		if checkLabels && !t.reqs.IsIntersecting(podReqs) {
			continue
		}
		if checkOfferings && !t.hasOffering(&offerings) {
			continue
		}
		compatible++
		if fitsSum(total, ds, t.allocatable) {
			kept = append(kept, t)
		}
	}
	if compatible == 0 {
		return nil, nil, resVec{}, fmt.Errorf("no instance type with an available offering satisfies %s", merged)
	}
	if len(kept) == 0 {
		return nil, nil, resVec{}, fmt.Errorf("no instance type fits %s", describeVec(total.add(ds)))
	}
	if merged.HasMinValues() {
		covered := merged.CoveredValues(typeReqs(kept)...)
		if err := merged.MinValuesSatisfied(covered); err != nil {
			// Only when the NodeClaim is opened, as upstream relaxes: a pod that would narrow
			// one opened earlier below its minValues goes elsewhere instead.
			relaxed, ok := merged.RelaxMinValues(covered)
			if !n.tmpl.minValuesBestEffort || len(n.Pods) > 0 || !ok {
				return nil, nil, resVec{}, fmt.Errorf("the instance types that fit would not meet minValues, %w", err)
			}
			merged = relaxed
		}
	}
	return merged, kept, ds, nil
}

// MinValuesRelaxed reports whether the NodeClaim's requirements ask for fewer values of a
// key than its NodePool's minValues: what --min-values-policy=BestEffort had to give up.
func (n *NewNodeClaim) MinValuesRelaxed() bool {
	for _, r := range n.NodePool.Spec.Template.Spec.Requirements {
		if r.MinValues == nil {
			continue
		}
		if got := n.Requirements[r.Key]; got != nil && got.MinValues != nil && *got.MinValues < *r.MinValues {
			return true
		}
	}
	return false
}

// MinValuesMet checks that the NodeClaim's instance types still cover the minValues of its
// requirements (the NodePool's, or what BestEffort lowered them to when it opened): a caller
// that narrows the types, as consolidation keeps only the cheaper ones, must not go below them.
func (n *NewNodeClaim) MinValuesMet() error {
	if !n.Requirements.HasMinValues() {
		return nil
	}
	types := make([]scheduling.Requirements, len(n.InstanceTypes))
	for i, it := range n.InstanceTypes {
		types[i] = scheduling.FromLabels(it.Labels)
	}
	return n.Requirements.MinValuesSatisfied(n.Requirements.CoveredValues(types...))
}

// doesNotFitError is formatted only when read: most are discarded while other NodeClaims are
// tried.
type doesNotFitError struct{ placed, pod resVec }

func (e *doesNotFitError) Error() string {
	return "no instance type fits " + describeVec(e.placed.add(e.pod))
}

func largestAllocatable(types []*itInfo) resVec {
	var out resVec
	for _, t := range types {
		out = maxVec(out, t.allocatable)
	}
	return out
}

func typeReqs(types []*itInfo) []scheduling.Requirements {
	out := make([]scheduling.Requirements, len(types))
	for i, t := range types {
		out[i] = t.reqs
	}
	return out
}

// add commits the result of a successful canAdd.
func (n *NewNodeClaim) add(p *podInfo, reqs scheduling.Requirements, types []*itInfo, ds resVec) {
	n.reqs, n.types, n.dsRequests = reqs, types, ds
	n.podRequests = n.podRequests.add(p.requests)
	n.ports = append(n.ports, p.ports...)
	n.Pods = append(n.Pods, p.pod)
}

// finalize fills the exported fields: instance types cheapest first (capped), requirements
// narrowed to them, requests including daemonset overhead.
func (n *NewNodeClaim) finalize() {
	type priced struct {
		t     *itInfo
		price float64
	}
	ps := make([]priced, 0, len(n.types))
	offerings := newOfferingFilter(n.reqs)
	for _, t := range n.types {
		if price, ok := t.cheapest(&offerings); ok {
			ps = append(ps, priced{t, price})
		}
	}
	slices.SortFunc(ps, func(a, b priced) int {
		return cmp.Or(cmp.Compare(a.price, b.price), cmp.Compare(a.t.it.Name, b.t.it.Name))
	})
	if len(ps) > MaxInstanceTypes {
		keep := keepForMinValues(n.reqs, len(ps), func(i int) scheduling.Requirements { return ps[i].t.reqs })
		var capped []priced
		for i, p := range ps {
			if keep.Has(i) {
				capped = append(capped, p)
			}
		}
		for i, p := range ps {
			if len(capped) >= MaxInstanceTypes {
				break
			}
			if !keep.Has(i) {
				capped = append(capped, p)
			}
		}
		slices.SortFunc(capped, func(a, b priced) int {
			return cmp.Or(cmp.Compare(a.price, b.price), cmp.Compare(a.t.it.Name, b.t.it.Name))
		})
		ps = capped
	}
	chosen := make([]*itInfo, len(ps))
	n.InstanceTypes = make([]*cloudprovider.InstanceType, len(ps))
	for i, p := range ps {
		chosen[i] = p.t
		n.InstanceTypes[i] = p.t.it
	}
	n.types = chosen
	n.Requirements = merge(n.reqs, typeRequirements(chosen, n.reqs))
	n.Requests = n.podRequests.add(n.dsRequests).toList()
}

// keepForMinValues picks, cheapest first, one type per value of each minValues key until the
// minimum is covered, so that capping the list at MaxInstanceTypes keeps the flexibility the
// NodePool asked for.
func keepForMinValues(reqs scheduling.Requirements, n int, reqsOf func(int) scheduling.Requirements) sets.Set[int] {
	keep := sets.New[int]()
	for _, key := range reqs.Keys() {
		req := reqs[key]
		if req.MinValues == nil {
			continue
		}
		seen := sets.New[string]()
		for i := 0; i < n && seen.Len() < *req.MinValues; i++ {
			r, ok := reqsOf(i)[key]
			if !ok || r.IsComplement() {
				continue
			}
			for _, v := range r.Values() {
				if req.Has(v) && !seen.Has(v) {
					seen.Insert(v)
					keep.Insert(i)
				}
			}
		}
	}
	return keep
}

// StaticNodeClaim is a NodeClaim of the NodePool for no pod in particular, as a static NodePool
// keeps them: every instance type its template allows, cheapest first (capped as any
// NodeClaim's), and the requirements they imply. The launch picks the cheapest.
func StaticNodeClaim(in NodePoolInput) (*NewNodeClaim, error) {
	t := newPoolTemplate(&in, nil)
	if t.err != nil {
		return nil, t.err
	}
	n := &NewNodeClaim{NodePoolName: t.name, NodePool: t.pool, tmpl: t, reqs: t.base, types: t.types}
	n.finalize()
	return n, nil
}

// Cheapest is the offering a launch of the NodeClaim would pay at best: the cheapest available
// offering, within its zones and capacity types, of any of its instance types, with that type;
// false when none is available.
func (n *NewNodeClaim) Cheapest() (*cloudprovider.InstanceType, cloudprovider.Offering, bool) {
	zones, capacityTypes := n.Requirements.Get(karpv1.LabelTopologyZone), n.Requirements.Get(karpv1.LabelCapacityType)
	var bestType *cloudprovider.InstanceType
	var best cloudprovider.Offering
	for _, it := range n.InstanceTypes {
		for _, of := range it.Offerings {
			if of.Available && zones.Has(of.Zone) && capacityTypes.Has(of.CapacityType) && (bestType == nil || of.Price < best.Price) {
				bestType, best = it, of
			}
		}
	}
	return bestType, best, bestType != nil
}

// LaunchPrice is what launching the NodeClaims costs at best: each one's cheapest offering.
func LaunchPrice(claims []*NewNodeClaim) float64 {
	total := 0.0
	for _, n := range claims {
		if _, offering, ok := n.Cheapest(); ok {
			total += offering.Price
		}
	}
	return total
}

// ToNodeClaim renders the NodeClaim to create: the template's taints, startup taints, node
// class, expiry and termination grace period; the requirements including the instance types
// and NodePool; the requests; labels from the template and single-valued requirements; and
// the NodePool's template hash. Provisioning and disruption create NodeClaims with it alone.
func (n *NewNodeClaim) ToNodeClaim() *karpv1.NodeClaim {
	tpl := n.NodePool.Spec.Template
	names := make([]string, len(n.InstanceTypes))
	for i, it := range n.InstanceTypes {
		names[i] = it.Name
	}
	reqs := maps.Clone(n.Requirements)
	if reqs == nil {
		reqs = scheduling.Requirements{}
	}
	typeReq := scheduling.NewRequirement(karpv1.LabelInstanceType, karpv1.NodeSelectorOpIn, names...)
	// A minValues on instance types stays on the NodeClaim, as upstream's NodeClaims keep it.
	if r := n.Requirements[karpv1.LabelInstanceType]; r != nil {
		typeReq.MinValues = r.MinValues
	}
	reqs[karpv1.LabelInstanceType] = typeReq
	reqs[karpv1.LabelNodePool] = scheduling.NewRequirement(karpv1.LabelNodePool, karpv1.NodeSelectorOpIn, n.NodePoolName)

	labels := maps.Clone(tpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, reqs.Labels())
	labels[karpv1.LabelNodePool] = n.NodePoolName

	nodeClaim := &karpv1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: karpv1.GroupVersion.String(), Kind: "NodeClaim"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: n.NodePoolName + "-",
			Labels:       labels,
			Annotations:  maps.Clone(tpl.Annotations),
		},
		Spec: karpv1.NodeClaimSpec{
			Taints:        slices.Clone(tpl.Spec.Taints),
			StartupTaints: slices.Clone(tpl.Spec.StartupTaints),
			Requirements:  reqs.NodeSelectorRequirements(),
			Resources:     karpv1.ResourceRequirements{Requests: n.Requests.DeepCopy()},
			NodeClassRef:  tpl.Spec.NodeClassRef.DeepCopy(),
			ExpireAfter:   tpl.Spec.ExpireAfter,
		},
	}
	if tpl.Spec.TerminationGracePeriod != nil {
		nodeClaim.Spec.TerminationGracePeriod = &metav1.Duration{Duration: tpl.Spec.TerminationGracePeriod.Duration}
	}
	// Owned by its NodePool, as upstream's are: deleting a NodePool deletes its NodeClaims, and
	// with them its nodes.
	if n.NodePool.UID != "" {
		nodeClaim.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: karpv1.GroupVersion.String(), Kind: "NodePool", Name: n.NodePool.Name, UID: n.NodePool.UID,
			BlockOwnerDeletion: new(true),
		}}
	}
	// Whether minValues had to be lowered, on every NodeClaim of a NodePool that asks for
	// some, as upstream's scheduler records it.
	if slices.ContainsFunc(tpl.Spec.Requirements, func(r karpv1.NodeSelectorRequirementWithMinValues) bool { return r.MinValues != nil }) {
		metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, karpv1.NodeClaimMinValuesRelaxedAnnotationKey, strconv.FormatBool(n.MinValuesRelaxed()))
	}
	// The NodePool's template hash, which drift compares the NodeClaim with later.
	for _, key := range []string{karpv1.NodePoolHashAnnotationKey, karpv1.NodePoolHashVersionAnnotationKey} {
		if v, ok := n.NodePool.Annotations[key]; ok {
			metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, key, v)
		}
	}
	return nodeClaim
}
