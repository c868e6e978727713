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
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

const (
	zoneA = "kr-central-2-a"
	zoneB = "kr-central-2-b"
	zoneC = "kr-central-2-c"
)

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestIntersects(t *testing.T) {
	zone := karpv1.LabelTopologyZone
	for _, tc := range []struct {
		name string
		a, b Requirements
		want string
	}{
		{"same zone", NewRequirements(NewRequirement(zone, opIn, zoneA, zoneB)), NewRequirements(NewRequirement(zone, opIn, zoneB)), ""},
		{"different zones",
			NewRequirements(NewRequirement(zone, opIn, zoneA)),
			NewRequirements(NewRequirement(zone, opIn, zoneC)),
			"key topology.kubernetes.io/zone: [kr-central-2-a] does not intersect [kr-central-2-c]"},
		{"key only on one side", NewRequirements(NewRequirement(zone, opIn, zoneA)), NewRequirements(NewRequirement(karpv1.LabelArch, opIn, "amd64")), ""},
		{"In vs DoesNotExist",
			NewRequirements(NewRequirement("team", opIn, "a")),
			NewRequirements(NewRequirement("team", opDoesNotExist)),
			"key team: [a] does not intersect DoesNotExist"},
		{"Exists vs DoesNotExist",
			NewRequirements(NewRequirement("team", opExists)),
			NewRequirements(NewRequirement("team", opDoesNotExist)),
			"key team: Exists does not intersect DoesNotExist"},
		{"NotIn vs DoesNotExist", NewRequirements(NewRequirement("team", opNotIn, "a")), NewRequirements(NewRequirement("team", opDoesNotExist)), ""},
		{"NotIn vs In",
			NewRequirements(NewRequirement(karpv1.LabelArch, opNotIn, "arm64")),
			NewRequirements(NewRequirement(karpv1.LabelArch, opIn, "arm64")),
			"key kubernetes.io/arch: NotIn [arm64] does not intersect [arm64]"},
		{"bounds",
			NewRequirements(NewRequirement(kcv1.LabelInstanceCPU, opIn, "2", "4")),
			NewRequirements(NewRequirement(kcv1.LabelInstanceCPU, opGt, "4")),
			"key karpenter.kakaocloud.com/instance-cpu: [2 4] does not intersect Exists >4"},
		{"two keys in order",
			NewRequirements(NewRequirement(zone, opIn, zoneA), NewRequirement(karpv1.LabelArch, opIn, "amd64")),
			NewRequirements(NewRequirement(zone, opIn, zoneC), NewRequirement(karpv1.LabelArch, opIn, "arm64")),
			"key kubernetes.io/arch: [amd64] does not intersect [arm64]\nkey topology.kubernetes.io/zone: [kr-central-2-a] does not intersect [kr-central-2-c]"},
		{"empty", Requirements{}, NewRequirements(NewRequirement(zone, opIn, zoneA)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errString(tc.a.Intersects(tc.b)); got != tc.want {
				t.Errorf("Intersects:\n got %q\nwant %q", got, tc.want)
			}
			if got := tc.a.IsIntersecting(tc.b); got != (tc.want == "") {
				t.Errorf("IsIntersecting = %v", got)
			}
			// The check is symmetric (the message names r's side first).
			if (tc.b.Intersects(tc.a) == nil) != (tc.want == "") {
				t.Errorf("Intersects is not symmetric")
			}
		})
	}
}

