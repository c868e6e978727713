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
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Requirement is the set of values a single label key may take.
//
// It is represented as
//   - a finite set of allowed values (In, or the empty set for DoesNotExist and contradictions),
//     or the complement of a finite set of excluded values (NotIn, Exists = complement of
//     nothing);
//   - for complements only, optional inclusive integer bounds (Gt n is stored as >= n+1, Lt n
//     as <= n-1); a finite set is filtered by the bounds instead of keeping them;
//   - whether a node without the label satisfies it (NotIn and DoesNotExist do, In, Exists and
//     the numeric operators do not). Intersection keeps this only when both sides allow it.
//
// A label value matches a bound when it parses as a base-10 int64 within it, the Kubernetes rule.
// Because infinitely many strings denote the same integer ("4", "04", ...), a complement is
// empty only when its bounds cross; excluding finitely many strings never empties it.
//
// MinValues, when set, asks the launched capacity to stay flexible across at least that many
// distinct values of the key; intersecting keeps the larger minimum.
type Requirement struct {
	Key       string
	MinValues *int

	complement bool
	absentOK   bool
	values     sets.Set[string] // allowed values, or excluded values when complement
	hasLower   bool
	hasUpper   bool
	lower      int64 // inclusive
	upper      int64 // inclusive
}

// NormalizeKey maps a deprecated label alias (karpv1.NormalizedLabels) to its current key.
func NormalizeKey(key string) string {
	if normalized, ok := karpv1.NormalizedLabels[key]; ok {
		return normalized
	}
	return key
}

// NewRequirement builds the requirement "key op values". The key is normalized through
// karpv1.NormalizedLabels. Gt, Lt, Gte and Lte take exactly one integer value; anything else,
// like an unknown operator, yields a contradiction (no node can satisfy it), which is how
// Kubernetes treats such a selector.
func NewRequirement(key string, op corev1.NodeSelectorOperator, values ...string) *Requirement {
	r := &Requirement{Key: NormalizeKey(key)}
	switch op {
	case karpv1.NodeSelectorOpIn:
		r.values = sets.New(values...)
	case karpv1.NodeSelectorOpNotIn:
		r.complement, r.absentOK = true, true
		r.values = sets.New(values...)
	case karpv1.NodeSelectorOpExists:
		r.complement = true
		r.values = sets.New[string]()
	case karpv1.NodeSelectorOpDoesNotExist:
		r.absentOK = true
		r.values = sets.New[string]()
	case karpv1.NodeSelectorOpGt, karpv1.NodeSelectorOpGte, karpv1.NodeSelectorOpLt, karpv1.NodeSelectorOpLte:
		r.values = sets.New[string]()
		if len(values) != 1 {
			return r // contradiction
		}
		n, ok := parseInt(values[0])
		if !ok {
			return r
		}
		switch op {
		case karpv1.NodeSelectorOpGt:
			if n == math.MaxInt64 {
				return r
			}
			r.hasLower, r.lower = true, n+1
		case karpv1.NodeSelectorOpGte:
			r.hasLower, r.lower = true, n
		case karpv1.NodeSelectorOpLt:
			if n == math.MinInt64 {
				return r
			}
			r.hasUpper, r.upper = true, n-1
		default:
			r.hasUpper, r.upper = true, n
		}
		r.complement = true
	default:
		r.values = sets.New[string]()
	}
	return r
}

// unconstrained is the requirement a key has when nothing mentions it: any value, or none.
func unconstrained(key string) *Requirement {
	return &Requirement{Key: key, complement: true, absentOK: true, values: sets.New[string]()}
}

// DeepCopy returns an independent copy.
func (r *Requirement) DeepCopy() *Requirement {
	c := *r
	c.values = r.values.Clone()
	if r.MinValues != nil {
		c.MinValues = new(*r.MinValues)
	}
	return &c
}

// AllowsAbsent reports whether a node that does not carry the label satisfies the requirement
// (NotIn, DoesNotExist).
func (r *Requirement) AllowsAbsent() bool { return r.absentOK }

// IsComplement reports whether the requirement is the complement of a finite set (NotIn,
// Exists, numeric bounds), in which case Values lists the excluded values.
func (r *Requirement) IsComplement() bool { return r.complement }

// Bounds returns the inclusive integer bounds; ok is false for a missing bound.
func (r *Requirement) Bounds() (lower int64, hasLower bool, upper int64, hasUpper bool) {
	return r.lower, r.hasLower, r.upper, r.hasUpper
}

