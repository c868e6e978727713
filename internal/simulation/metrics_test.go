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
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

func TestEffectiveZone(t *testing.T) {
	pending := func(mutate ...func(*corev1.Pod)) *corev1.Pod { return pod("1", "1Gi", mutate...) }
	zoneA := scheduling.Requirements{corev1.LabelTopologyZone: scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "kr-central-2-a")}
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		volumes scheduling.Requirements
		want    string
	}{
		{"unconstrained", pending(), nil, ZoneFlexible},
		{"one zone asked", pending(withNodeSelector(corev1.LabelTopologyZone, "kr-central-2-b")), nil, "kr-central-2-b"},
		{"two zones asked", pending(withNodeAffinity(corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-a", "kr-central-2-b"}})), nil, ZoneFlexible},
		{"a volume narrows two to one", pending(withNodeAffinity(corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-a", "kr-central-2-b"}})), zoneA, "kr-central-2-a"},
		{"a volume in a zone the pod refuses", pending(withNodeSelector(corev1.LabelTopologyZone, "kr-central-2-b")), zoneA, ZoneNone},
		{"only a zone excluded", pending(withNodeAffinity(corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"kr-central-2-a"}})), nil, ZoneFlexible},
	} {
		if got := EffectiveZone(tc.pod, tc.volumes); got != tc.want {
			t.Errorf("%s: effective zone %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSimulate(t *testing.T) {
	fits := pods(3, "1", "1Gi", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending })
	tooBig := pod("1000", "1Gi", withNodeSelector(corev1.LabelTopologyZone, "kr-central-2-a"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending })
	claimed := pod("1", "1Gi", func(p *corev1.Pod) {
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu"}}
	})
	in := Input{Pods: append(append([]*corev1.Pod{}, fits...), tooBig, claimed), NodePools: []NodePoolInput{poolInput(nodePool("default", 0))}}

	var queued []int
	watched := in
	watched.Progress = func(n int) { queued = append(queued, n) }
	res := Schedule(watched)
	if len(queued) == 0 || queued[0] != 4 {
		t.Errorf("progress told %v, want it to start at the 4 pods tried (the one with a claim is refused before)", queued)
	}
	if res.Ignored != 1 {
		t.Errorf("%d pods ignored, want the one with a resource claim", res.Ignored)
	}

	res = Simulate("test", in)
	if len(res.PodErrors) != 2 {
		t.Fatalf("%d pods unplaced, want 2", len(res.PodErrors))
	}
	if got := testutil.ToFloat64(unschedulablePods.WithLabelValues("test")); got != 2 {
		t.Errorf("unschedulable = %v, want 2", got)
	}
	if got := testutil.ToFloat64(pendingPodsByZone.WithLabelValues("test", ZoneFlexible)); got != 3 {
		t.Errorf("flexible pending pods = %v, want 3", got)
	}
	if got := testutil.ToFloat64(pendingPodsByZone.WithLabelValues("test", "kr-central-2-a")); got != 1 {
		t.Errorf("pending pods of kr-central-2-a = %v, want 1", got)
	}
	if n := testutil.CollectAndCount(unfinishedWork); n != 0 {
		t.Errorf("%d unfinished-work series after the simulation ended", n)
	}
	if n := testutil.CollectAndCount(queueDepth); n != 1 {
		t.Errorf("%d queue series, want the last simulation's", n)
	}
	timed := &dto.Metric{}
	if err := schedulingDuration.WithLabelValues("test").(prometheus.Metric).Write(timed); err != nil {
		t.Fatal(err)
	}
	if n := timed.GetHistogram().GetSampleCount(); n != 1 {
		t.Errorf("%d simulations timed, want 1", n)
	}

	// The next simulation replaces the last one's series.
	Simulate("test", Input{Pods: fits[:1], NodePools: in.NodePools})
	if n := testutil.CollectAndCount(queueDepth); n != 1 {
		t.Errorf("%d queue series after a second simulation, want 1", n)
	}
	if got := testutil.ToFloat64(unschedulablePods.WithLabelValues("test")); got != 0 {
		t.Errorf("unschedulable = %v after a simulation that placed everything", got)
	}
	if n := testutil.CollectAndCount(pendingPodsByZone); n != 1 {
		t.Errorf("%d pending-by-zone series, want the second simulation's one", n)
	}
}