func TestCompatible(t *testing.T) {
	node := NewRequirements(
		NewRequirement(karpv1.LabelTopologyZone, opIn, zoneA, zoneB),
		NewRequirement(karpv1.LabelCapacityType, opIn, karpv1.CapacityTypeOnDemand),
	)
	for _, tc := range []struct {
		name string
		pod  Requirements
		want string
	}{
		{"matching", NewRequirements(NewRequirement(karpv1.LabelTopologyZone, opIn, zoneB)), ""},
		// A custom label must be defined by the NodePool, as upstream Karpenter requires; the
		// node would not carry it otherwise, and the pod would never bind.
		{"custom In undefined", NewRequirements(NewRequirement("team", opIn, "ml")),
			"label team is not defined by the nodepool (in its requirements or template labels)"},
		{"custom Exists undefined", NewRequirements(NewRequirement("team", opExists)),
			"label team is not defined by the nodepool (in its requirements or template labels)"},
		{"custom NotIn undefined", NewRequirements(NewRequirement("team", opNotIn, "ml")), ""},
		{"custom DoesNotExist undefined", NewRequirements(NewRequirement("team", opDoesNotExist)), ""},
		{"restricted domain undefined", NewRequirements(NewRequirement("node-restriction.kubernetes.io/role", opIn, "db")),
			"label node-restriction.kubernetes.io/role is not defined by the nodepool (in its requirements or template labels)"},
		{"well-known In undefined",
			NewRequirements(NewRequirement(kcv1.LabelInstanceGPUName, opIn, "a100")),
			"key karpenter.kakaocloud.com/instance-gpu-name: [a100] requires a well-known label that is undefined"},
		{"well-known Exists undefined",
			NewRequirements(NewRequirement(karpv1.LabelArch, opExists)),
			"key kubernetes.io/arch: Exists requires a well-known label that is undefined"},
		{"well-known Gt undefined",
			NewRequirements(NewRequirement(kcv1.LabelInstanceGPUCount, opGt, "0")),
			"key karpenter.kakaocloud.com/instance-gpu-count: Exists >0 requires a well-known label that is undefined"},
		{"well-known NotIn undefined", NewRequirements(NewRequirement(karpv1.LabelArch, opNotIn, "arm64")), ""},
		{"well-known DoesNotExist undefined", NewRequirements(NewRequirement(kcv1.LabelInstanceGPUName, opDoesNotExist)), ""},
		{"conflict and undefined",
			NewRequirements(NewRequirement(karpv1.LabelTopologyZone, opIn, zoneC), NewRequirement(karpv1.LabelArch, opIn, "amd64")),
			"key kubernetes.io/arch: [amd64] requires a well-known label that is undefined\n" +
				"key topology.kubernetes.io/zone: [kr-central-2-a kr-central-2-b] does not intersect [kr-central-2-c]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errString(node.Compatible(tc.pod)); got != tc.want {
				t.Errorf("Compatible:\n got %q\nwant %q", got, tc.want)
			}
			if got := node.IsCompatible(tc.pod); got != (tc.want == "") {
				t.Errorf("IsCompatible = %v", got)
			}
		})
	}
}

func TestFromPod(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		NodeSelector: map[string]string{
			"failure-domain.beta.kubernetes.io/zone": zoneA,
			"team":                                   "ml",
		},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: karpv1.LabelTopologyZone, Operator: opIn, Values: []string{zoneA, zoneB}},
					{Key: "beta.kubernetes.io/arch", Operator: opIn, Values: []string{"amd64"}},
					{Key: kcv1.LabelInstanceCPU, Operator: opGt, Values: []string{"3"}},
					{Key: kcv1.LabelInstanceCPU, Operator: opLte, Values: []string{"16"}},
				}},
				{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: karpv1.LabelArch, Operator: opIn, Values: []string{"arm64"}},
				}},
			}},
		}},
	}}
	if got, want := FromPodNodeSelector(pod).String(), "team In [ml], topology.kubernetes.io/zone In [kr-central-2-a]"; got != want {
		t.Errorf("FromPodNodeSelector:\n got %s\nwant %s", got, want)
	}
	want := "karpenter.kakaocloud.com/instance-cpu Exists >3 <17, kubernetes.io/arch In [amd64], team In [ml], topology.kubernetes.io/zone In [kr-central-2-a]"
	if got := FromPodRequiredAffinity(pod).String(); got != want {
		t.Errorf("FromPodRequiredAffinity:\n got %s\nwant %s", got, want)
	}
	if got := FromPodRequiredAffinity(&corev1.Pod{}); len(got) != 0 {
		t.Errorf("pod without constraints: %s", got)
	}
}