// Has reports whether a node labelled key=value satisfies the requirement. It does not
// allocate.
func (r *Requirement) Has(value string) bool {
	if !r.complement {
		_, ok := r.values[value]
		return ok
	}
	if r.hasLower || r.hasUpper {
		if !r.inBounds(value) {
			return false
		}
	}
	_, excluded := r.values[value]
	return !excluded
}

func (r *Requirement) inBounds(value string) bool {
	n, ok := parseInt(value)
	if !ok {
		return false
	}
	return (!r.hasLower || n >= r.lower) && (!r.hasUpper || n <= r.upper)
}

// IsEmpty reports whether no value is allowed (DoesNotExist or a contradiction).
func (r *Requirement) IsEmpty() bool { return !r.complement && len(r.values) == 0 }

// Len is the number of allowed values: exact for finite sets, math.MaxInt64 minus the number of
// excluded values for complements (upstream's convention for "unbounded").
func (r *Requirement) Len() int {
	if r.complement {
		return math.MaxInt64 - len(r.values)
	}
	return len(r.values)
}

// Values returns the allowed values of a finite set, or the excluded values of a complement,
// sorted.
func (r *Requirement) Values() []string { return sets.List(r.values) }

// Insert adds values to the allowed set: to a finite set directly, and to a complement by no
// longer excluding them (a value outside its bounds stays disallowed).
func (r *Requirement) Insert(values ...string) {
	if r.complement {
		r.values.Delete(values...)
		return
	}
	r.values.Insert(values...)
}

// Intersection returns the requirement satisfied exactly by the nodes that satisfy both r and
// other. Neither input is modified and the result shares no memory with them. The key is r's.
//
//nolint:gocyclo // the cases of two requirements (finite set or complement, bounds, absence) meeting, each a line of the algebra
func (r *Requirement) Intersection(other *Requirement) *Requirement {
	out := &Requirement{Key: r.Key, absentOK: r.absentOK && other.absentOK, MinValues: maxMinValues(r.MinValues, other.MinValues)}
	switch {
	case r.complement && other.complement:
		out.complement = true
		out.hasLower, out.lower = combineLower(r, other)
		out.hasUpper, out.upper = combineUpper(r, other)
		if out.hasLower && out.hasUpper && out.lower > out.upper {
			// The bounds leave nothing; bounds imply the label exists, so absentOK is false.
			return &Requirement{Key: r.Key, MinValues: out.MinValues, values: sets.New[string]()}
		}
		out.values = make(sets.Set[string], len(r.values)+len(other.values))
		for _, side := range []*Requirement{r, other} {
			for v := range side.values {
				// Excluded values outside the bounds are redundant.
				if (!out.hasLower && !out.hasUpper) || out.inBounds(v) {
					out.values[v] = sets.Empty{}
				}
			}
		}
	default:
		small, large := r, other
		if small.complement || (!large.complement && len(large.values) < len(small.values)) {
			small, large = large, small
		}
		out.values = make(sets.Set[string], len(small.values))
		for v := range small.values {
			if large.Has(v) {
				out.values[v] = sets.Empty{}
			}
		}
	}
	return out
}

// Intersects reports, without allocating, whether some node can satisfy both requirements:
// either both accept a missing label or some value is allowed by both.
func (r *Requirement) Intersects(other *Requirement) bool {
	if r.absentOK && other.absentOK {
		return true
	}
	switch {
	case r.complement && other.complement:
		hasLower, lower := combineLower(r, other)
		hasUpper, upper := combineUpper(r, other)
		return !hasLower || !hasUpper || lower <= upper
	case r.complement:
		return other.anyAllowedBy(r)
	case other.complement:
		return r.anyAllowedBy(other)
	default:
		if len(other.values) < len(r.values) {
			return other.anyAllowedBy(r)
		}
		return r.anyAllowedBy(other)
	}
}

// anyAllowedBy reports whether some value of the finite set r is allowed by other.
func (r *Requirement) anyAllowedBy(other *Requirement) bool {
	for v := range r.values {
		if other.Has(v) {
			return true
		}
	}
	return false
}

