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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestParseSchedulerConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name, raw, err string
		constraints    int
	}{
		{name: "empty is none", raw: ""},
		{name: "YAML, as the kube-scheduler's plugin args", constraints: 2, raw: `
podTopologySpread:
  defaultConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
  - {maxSkew: 3, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}`},
		{name: "JSON", constraints: 1, raw: `{"podTopologySpread":{"defaultConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"}]}}`},
		{name: "an unknown field", raw: `podTopologySpread: {defaultContraints: []}`, err: `unknown field "defaultContraints"`},
		{name: "maxSkew 0", raw: `podTopologySpread: {defaultConstraints: [{maxSkew: 0, topologyKey: a, whenUnsatisfiable: DoNotSchedule}]}`,
			err: "defaultConstraints[0].maxSkew must be greater than 0"},
		{name: "a selector", raw: `podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: a, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: x}}}]}`,
			err: "labelSelector must not be set"},
		{name: "a bad whenUnsatisfiable", raw: `podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: a, whenUnsatisfiable: Never}]}`,
			err: `whenUnsatisfiable "Never" is neither DoNotSchedule nor ScheduleAnyway`},
		{name: "a repeat", raw: `podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: a, whenUnsatisfiable: DoNotSchedule}, {maxSkew: 2, topologyKey: a, whenUnsatisfiable: DoNotSchedule}]}`,
			err: "defaultConstraints[1] repeats defaultConstraints[0]"},
	} {
		config, err := ParseSchedulerConfiguration(tc.raw)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || len(config.DefaultConstraints()) != tc.constraints {
			t.Errorf("%s: %d constraints, error %v; want %d", tc.name, len(config.DefaultConstraints()), err, tc.constraints)
		}
	}
}

// TestDefaultSpread: the selector is deduced as the kube-scheduler deduces it, and a
// deployment's pods without constraints of their own are spread over the zones as it will
// spread them.
func TestDefaultSpread(t *testing.T) {
	zone := []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule}}
	owned := func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "web", "tier": "frontend", "pod-template-hash": "abc"}
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", Controller: new(true)}}
	}
	workloads := Workloads{
		Services: []*corev1.Service{
			{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"tier": "frontend"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "headless", Namespace: "default"}},
		},
		Owners: map[OwnerKey]OwnerSelector{
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "web-abc"}: {Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"pod-template-hash": "abc"}}},
		},
	}
	own := pod("1", "1Gi", owned, func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	})
	naked := pod("1", "1Gi")
	web := pods(3, "1", "1Gi", owned)
	in := append([]*corev1.Pod{own, naked}, web...)
	out, err := WithDefaultSpread(in, zone, workloads)
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != own || out[1] != naked {
		t.Errorf("a pod with constraints of its own, and one nothing selects, are left as they are")
	}
	got := out[2].Spec.TopologySpreadConstraints
	if out[2] == web[0] || len(web[0].Spec.TopologySpreadConstraints) != 0 || len(got) != 1 {
		t.Fatalf("a deployment's pod gets the default on a copy; got %+v", got)
	}
	// The Service's labels, then the ReplicaSet's selector added as requirements.
	want := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pod-template-hash", Operator: metav1.LabelSelectorOpIn, Values: []string{"abc"}}}}
	if got[0].TopologyKey != corev1.LabelTopologyZone || got[0].LabelSelector.String() != want.String() {
		t.Errorf("selector %v, want %v", got[0].LabelSelector, want)
	}

	res := Schedule(Input{Pods: out[2:], NodePools: []NodePoolInput{poolInput(nodePool("default", 0))}})
	seen := sets.New[string]()
	for _, n := range res.NewNodeClaims {
		seen.Insert(n.Requirements.Get(corev1.LabelTopologyZone).Values()...)
	}
	if len(res.NewNodeClaims) != 3 || seen.Len() != 3 {
		t.Errorf("three pods spread by the default constraint: %d NodeClaims in zones %v, want 3 in 3 zones", len(res.NewNodeClaims), sets.List(seen))
	}
}