func TestFromLabelsAndLabels(t *testing.T) {
	r := FromLabels(map[string]string{
		"beta.kubernetes.io/arch": "amd64",
		karpv1.LabelArch:          "amd64",
		"team":                    "ml",
	})
	if got, want := r.String(), "kubernetes.io/arch In [amd64], team In [ml]"; got != want {
		t.Errorf("FromLabels: %s", got)
	}
	r.Add(
		NewRequirement(karpv1.LabelTopologyZone, opIn, zoneA, zoneB),
		NewRequirement(karpv1.LabelNodePool, opIn, "default"),
		NewRequirement(karpv1.LabelHostname, opIn, "node-1"),
		NewRequirement(kcv1.LabelInstanceFamily, opIn, "m2a"),
		NewRequirement(kcv1.LabelInstanceCPU, opGte, "4"),
		NewRequirement(kcv1.LabelInstanceCPU, opLte, "4"),
		NewRequirement("gone", opDoesNotExist),
		NewRequirement("other", opNotIn, "x"),
		NewRequirement(karpv1.LabelCapacityType, opIn, karpv1.CapacityTypeSpot),
		// A custom label that must exist gets one of its values: the node needs the label.
		NewRequirement("tier", opIn, "silver", "gold"),
		NewRequirement("rack", opExists),
	)
	r.Add(NewRequirement(karpv1.LabelTopologyZone, opIn, zoneB, zoneC))
	want := map[string]string{
		karpv1.LabelArch:         "amd64",
		"team":                   "ml",
		karpv1.LabelTopologyZone: zoneB,
		kcv1.LabelInstanceFamily: "m2a",
		karpv1.LabelCapacityType: karpv1.CapacityTypeSpot,
		"tier":                   "gold",
		"rack":                   "0",
	}
	if got := r.Labels(); !reflect.DeepEqual(got, want) {
		t.Errorf("Labels() = %v, want %v", got, want)
	}
}

func TestRequirementsAccessors(t *testing.T) {
	r := NewRequirements(NewRequirement("b", opIn, "1"), NewRequirement("a", opExists))
	if got := r.Keys(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Keys() = %v", got)
	}
	if !r.Has("a") || r.Has("c") {
		t.Errorf("Has")
	}
	if g := r.Get("c"); !g.Has("anything") || !g.AllowsAbsent() || g.Key != "c" {
		t.Errorf("Get of undefined key = %s", g)
	}
	c := r.DeepCopy()
	c["b"].Insert("2")
	if r["b"].Has("2") {
		t.Errorf("DeepCopy shares values")
	}
}

func TestNodeSelectorRequirementsRoundTrip(t *testing.T) {
	mv := new(2)
	in := []karpv1.NodeSelectorRequirementWithMinValues{
		{Key: kcv1.LabelInstanceFamily, Operator: opIn, Values: []string{"m2a", "c2a", "r2a"}, MinValues: mv},
		{Key: karpv1.LabelTopologyZone, Operator: opNotIn, Values: []string{zoneC}},
		{Key: karpv1.LabelArch, Operator: opExists},
		{Key: kcv1.LabelInstanceCPU, Operator: opGt, Values: []string{"3"}},
		{Key: kcv1.LabelInstanceCPU, Operator: opLte, Values: []string{"32"}},
		{Key: kcv1.LabelInstanceCPU, Operator: opNotIn, Values: []string{"8", "64", "x"}},
		{Key: kcv1.LabelInstanceMemory, Operator: opGte, Values: []string{"0"}},
		{Key: kcv1.LabelInstanceGPUName, Operator: opDoesNotExist},
		{Key: "team", Operator: opNotIn, Values: []string{"a"}},
		{Key: "team", Operator: opExists},
		{Key: "free", Operator: opNotIn},
	}
	r := FromNodeClaimRequirements(in...)
	out := r.NodeSelectorRequirements()
	want := []karpv1.NodeSelectorRequirementWithMinValues{
		{Key: kcv1.LabelInstanceCPU, Operator: opNotIn, Values: []string{"8"}},
		{Key: kcv1.LabelInstanceCPU, Operator: opGt, Values: []string{"3"}},
		{Key: kcv1.LabelInstanceCPU, Operator: opLt, Values: []string{"33"}},
		{Key: kcv1.LabelInstanceFamily, Operator: opIn, Values: []string{"c2a", "m2a", "r2a"}, MinValues: mv},
		{Key: kcv1.LabelInstanceGPUName, Operator: opDoesNotExist},
		{Key: kcv1.LabelInstanceMemory, Operator: opGte, Values: []string{"0"}},
		{Key: karpv1.LabelArch, Operator: opExists},
		{Key: "team", Operator: opNotIn, Values: []string{"a"}},
		{Key: "team", Operator: opExists},
		{Key: karpv1.LabelTopologyZone, Operator: opNotIn, Values: []string{zoneC}},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("NodeSelectorRequirements:\n got %v\nwant %v", out, want)
	}
	back := FromNodeClaimRequirements(out...)
	delete(r, "free") // unconstrained keys are not written
	if back.String() != r.String() {
		t.Errorf("round trip:\n got %s\nwant %s", back, r)
	}
	if !reflect.DeepEqual(back.NodeSelectorRequirements(), out) {
		t.Errorf("second round trip differs")
	}
	// Bounds that stay out of the non-negative Gt/Lt range use Gte/Lte.
	neg := NewRequirements(NewRequirement("n", opGte, "-5"), NewRequirement("n", opLte, "-3"))
	if got := FromNodeClaimRequirements(neg.NodeSelectorRequirements()...).String(); got != neg.String() {
		t.Errorf("negative bounds round trip: %s vs %s", got, neg)
	}
}