// Any returns a value the requirement allows, deterministically: the smallest value of a finite
// set, or for a complement the first integer (from the lower bound upwards, else from the upper
// bound downwards, else from 0 upwards) that is not excluded. ok is false for an empty set.
//
//nolint:gocyclo // the cases of a requirement's value set (finite, complement with and without bounds) the doc comment lists
func (r *Requirement) Any() (value string, ok bool) {
	if !r.complement {
		if len(r.values) == 0 {
			return "", false
		}
		first := true
		for v := range r.values {
			if first || v < value {
				value, first = v, false
			}
		}
		return value, true
	}
	start, step := int64(0), int64(1)
	switch {
	case r.hasLower:
		start = r.lower
	case r.hasUpper:
		start, step = r.upper, -1
	}
	// len(values)+1 distinct candidates always contain one that is not excluded; when the
	// bounds hold fewer integers, leading zeros make further spellings of the same integers.
	for pad := 0; ; pad++ {
		n := start
		for range len(r.values) + 1 {
			if (r.hasLower && n < r.lower) || (r.hasUpper && n > r.upper) {
				break
			}
			s := formatInt(n, pad)
			if _, excluded := r.values[s]; !excluded {
				return s, true
			}
			if (step > 0 && n == math.MaxInt64) || (step < 0 && n == math.MinInt64) {
				break
			}
			n += step
		}
	}
}

// Operator is the operator that best describes the requirement: In for a non-empty finite set,
// DoesNotExist for the empty set that a missing label satisfies, In (with no values) for a
// contradiction, NotIn for a complement that excludes values or that a missing label satisfies,
// and Exists for any other complement (including bounded ones: see String for the bounds).
func (r *Requirement) Operator() corev1.NodeSelectorOperator {
	switch {
	case !r.complement && len(r.values) == 0 && r.absentOK:
		return karpv1.NodeSelectorOpDoesNotExist
	case !r.complement:
		return karpv1.NodeSelectorOpIn
	case len(r.values) > 0 || r.absentOK:
		return karpv1.NodeSelectorOpNotIn
	default:
		return karpv1.NodeSelectorOpExists
	}
}

// String renders the requirement readably, for example
// "karpenter.kakaocloud.com/instance-cpu In [4 8]", "kubernetes.io/arch NotIn [arm64]",
// "karpenter.kakaocloud.com/instance-cpu Exists >3 <33" (bounds shown as exclusive Gt/Lt values)
// or "kubernetes.io/arch Exists NotIn [arm64]" for a complement that also requires the label.
// Lists longer than five values are abbreviated.
func (r *Requirement) String() string {
	return r.Key + " " + r.describe()
}

// describe renders the requirement without its key.
func (r *Requirement) describe() string {
	var b strings.Builder
	switch {
	case !r.complement && len(r.values) == 0 && r.absentOK:
		b.WriteString("DoesNotExist")
	case !r.complement:
		b.WriteString("In ")
		writeValues(&b, r.values)
	case r.absentOK:
		b.WriteString("NotIn ")
		writeValues(&b, r.values)
	default:
		b.WriteString("Exists")
		if len(r.values) > 0 {
			b.WriteString(" NotIn ")
			writeValues(&b, r.values)
		}
	}
	if r.hasLower {
		if r.lower == math.MinInt64 {
			b.WriteString(" >=" + strconv.FormatInt(r.lower, 10))
		} else {
			b.WriteString(" >" + strconv.FormatInt(r.lower-1, 10))
		}
	}
	if r.hasUpper {
		if r.upper == math.MaxInt64 {
			b.WriteString(" <=" + strconv.FormatInt(r.upper, 10))
		} else {
			b.WriteString(" <" + strconv.FormatInt(r.upper+1, 10))
		}
	}
	if r.MinValues != nil {
		b.WriteString(" minValues " + strconv.Itoa(*r.MinValues))
	}
	return b.String()
}

// describeValues renders the allowed values for error messages: just the list for a finite set.
func (r *Requirement) describeValues() string {
	if !r.complement && !(len(r.values) == 0 && r.absentOK) && r.MinValues == nil {
		var b strings.Builder
		writeValues(&b, r.values)
		return b.String()
	}
	return r.describe()
}

func writeValues(b *strings.Builder, values sets.Set[string]) {
	list := sets.List(values)
	const maxShown = 5
	b.WriteByte('[')
	for i, v := range list {
		if i == maxShown {
			b.WriteString(" and " + strconv.Itoa(len(list)-maxShown) + " others")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v)
	}
	b.WriteByte(']')
}

