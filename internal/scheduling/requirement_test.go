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
	"testing"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

const key = "example.com/key"

func req(op corev1.NodeSelectorOperator, values ...string) *Requirement {
	return NewRequirement(key, op, values...)
}

var (
	opIn           = karpv1.NodeSelectorOpIn
	opNotIn        = karpv1.NodeSelectorOpNotIn
	opExists       = karpv1.NodeSelectorOpExists
	opDoesNotExist = karpv1.NodeSelectorOpDoesNotExist
	opGt           = karpv1.NodeSelectorOpGt
	opLt           = karpv1.NodeSelectorOpLt
	opGte          = karpv1.NodeSelectorOpGte
	opLte          = karpv1.NodeSelectorOpLte
)

func TestNewRequirement(t *testing.T) {
	for _, tc := range []struct {
		req    *Requirement
		want   string
		op     corev1.NodeSelectorOperator
		has    []string
		hasNot []string
	}{
		{req(opIn, "b", "a"), key + " In [a b]", opIn, []string{"a", "b"}, []string{"c", ""}},
		{req(opIn), key + " In []", opIn, nil, []string{"a"}},
		{req(opNotIn, "a"), key + " NotIn [a]", opNotIn, []string{"b", "4"}, []string{"a"}},
		{req(opNotIn), key + " NotIn []", opNotIn, []string{"a"}, nil},
		{req(opExists), key + " Exists", opExists, []string{"a", "1"}, nil},
		{req(opDoesNotExist), key + " DoesNotExist", opDoesNotExist, nil, []string{"a"}},
		{req(opGt, "3"), key + " Exists >3", opExists, []string{"4", "04", "100"}, []string{"3", "a", "", "-4"}},
		{req(opGte, "3"), key + " Exists >2", opExists, []string{"3", "4"}, []string{"2"}},
		{req(opLt, "3"), key + " Exists <3", opExists, []string{"2", "-7", "+2"}, []string{"3", "x"}},
		{req(opLte, "3"), key + " Exists <4", opExists, []string{"3"}, []string{"4"}},
		{req(opGte, "0"), key + " Exists >-1", opExists, []string{"0"}, []string{"-1"}},
		{req(opGt, "x"), key + " In []", opIn, nil, []string{"x", "1"}},
		{req(opGt, "1", "2"), key + " In []", opIn, nil, []string{"3"}},
		{req(opGt, strconv.FormatInt(math.MaxInt64, 10)), key + " In []", opIn, nil, []string{"9223372036854775807"}},
		{req(opLt, strconv.FormatInt(math.MinInt64, 10)), key + " In []", opIn, nil, []string{"-9223372036854775808"}},
		{req(opLte, strconv.FormatInt(math.MaxInt64, 10)), key + " Exists <=9223372036854775807", opExists, []string{"9223372036854775807"}, []string{"9223372036854775808"}},
		{req("Bogus", "a"), key + " In []", opIn, nil, []string{"a"}},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.req.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if got := tc.req.Operator(); got != tc.op {
				t.Errorf("Operator() = %s, want %s", got, tc.op)
			}
			for _, v := range tc.has {
				if !tc.req.Has(v) {
					t.Errorf("Has(%q) = false", v)
				}
			}
			for _, v := range tc.hasNot {
				if tc.req.Has(v) {
					t.Errorf("Has(%q) = true", v)
				}
			}
		})
	}
}

func TestNormalizedKey(t *testing.T) {
	for alias, want := range map[string]string{
		"failure-domain.beta.kubernetes.io/zone":   karpv1.LabelTopologyZone,
		"failure-domain.beta.kubernetes.io/region": karpv1.LabelTopologyRegion,
		"beta.kubernetes.io/arch":                  karpv1.LabelArch,
		"beta.kubernetes.io/os":                    karpv1.LabelOS,
		"beta.kubernetes.io/instance-type":         karpv1.LabelInstanceType,
		karpv1.LabelArch:                           karpv1.LabelArch,
		"example.com/custom":                       "example.com/custom",
	} {
		if got := NewRequirement(alias, opIn, "x").Key; got != want {
			t.Errorf("NewRequirement(%q).Key = %q, want %q", alias, got, want)
		}
	}
}