func TestMinValues(t *testing.T) {
	family := NewRequirement(kcv1.LabelInstanceFamily, opNotIn, "t1")
	family.MinValues = new(3)
	cpu := NewRequirement(kcv1.LabelInstanceCPU, opIn, "2", "4", "8")
	cpu.MinValues = new(2)
	r := NewRequirements(family, cpu, NewRequirement(karpv1.LabelArch, opIn, "amd64"))
	if !r.HasMinValues() || NewRequirements(NewRequirement("a", opExists)).HasMinValues() {
		t.Errorf("HasMinValues")
	}
	it := func(family, cpu string) Requirements {
		return NewRequirements(NewRequirement(kcv1.LabelInstanceFamily, opIn, family), NewRequirement(kcv1.LabelInstanceCPU, opIn, cpu))
	}
	covered := r.CoveredValues(it("m2a", "2"), it("c2a", "4"), it("t1", "16"), it("m2a", "4"))
	want := map[string]sets.Set[string]{
		kcv1.LabelInstanceFamily: sets.New("m2a", "c2a"),
		kcv1.LabelInstanceCPU:    sets.New("2", "4"),
	}
	if !reflect.DeepEqual(covered, want) {
		t.Errorf("CoveredValues = %v", covered)
	}
	if got, wantErr := errString(r.MinValuesSatisfied(covered)),
		"key karpenter.kakaocloud.com/instance-family: minValues 3 not met, only 2 values [c2a m2a] available"; got != wantErr {
		t.Errorf("MinValuesSatisfied:\n got %q\nwant %q", got, wantErr)
	}
	covered[kcv1.LabelInstanceFamily].Insert("r2a", "t1") // t1 is not allowed and does not count
	if err := r.MinValuesSatisfied(covered); err != nil {
		t.Errorf("MinValuesSatisfied: %v", err)
	}
	if got := errString(r.MinValuesSatisfied(nil)); got != "key karpenter.kakaocloud.com/instance-cpu: minValues 2 not met, only 0 values [] available\n"+
		"key karpenter.kakaocloud.com/instance-family: minValues 3 not met, only 0 values [] available" {
		t.Errorf("MinValuesSatisfied(nil) = %q", got)
	}
}

// benchRequirements returns a realistic NodeClaim template (9 keys, a custom label among them
// as a NodePool's template labels give it) and pod requirements (8 keys).
func benchRequirements() (template, pod, conflicting Requirements) {
	types := make([]string, 60)
	for i := range types {
		types[i] = fmt.Sprintf("m2a.%dxlarge-%d", i%8, i)
	}
	template = NewRequirements(
		NewRequirement(karpv1.LabelNodePool, opIn, "default"),
		NewRequirement(kcv1.LabelNodeClass, opIn, "default"),
		NewRequirement(karpv1.LabelCapacityType, opIn, karpv1.CapacityTypeOnDemand, karpv1.CapacityTypeSpot),
		NewRequirement(karpv1.LabelTopologyZone, opIn, zoneA, zoneB, zoneC),
		NewRequirement(karpv1.LabelInstanceType, opIn, types...),
		NewRequirement(karpv1.LabelArch, opIn, "amd64"),
		NewRequirement(karpv1.LabelOS, opIn, "linux"),
		NewRequirement(kcv1.LabelInstanceCPU, opGt, "3"),
		NewRequirement("team", opIn, "ml"),
	)
	pod = NewRequirements(
		NewRequirement(karpv1.LabelTopologyZone, opIn, zoneB),
		NewRequirement(karpv1.LabelArch, opIn, "amd64"),
		NewRequirement(karpv1.LabelInstanceType, opNotIn, types[0], types[1]),
		NewRequirement(kcv1.LabelInstanceCPU, opLt, "33"),
		NewRequirement(karpv1.LabelCapacityType, opNotIn, karpv1.CapacityTypeSpot),
		NewRequirement(kcv1.LabelInstanceGPUName, opDoesNotExist),
		NewRequirement("team", opIn, "ml"),
		NewRequirement(karpv1.LabelOS, opExists),
	)
	conflicting = pod.DeepCopy()
	conflicting.Add(NewRequirement(karpv1.LabelTopologyZone, opIn, zoneC))
	return template, pod, conflicting
}

