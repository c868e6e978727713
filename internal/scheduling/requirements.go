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

package scheduling

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Requirements maps a label key to the Requirement on it; a node must satisfy all of them. A key
// that is absent is unconstrained.
type Requirements map[string]*Requirement

// NewRequirements collects requirements, intersecting those that share a key. It takes
// ownership of the arguments (see Add).
func NewRequirements(reqs ...*Requirement) Requirements {
	r := make(Requirements, len(reqs))
	r.Add(reqs...)
	return r
}

// FromNodeSelectorRequirements converts Kubernetes node selector requirements (for example one
// node-affinity term); repeated keys are intersected.
func FromNodeSelectorRequirements(reqs ...corev1.NodeSelectorRequirement) Requirements {
	r := make(Requirements, len(reqs))
	for _, req := range reqs {
		r.Add(NewRequirement(req.Key, req.Operator, req.Values...))
	}
	return r
}

// FromNodeClaimRequirements converts NodePool or NodeClaim requirements, keeping minValues.
func FromNodeClaimRequirements(reqs ...karpv1.NodeSelectorRequirementWithMinValues) Requirements {
	r := make(Requirements, len(reqs))
	for _, req := range reqs {
		n := NewRequirement(req.Key, req.Operator, req.Values...)
		if req.MinValues != nil {
			n.MinValues = new(*req.MinValues)
		}
		r.Add(n)
	}
	return r
}

// FromLabels turns labels (of a node, or a NodePool template) into one In requirement of a
// single value per key. Deprecated aliases are normalized.
func FromLabels(labels map[string]string) Requirements {
	r := make(Requirements, len(labels))
	for k, v := range labels {
		r.Add(NewRequirement(k, karpv1.NodeSelectorOpIn, v))
	}
	return r
}

// FromPodNodeSelector returns the requirements of a pod's spec.nodeSelector.
func FromPodNodeSelector(pod *corev1.Pod) Requirements {
	return FromLabels(pod.Spec.NodeSelector)
}

// FromPodRequiredAffinity returns the requirements a node must meet for the pod: its
// nodeSelector plus the match expressions of the FIRST required node-affinity term. Required
// terms are ORed by Kubernetes; like upstream Karpenter the scheduler tries the first one and
// relaxation drops it to try the next. matchFields are ignored (such pods are rejected
// earlier).
func FromPodRequiredAffinity(pod *corev1.Pod) Requirements {
	r := FromPodNodeSelector(pod)
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		if sel := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; sel != nil && len(sel.NodeSelectorTerms) > 0 {
			r.Add(FromNodeSelectorRequirements(sel.NodeSelectorTerms[0].MatchExpressions...).Values()...)
		}
	}
	return r
}

// Add intersects each requirement into r. Requirements on a new key are stored as given (r
// takes ownership; do not modify them afterwards); a shared key gets a new intersected
// requirement.
func (r Requirements) Add(reqs ...*Requirement) {
	for _, req := range reqs {
		if existing, ok := r[req.Key]; ok {
			r[req.Key] = existing.Intersection(req)
			continue
		}
		r[req.Key] = req
	}
}

// Get returns the requirement on key, or an unconstrained one (any value, or none) when r does
// not mention it. Use Has to tell the two apart.
func (r Requirements) Get(key string) *Requirement {
	if req, ok := r[key]; ok {
		return req
	}
	return unconstrained(key)
}

// Has reports whether r constrains key.
func (r Requirements) Has(key string) bool {
	_, ok := r[key]
	return ok
}

// Keys returns the constrained keys, sorted.
func (r Requirements) Keys() []string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Values returns the requirements sorted by key.
func (r Requirements) Values() []*Requirement {
	out := make([]*Requirement, 0, len(r))
	for _, k := range r.Keys() {
		out = append(out, r[k])
	}
	return out
}

// DeepCopy returns an independent copy.
func (r Requirements) DeepCopy() Requirements {
	out := make(Requirements, len(r))
	for k, v := range r {
		out[k] = v.DeepCopy()
	}
	return out
}

