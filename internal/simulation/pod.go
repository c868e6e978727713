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
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// podInfo is a pod with what the scheduler needs of it precomputed, and how far its
// preferences have been relaxed.
//
// Preferences start out as if they were required, the way upstream Karpenter's Respect policy
// treats them: the heaviest preferred node-affinity term, preferred pod (anti-)affinity and
// ScheduleAnyway spreads all constrain the pod, and PreferNoSchedule taints repel it. When the
// pod fits nowhere, relax drops one of them and the pod is tried again.
type podInfo struct {
	pod      *corev1.Pod
	requests resVec // includes pods: 1
	ports    []hostPort

	// requirements are the nodeSelector, the required node-affinity term in use, the heaviest
	// preferred node-affinity term still in force and the volumes' topology.
	requirements scheduling.Requirements
	volume       scheduling.Requirements
	requiredTerm int
	preferred    []corev1.PreferredSchedulingTerm // heaviest first

	terms                    []podTerm // topology constraints the pod owns, still in force
	toleratePreferNoSchedule bool

	counted      sets.Set[*topologyGroup] // groups whose selector matches the pod
	inverse      []*topologyGroup         // anti-affinity groups that repel the pod
	topologyKeys []string
	spreadKeys   []string                // keys other than hostname of the spreads that count the pod
	nominated    destination.Destination // the existing node an earlier run put it on (Input.Nominated)
	volumes      scheduling.VolumeUsage  // its CSI volumes (Input.PodVolumes), for nodes' attach limits
}

func newPodInfo(pod *corev1.Pod, volume scheduling.Requirements) *podInfo {
	req := toVec(resources.PodRequests(pod))
	pods, _ := req.get(corev1.ResourcePods)
	req.set(corev1.ResourcePods, pods+1000)
	p := &podInfo{pod: pod, requests: req, ports: podHostPorts(pod), volume: volume}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		p.preferred = slices.Clone(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
		slices.SortStableFunc(p.preferred, func(x, y corev1.PreferredSchedulingTerm) int { return cmp.Compare(y.Weight, x.Weight) })
	}
	p.computeRequirements()
	return p
}

// computeRequirements rebuilds requirements from the relaxation state.
func (p *podInfo) computeRequirements() {
	r := scheduling.FromPodNodeSelector(p.pod)
	if a := p.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		if sel := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; sel != nil && p.requiredTerm < len(sel.NodeSelectorTerms) {
			r.Add(scheduling.FromNodeSelectorRequirements(sel.NodeSelectorTerms[p.requiredTerm].MatchExpressions...).Values()...)
		}
	}
	if len(p.preferred) > 0 {
		r.Add(scheduling.FromNodeSelectorRequirements(p.preferred[0].Preference.MatchExpressions...).Values()...)
	}
	if len(p.volume) > 0 {
		r.Add(p.volume.DeepCopy().Values()...)
	}
	p.requirements = r
}

// relax drops one preference, in upstream Karpenter's order: the next required node-affinity
// term, a preferred pod affinity term, a preferred pod anti-affinity term, the heaviest
// preferred node-affinity term, a ScheduleAnyway spread, and finally PreferNoSchedule taints
// (only when some node or NodePool has one). It reports false when nothing is left to relax.
func (p *podInfo) relax(preferNoScheduleTaints bool) bool {
	if a := p.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		if sel := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; sel != nil && p.requiredTerm+1 < len(sel.NodeSelectorTerms) {
			p.requiredTerm++
			p.computeRequirements()
			return true
		}
	}
	if p.dropPreferredTerm(kindAffinity) || p.dropPreferredTerm(kindAntiAffinity) {
		return true
	}
	if len(p.preferred) > 0 {
		p.preferred = p.preferred[1:]
		p.computeRequirements()
		return true
	}
	if p.dropPreferredTerm(kindSpread) {
		return true
	}
	if preferNoScheduleTaints && !p.toleratePreferNoSchedule {
		p.toleratePreferNoSchedule = true
		return true
	}
	return false
}

// ignorePreferences drops the preferences at once, as if each had been relaxed: the
// preferred node-affinity terms and the preferred topology terms. PreferNoSchedule taints are
// still avoided until the last relaxation, as upstream's Ignore leaves them.
func (p *podInfo) ignorePreferences() {
	p.preferred = nil
	p.terms = slices.DeleteFunc(slices.Clone(p.terms), func(t podTerm) bool { return t.preferred })
	p.computeRequirements()
	p.refreshKeys()
}

// dropPreferredTerm removes the lightest preferred term of the kind.
func (p *podInfo) dropPreferredTerm(kind topologyKind) bool {
	drop := -1
	for i, t := range p.terms {
		if t.preferred && t.group.kind == kind && (drop < 0 || t.weight < p.terms[drop].weight) {
			drop = i
		}
	}
	if drop < 0 {
		return false
	}
	p.terms = slices.Delete(slices.Clone(p.terms), drop, drop+1)
	p.refreshKeys()
	return true
}

// tolerates returns nil when the pod tolerates the taints it must: NoSchedule and NoExecute,
// and PreferNoSchedule until that preference is relaxed.
func (p *podInfo) tolerates(taints []corev1.Taint) error {
	return tolerates(p.pod, taints, !p.toleratePreferNoSchedule)
}