func BenchmarkIntersects(b *testing.B) {
	template, pod, _ := benchRequirements()
	b.ReportAllocs()
	for b.Loop() {
		if err := template.Intersects(pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompatible(b *testing.B) {
	template, pod, _ := benchRequirements()
	b.ReportAllocs()
	for b.Loop() {
		if err := template.Compatible(pod); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIsCompatibleConflict(b *testing.B) {
	template, _, conflicting := benchRequirements()
	b.ReportAllocs()
	for b.Loop() {
		if template.IsCompatible(conflicting) {
			b.Fatal("expected a conflict")
		}
	}
}

func BenchmarkCompatibleConflictError(b *testing.B) {
	template, _, conflicting := benchRequirements()
	var err error
	b.ReportAllocs()
	for b.Loop() {
		if err = template.Compatible(conflicting); err == nil {
			b.Fatal("expected a conflict")
		}
	}
	// The conflict is the zone alone: the error must say so, not some other key.
	if !strings.Contains(err.Error(), karpv1.LabelTopologyZone) {
		b.Fatalf("the conflict error %q does not name %s", err, karpv1.LabelTopologyZone)
	}
}

func BenchmarkIntersection(b *testing.B) {
	template, pod, _ := benchRequirements()
	// got keeps the last iteration's answers, by the index of the key in pod.Keys(), to be
	// checked once the timing is over.
	got := make([]*Requirement, len(pod))
	b.ReportAllocs()
	for b.Loop() {
		for i, k := range pod.Keys() {
			if template.Has(k) {
				got[i] = template[k].Intersection(pod[k])
			}
		}
	}
	// The template's 60 instance types less the two the pod excludes.
	excluded := pod[karpv1.LabelInstanceType].Values()
	wantTypes := slices.DeleteFunc(template[karpv1.LabelInstanceType].Values(), func(name string) bool { return slices.Contains(excluded, name) })
	want := map[string]string{
		karpv1.LabelTopologyZone: "In [" + zoneB + "]",
		karpv1.LabelArch:         "In [amd64]",
		karpv1.LabelInstanceType: NewRequirement(karpv1.LabelInstanceType, opIn, wantTypes...).describe(),
		kcv1.LabelInstanceCPU:    "Exists >3 <33",
		karpv1.LabelCapacityType: "In [" + karpv1.CapacityTypeOnDemand + "]",
		karpv1.LabelOS:           "In [linux]",
		"team":                   "In [ml]",
	}
	for i, k := range pod.Keys() {
		wantDescription, intersected := want[k]
		switch {
		case !intersected && got[i] != nil:
			b.Fatalf("%s: the template does not constrain it, yet an intersection %s was computed", k, got[i])
		case !intersected:
		case got[i] == nil:
			b.Fatalf("%s: no intersection computed, want %s", k, wantDescription)
		case got[i].describe() != wantDescription:
			b.Fatalf("%s: intersection %s, want %s", k, got[i].describe(), wantDescription)
		}
	}
	// describe abbreviates long lists: the instance types are compared in full.
	if i := slices.Index(pod.Keys(), karpv1.LabelInstanceType); got[i] == nil || !slices.Equal(got[i].Values(), wantTypes) {
		b.Fatalf("%s: intersection allows %v, want %v", karpv1.LabelInstanceType, got[i], wantTypes)
	}
}