// Intersects returns nil when a node could satisfy both r and other, and otherwise an error
// naming every conflicting key with both sides (r's first), e.g.
// "key topology.kubernetes.io/zone: [kr-central-2-a] does not intersect [kr-central-2-c]".
//
// Only keys both sides mention are compared. They conflict when no value is allowed by both,
// unless both sides accept a node without the label (NotIn, DoesNotExist); so In or Exists
// against DoesNotExist conflicts, NotIn against DoesNotExist does not. The check itself does not
// allocate; only building the error does.
func (r Requirements) Intersects(other Requirements) error {
	if r.intersects(other) {
		return nil
	}
	return r.conflicts(other, false)
}

// Compatible is Intersects plus one rule for keys r does not mention: when other requires such a
// key to exist (In, Exists, Gt, Lt, Gte, Lte), they conflict, because a node gets only the labels
// its requirements define. A well-known label's value comes from the instance type, zone,
// capacity type or NodePool; a custom label must be defined by the NodePool, in its
// requirements or its template labels, as upstream Karpenter requires: otherwise any pod could
// label new nodes as it wished. Call it as nodeRequirements.Compatible(podRequirements).
func (r Requirements) Compatible(other Requirements) error {
	if r.IsCompatible(other) {
		return nil
	}
	return r.conflicts(other, true)
}

// IsCompatible is Compatible without the error; it does not allocate.
func (r Requirements) IsCompatible(other Requirements) bool {
	for key, o := range other {
		if _, ok := r[key]; !ok && !o.absentOK {
			return false
		}
	}
	return r.intersects(other)
}

// Guarantees returns nil when every node that satisfies r satisfies other too, and otherwise an
// error naming the first key (in order) where it may not. It is the test for a NodeClaim already
// created: its requirements cannot be narrowed any more, so a pod may count on it only if
// whatever the launch picks within them suits the pod.
func (r Requirements) Guarantees(other Requirements) error {
	for _, key := range other.Keys() {
		o := other[key]
		mine, ok := r[key]
		if !ok {
			if o.absentOK {
				continue
			}
			return fmt.Errorf("key %s: %s is not guaranteed, the NodeClaim leaves it undefined", key, o.describeValues())
		}
		if !mine.Within(o) {
			return fmt.Errorf("key %s: %s is not guaranteed by the NodeClaim's %s", key, o.describeValues(), mine.describeValues())
		}
	}
	return nil
}

// IsIntersecting is Intersects without the error; it does not allocate.
func (r Requirements) IsIntersecting(other Requirements) bool { return r.intersects(other) }

func (r Requirements) intersects(other Requirements) bool {
	small, large := r, other
	if len(large) < len(small) {
		small, large = large, small
	}
	for key, a := range small {
		if b, ok := large[key]; ok && !a.Intersects(b) {
			return false
		}
	}
	return true
}

// conflicts builds the error for every conflicting key, in key order.
func (r Requirements) conflicts(other Requirements, undefined bool) error {
	keys := sets.KeySet(r).Union(sets.KeySet(other))
	var errs []error
	for _, key := range sets.List(keys) {
		a, inR := r[key]
		b, inOther := other[key]
		switch {
		case inR && inOther:
			if !a.Intersects(b) {
				errs = append(errs, fmt.Errorf("key %s: %s does not intersect %s", key, a.describeValues(), b.describeValues()))
			}
		case inOther && undefined && !b.absentOK && karpv1.WellKnownLabels.Has(key):
			errs = append(errs, fmt.Errorf("key %s: %s requires a well-known label that is undefined", key, b.describeValues()))
		case inOther && undefined && !b.absentOK:
			errs = append(errs, fmt.Errorf("label %s is not defined by the nodepool (in its requirements or template labels)", key))
		}
	}
	return errors.Join(errs...)
}