func TestIntersection(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b *Requirement
		want string
		// intersects is whether a node can satisfy both (values in common, or both allow a
		// missing label).
		intersects bool
	}{
		{"In x In overlap", req(opIn, "a", "b"), req(opIn, "b", "c"), "In [b]", true},
		{"In x In disjoint", req(opIn, "a"), req(opIn, "c"), "In []", false},
		{"In x NotIn", req(opIn, "a", "b"), req(opNotIn, "a"), "In [b]", true},
		{"In x NotIn all", req(opIn, "a"), req(opNotIn, "a", "b"), "In []", false},
		{"NotIn x NotIn", req(opNotIn, "a"), req(opNotIn, "b"), "NotIn [a b]", true},
		{"NotIn x Exists", req(opNotIn, "a"), req(opExists), "Exists NotIn [a]", true},
		{"In x Exists", req(opIn, "a"), req(opExists), "In [a]", true},
		{"Exists x Exists", req(opExists), req(opExists), "Exists", true},
		{"In x DoesNotExist", req(opIn, "a"), req(opDoesNotExist), "In []", false},
		{"Exists x DoesNotExist", req(opExists), req(opDoesNotExist), "In []", false},
		{"NotIn x DoesNotExist", req(opNotIn, "a"), req(opDoesNotExist), "DoesNotExist", true},
		{"DoesNotExist x DoesNotExist", req(opDoesNotExist), req(opDoesNotExist), "DoesNotExist", true},
		{"Gt x DoesNotExist", req(opGt, "1"), req(opDoesNotExist), "In []", false},
		{"In ints and words x Gt", req(opIn, "2", "4", "8", "x", "04"), req(opGt, "3"), "In [04 4 8]", true},
		{"In x Gte inclusive", req(opIn, "2", "3", "4"), req(opGte, "3"), "In [3 4]", true},
		{"In x Lt", req(opIn, "2", "3", "4", "x"), req(opLt, "3"), "In [2]", true},
		{"In x Lte inclusive", req(opIn, "2", "3", "4"), req(opLte, "3"), "In [2 3]", true},
		{"In words x Gt", req(opIn, "x", "y"), req(opGt, "0"), "In []", false},
		{"In x Gt none left", req(opIn, "1", "2"), req(opGt, "2"), "In []", false},
		{"Gt x Lt", req(opGt, "3"), req(opLt, "9"), "Exists >3 <9", true},
		{"Gte x Lte single", req(opGte, "4"), req(opLte, "4"), "Exists >3 <5", true},
		{"Gt x Lt empty", req(opGt, "4"), req(opLt, "5"), "In []", false},
		{"Gte x Lte crossed", req(opGte, "5"), req(opLte, "4"), "In []", false},
		{"Gt x Gt", req(opGt, "3"), req(opGt, "7"), "Exists >7", true},
		{"Lt x Lte", req(opLt, "3"), req(opLte, "1"), "Exists <2", true},
		{"Gt x NotIn prunes", req(opGt, "3"), req(opNotIn, "2", "5", "x"), "Exists NotIn [5] >3", true},
		{"Gt x Exists", req(opGt, "3"), req(opExists), "Exists >3", true},
		{"NotIn x NotIn empty", req(opNotIn), req(opNotIn), "NotIn []", true},
		{"In x NotIn empty", req(opIn, "a"), req(opNotIn), "In [a]", true},
		{"contradiction x NotIn", req(opIn), req(opNotIn, "a"), "In []", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, pair := range [][2]*Requirement{{tc.a, tc.b}, {tc.b, tc.a}} {
				a, b := pair[0], pair[1]
				before := a.String() + b.String()
				got := a.Intersection(b)
				if s := got.describe(); s != tc.want {
					t.Errorf("%s ∩ %s = %q, want %q", a, b, s, tc.want)
				}
				if i := a.Intersects(b); i != tc.intersects {
					t.Errorf("%s intersects %s = %v, want %v", a, b, i, tc.intersects)
				}
				if a.String()+b.String() != before {
					t.Errorf("Intersection modified its inputs")
				}
				// The result allows exactly what both sides allow.
				for _, v := range []string{"", "a", "b", "c", "x", "-1", "0", "1", "2", "3", "03", "4", "04", "5", "8", "9"} {
					if got.Has(v) != (a.Has(v) && b.Has(v)) {
						t.Errorf("(%s).Has(%q) = %v", got, v, got.Has(v))
					}
				}
				if v, ok := got.Any(); ok != !got.IsEmpty() || (ok && !(a.Has(v) && b.Has(v))) {
					t.Errorf("(%s).Any() = %q, %v", got, v, ok)
				}
			}
		})
	}
}

func TestIntersectionMinValues(t *testing.T) {
	a := req(opIn, "a", "b", "c")
	a.MinValues = new(2)
	b := req(opExists)
	b.MinValues = new(3)
	if got := a.Intersection(b).String(); got != key+" In [a b c] minValues 3" {
		t.Errorf("got %q", got)
	}
	if got := a.Intersection(req(opNotIn, "a")).String(); got != key+" In [b c] minValues 2" {
		t.Errorf("got %q", got)
	}
	if got := req(opIn, "a").Intersection(req(opIn, "a")).MinValues; got != nil {
		t.Errorf("MinValues = %v, want nil", *got)
	}
}

