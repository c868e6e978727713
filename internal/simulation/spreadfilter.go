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
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// spreadFilter says which nodes a topology spread constraint counts, as the kube-scheduler's
// PodTopologySpread plugin does: only nodes that carry every topology key of the pod's
// constraints; with nodeAffinityPolicy Honor (the default) only nodes the pod's nodeSelector
// and required node affinity match; with nodeTaintsPolicy Honor (not the default) only nodes
// whose taints the pod tolerates. Pods on other nodes do not count, and their domains are not
// domains of the constraint.
type spreadFilter struct {
	keys     []string
	affinity *nodeaffinity.RequiredNodeAffinity // nil: nodeAffinityPolicy Ignore
	// strict is the same, as requirements, for NodeClaims: one alternative per required term
	// (each with the nodeSelector), as the terms are ORed; nil: nodeAffinityPolicy Ignore.
	strict      []scheduling.Requirements
	tolerations []corev1.Toleration // honoured when honorTaints
	honorTaints bool
	// reach and podTolerations say which NodePools the pod can launch into: only their
	// domains are domains the constraint may be balanced over, whatever the policies.
	reach          scheduling.Requirements
	podTolerations []corev1.Toleration
	id             string
}

func newSpreadFilter(pod *corev1.Pod, tsc *corev1.TopologySpreadConstraint) *spreadFilter {
	f := &spreadFilter{reach: scheduling.FromPodRequiredAffinity(pod), podTolerations: pod.Spec.Tolerations}
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if k := scheduling.NormalizeKey(c.TopologyKey); !slices.Contains(f.keys, k) {
			f.keys = append(f.keys, k)
		}
	}
	slices.Sort(f.keys)
	type identity struct {
		Keys                       []string
		NodeSelector               map[string]string    `json:",omitempty"`
		Affinity                   *corev1.NodeSelector `json:",omitempty"`
		Tolerations                []corev1.Toleration  `json:",omitempty"`
		HonorAffinity, HonorTaints bool
	}
	// The pods of a group share how they see domains: the same constraint keys, node affinity
	// and tolerations (in practice, the pods of one workload).
	id := identity{Keys: f.keys, NodeSelector: pod.Spec.NodeSelector, Tolerations: pod.Spec.Tolerations}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		id.Affinity = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if tsc.NodeAffinityPolicy == nil || *tsc.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
		f.affinity, f.strict, id.HonorAffinity = &affinity, requiredAlternatives(pod), true
	}
	if tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		f.honorTaints, f.tolerations, id.HonorTaints = true, pod.Spec.Tolerations, true
	}
	raw, _ := json.Marshal(id)
	f.id = string(raw)
	return f
}

// admitsNode reports whether a real node with these labels and taints counts.
func (f *spreadFilter) admitsNode(labels map[string]string, taints []corev1.Taint) bool {
	for _, k := range f.keys {
		if _, ok := labels[k]; !ok && k != corev1.LabelHostname {
			return false
		}
	}
	if f.affinity != nil {
		if ok, err := f.affinity.Match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}); err != nil || !ok {
			return false
		}
	}
	return f.toleratesTaints(taints)
}

// admitsClaim reports whether a NodeClaim with these requirements and taints may count: its
// node can carry the keys and match the pod's node affinity.
func (f *spreadFilter) admitsClaim(reqs scheduling.Requirements, taints []corev1.Taint) bool {
	for _, k := range f.keys {
		if r, ok := reqs[k]; k != corev1.LabelHostname && (!ok || r.IsEmpty()) {
			return false
		}
	}
	if f.strict != nil && !slices.ContainsFunc(f.strict, reqs.IsIntersecting) {
		return false
	}
	return f.toleratesTaints(taints)
}

// requiredAlternatives are the requirements a node may meet for the pod, one per required
// node-affinity term (ORed), each with the nodeSelector; the nodeSelector alone without terms.
func requiredAlternatives(pod *corev1.Pod) []scheduling.Requirements {
	var terms []corev1.NodeSelectorTerm
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	if len(terms) == 0 {
		return []scheduling.Requirements{scheduling.FromPodNodeSelector(pod)}
	}
	out := make([]scheduling.Requirements, len(terms))
	for i, term := range terms {
		out[i] = scheduling.FromPodNodeSelector(pod)
		out[i].Add(scheduling.FromNodeSelectorRequirements(term.MatchExpressions...).Values()...)
	}
	return out
}

func (f *spreadFilter) toleratesTaints(taints []corev1.Taint) bool {
	if !f.honorTaints {
		return true
	}
	return tolerates(&corev1.Pod{Spec: corev1.PodSpec{Tolerations: f.tolerations}}, taints, false) == nil
}

// admitsPool reports whether the pod can launch a node from the pool, so that the pool's
// domains are domains to balance over. A domain the pod cannot get a node in (the pool's taints,
// its requirements, its limits) is not one: the kube-scheduler, which sees only nodes, would
// place the pod on the nodes there are.
func (f *spreadFilter) admitsPool(t *poolTemplate) bool {
	return t.err == nil && tolerates(&corev1.Pod{Spec: corev1.PodSpec{Tolerations: f.podTolerations}}, t.taints, false) == nil &&
		t.base.IsCompatible(f.reach)
}

// admits reports whether a node the simulation sees counts.
func (f *spreadFilter) admits(v *nodeView) bool {
	if v.labels != nil {
		return f.admitsNode(v.labels, v.taints)
	}
	return f.admitsClaim(v.reqs, v.taints)
}