// NodeSelectorRequirements returns the requirement as node selector requirements that, ANDed,
// select exactly the same nodes: In, DoesNotExist, NotIn, Exists and the bounds, each bound
// written as Gt/Lt when its value stays a non-negative integer and as Gte/Lte otherwise.
// MinValues is carried by the first entry. An unconstrained requirement yields nothing.
//
//nolint:gocyclo // one operator written per case of the value set, as the doc comment lists them
func (r *Requirement) NodeSelectorRequirements() []karpv1.NodeSelectorRequirementWithMinValues {
	var out []karpv1.NodeSelectorRequirementWithMinValues
	add := func(op corev1.NodeSelectorOperator, values ...string) {
		out = append(out, karpv1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: op, Values: values})
	}
	switch {
	case !r.complement && len(r.values) == 0 && r.absentOK:
		add(karpv1.NodeSelectorOpDoesNotExist)
	case !r.complement:
		add(karpv1.NodeSelectorOpIn, r.Values()...)
	default:
		if len(r.values) > 0 {
			add(karpv1.NodeSelectorOpNotIn, r.Values()...)
		}
		if r.hasLower {
			if r.lower >= 1 {
				add(karpv1.NodeSelectorOpGt, strconv.FormatInt(r.lower-1, 10))
			} else {
				add(karpv1.NodeSelectorOpGte, strconv.FormatInt(r.lower, 10))
			}
		}
		if r.hasUpper {
			if r.upper < math.MaxInt64 && r.upper >= -1 {
				add(karpv1.NodeSelectorOpLt, strconv.FormatInt(r.upper+1, 10))
			} else {
				add(karpv1.NodeSelectorOpLte, strconv.FormatInt(r.upper, 10))
			}
		}
		if !r.absentOK && !r.hasLower && !r.hasUpper {
			add(karpv1.NodeSelectorOpExists)
		}
	}
	if len(out) > 0 && r.MinValues != nil {
		out[0].MinValues = new(*r.MinValues)
	}
	return out
}

func combineLower(a, b *Requirement) (bool, int64) {
	return combineBound(a.hasLower, a.lower, b.hasLower, b.lower, func(x, y int64) int64 { return max(x, y) })
}

func combineUpper(a, b *Requirement) (bool, int64) {
	return combineBound(a.hasUpper, a.upper, b.hasUpper, b.upper, func(x, y int64) int64 { return min(x, y) })
}

// combineBound is the tighter of two optional bounds: tighter picks between two given ones.
func combineBound(hasA bool, a int64, hasB bool, b int64, tighter func(x, y int64) int64) (bool, int64) {
	switch {
	case hasA && hasB:
		return true, tighter(a, b)
	case hasA:
		return true, a
	case hasB:
		return true, b
	}
	return false, 0
}

func maxMinValues(a, b *int) *int {
	if a == nil && b == nil {
		return nil
	}
	return new(max(deref(a), deref(b)))
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// parseInt parses like strconv.ParseInt(s, 10, 64) — optional sign, decimal digits, no overflow
// — but never allocates (strconv allocates its error).
func parseInt(s string) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxUint64-9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(n), true // n == 1<<63 wraps to MinInt64
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// formatInt formats n in base 10 with pad leading zeros after the sign.
func formatInt(n int64, pad int) string {
	s := strconv.FormatInt(n, 10)
	if pad == 0 {
		return s
	}
	if n < 0 {
		return "-" + strings.Repeat("0", pad) + s[1:]
	}
	return strings.Repeat("0", pad) + s
}

// Within reports whether every node that satisfies r also satisfies other: each value r allows,
// and a missing label when r allows one. A complement is within other only when other excludes
// no more and bounds it no tighter; bounded complements are compared conservatively.
//
//nolint:gocyclo // the cases of set inclusion between finite sets, complements and bounds
func (r *Requirement) Within(other *Requirement) bool {
	if r.absentOK && !other.absentOK {
		return false
	}
	if !r.complement {
		for v := range r.values {
			if !other.Has(v) {
				return false
			}
		}
		return true
	}
	if !other.complement {
		return false
	}
	if other.hasLower && (!r.hasLower || r.lower < other.lower) || other.hasUpper && (!r.hasUpper || r.upper > other.upper) {
		return false
	}
	for v := range other.values {
		if _, excluded := r.values[v]; !excluded && r.Has(v) {
			return false
		}
	}
	return true
}