func TestAny(t *testing.T) {
	for _, tc := range []struct {
		req  *Requirement
		want string
		ok   bool
	}{
		{req(opIn, "c", "b"), "b", true},
		{req(opDoesNotExist), "", false},
		{req(opExists), "0", true},
		{req(opNotIn, "0", "1"), "2", true},
		{req(opGt, "3"), "4", true},
		{req(opLt, "3"), "2", true},
		{req(opGte, "4").Intersection(req(opLte, "4")).Intersection(req(opNotIn, "4")), "04", true},
		{req(opGte, "-4").Intersection(req(opLte, "-4")).Intersection(req(opNotIn, "-4")), "-04", true},
		{req(opGt, "1").Intersection(req(opLt, "2")), "", false},
	} {
		if got, ok := tc.req.Any(); got != tc.want || ok != tc.ok {
			t.Errorf("(%s).Any() = %q, %v, want %q, %v", tc.req, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLenValuesInsert(t *testing.T) {
	r := req(opIn, "b", "a")
	if r.Len() != 2 || len(r.Values()) != 2 || r.Values()[0] != "a" {
		t.Errorf("Len/Values of %s: %d %v", r, r.Len(), r.Values())
	}
	r.Insert("c")
	if !r.Has("c") || r.Len() != 3 {
		t.Errorf("Insert into finite set: %s", r)
	}
	n := req(opNotIn, "a", "b")
	if n.Len() != math.MaxInt64-2 {
		t.Errorf("Len of %s = %d", n, n.Len())
	}
	n.Insert("a")
	if !n.Has("a") || n.Has("b") {
		t.Errorf("Insert into complement: %s", n)
	}
}

func TestParseInt(t *testing.T) {
	for _, s := range []string{"0", "7", "-7", "+7", "007", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999999", "", "-", "+", "1a", " 1", "1_0", "0x10"} {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseInt(s)
		if ok != (err == nil) || (ok && got != want) {
			t.Errorf("parseInt(%q) = %d, %v; strconv says %d, %v", s, got, ok, want, err)
		}
	}
}

// FuzzIntersection checks that Intersection is commutative and allows exactly the values both
// sides allow, and that intersects agrees with the result.
func FuzzIntersection(f *testing.F) {
	f.Add(uint8(0), "a,b", uint8(1), "b", "a")
	f.Add(uint8(4), "3", uint8(5), "9", "4")
	f.Add(uint8(6), "3", uint8(1), "3,4,x", "04")
	f.Add(uint8(2), "", uint8(3), "", "")
	f.Add(uint8(7), "-2", uint8(0), "-2,-3,+1", "-02")
	ops := []corev1.NodeSelectorOperator{opIn, opNotIn, opExists, opDoesNotExist, opGt, opLt, opGte, opLte}
	split := func(s string) []string {
		var out []string
		for len(s) > 0 {
			i := 0
			for i < len(s) && s[i] != ',' {
				i++
			}
			out = append(out, s[:i])
			if i == len(s) {
				break
			}
			s = s[i+1:]
		}
		return out
	}
	f.Fuzz(func(t *testing.T, opA uint8, valuesA string, opB uint8, valuesB string, probe string) {
		a := req(ops[int(opA)%len(ops)], split(valuesA)...)
		b := req(ops[int(opB)%len(ops)], split(valuesB)...)
		ab, ba := a.Intersection(b), b.Intersection(a)
		probes := append(append(split(valuesA), split(valuesB)...), probe, "0"+probe, "1", "-1", "9223372036854775807")
		if v, ok := ab.Any(); ok {
			probes = append(probes, v)
		}
		for _, v := range probes {
			want := a.Has(v) && b.Has(v)
			if ab.Has(v) != want || ba.Has(v) != want {
				t.Fatalf("%q: (%s)∩(%s): ab.Has=%v ba.Has=%v want %v", v, a, b, ab.Has(v), ba.Has(v), want)
			}
		}
		if ab.String() != ba.String() {
			t.Fatalf("not commutative: %s vs %s", ab, ba)
		}
		want := !ab.IsEmpty() || ab.AllowsAbsent()
		if a.Intersects(b) != want || b.Intersects(a) != want {
			t.Fatalf("intersects(%s, %s) = %v, want %v", a, b, a.Intersects(b), want)
		}
		if v, ok := ab.Any(); ok != !ab.IsEmpty() || (ok && !ab.Has(v)) {
			t.Fatalf("(%s).Any() = %q, %v", ab, v, ok)
		}
	})
}