// Labels returns the labels a node launched for these requirements carries: for every key
// restricted to exactly one value, that value; for a custom key that must exist, one value it
// allows (the smallest), since the node needs the label and every pod placed on it accepts any
// of them. A well-known key left open is decided by the launch (instance type, zone), and
// restricted keys (karpv1.IsRestrictedLabel, e.g. kubernetes.io/hostname and
// karpenter.sh/nodepool) are set by the controller: both are left out.
func (r Requirements) Labels() map[string]string {
	labels := map[string]string{}
	for key, req := range r {
		if karpv1.IsRestrictedLabel(key) {
			continue
		}
		single := !req.complement && len(req.values) == 1
		if !single && (karpv1.WellKnownLabels.Has(key) || req.absentOK) {
			continue
		}
		if v, ok := req.Any(); ok {
			labels[key] = v
		}
	}
	return labels
}

// NodeSelectorRequirements writes the requirements back in NodeClaim form, sorted by key (and
// within a key in a fixed operator order); FromNodeClaimRequirements of the result equals r.
func (r Requirements) NodeSelectorRequirements() []karpv1.NodeSelectorRequirementWithMinValues {
	out := make([]karpv1.NodeSelectorRequirementWithMinValues, 0, len(r))
	for _, key := range r.Keys() {
		out = append(out, r[key].NodeSelectorRequirements()...)
	}
	return out
}

// String renders the requirements sorted by key, separated by ", ".
func (r Requirements) String() string {
	parts := make([]string, 0, len(r))
	for _, req := range r.Values() {
		parts = append(parts, req.String())
	}
	return strings.Join(parts, ", ")
}

// HasMinValues reports whether any requirement sets MinValues.
func (r Requirements) HasMinValues() bool {
	for _, req := range r {
		if req.MinValues != nil {
			return true
		}
	}
	return false
}

// CoveredValues collects, for every key of r with MinValues, the distinct values that the
// candidates (typically the requirements of the compatible instance types) allow on that key
// and r allows too. Candidates that leave the key open (a complement) contribute nothing: only
// concrete values count toward flexibility.
func (r Requirements) CoveredValues(candidates ...Requirements) map[string]sets.Set[string] {
	covered := map[string]sets.Set[string]{}
	for key, req := range r {
		if req.MinValues == nil {
			continue
		}
		s := sets.New[string]()
		for _, c := range candidates {
			if cr, ok := c[key]; ok && !cr.complement {
				for v := range cr.values {
					if req.Has(v) {
						s.Insert(v)
					}
				}
			}
		}
		covered[key] = s
	}
	return covered
}

// MinValuesSatisfied checks, for every key with MinValues, that values (per key, the distinct
// values a candidate set of instance types covers, e.g. from CoveredValues) holds at least
// MinValues values that the requirement allows. The error names each short key in key order,
// e.g. "key karpenter.kakaocloud.com/instance-family: minValues 3 not met, only 2 values
// [c2a m2a] available".
func (r Requirements) MinValuesSatisfied(values map[string]sets.Set[string]) error {
	var errs []error
	for _, key := range r.Keys() {
		req := r[key]
		if req.MinValues == nil {
			continue
		}
		allowed := sets.New[string]()
		for v := range values[key] {
			if req.Has(v) {
				allowed.Insert(v)
			}
		}
		if allowed.Len() < *req.MinValues {
			errs = append(errs, fmt.Errorf("key %s: minValues %d not met, only %d values [%s] available",
				key, *req.MinValues, allowed.Len(), strings.Join(sets.List(allowed), " ")))
		}
	}
	return errors.Join(errs...)
}

// RelaxMinValues lowers each minValues the covered values do not meet to as many as they
// hold; false when a key would be left with none.
func (r Requirements) RelaxMinValues(covered map[string]sets.Set[string]) (Requirements, bool) {
	out := maps.Clone(r)
	for key, req := range r {
		if req.MinValues == nil {
			continue
		}
		allowed := 0
		for v := range covered[key] {
			if req.Has(v) {
				allowed++
			}
		}
		if allowed >= *req.MinValues {
			continue
		}
		if allowed == 0 {
			return nil, false
		}
		// A copy: the requirement may be the NodePool template's, shared by every NodeClaim.
		lowered := req.DeepCopy()
		lowered.MinValues = new(allowed)
		out[key] = lowered
	}
	return out, true
}
