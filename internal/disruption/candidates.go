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

package disruption

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// podDeletionCostAnnotation is the ReplicaSet controller's hint of which pods to remove first.
const podDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// Candidate is a node a method may disrupt.
type Candidate struct {
	*StateNode
	// Reschedulable are the pods that must move when the node goes.
	Reschedulable []*corev1.Pod
	// DisruptionCost orders candidates, the cheapest to disrupt first: the pods' eviction
	// costs, discounted by how little of the node's life is left before it expires anyway.
	DisruptionCost float64
	// SavingsRatio orders consolidation's candidates (bySavings): the node's price over what
	// disrupting it costs in upstream's terms (nodeDisruption).
	SavingsRatio float64
}

// Blocked says why a node that a method would look at is left alone.
type Blocked struct {
	Node    *StateNode
	Reason  string
	Message string
}

// candidates returns the nodes that eligible selects and nothing holds, cheapest to disrupt
// first, and for the others that eligible selects, why they are held.
func (s *Snapshot) candidates(eligible func(*StateNode) bool) ([]*Candidate, []Blocked) {
	var out []*Candidate
	var blocked []Blocked
	for _, n := range s.nodes {
		if n.pool == nil || !n.initialized() || n.markedForDisruption() || n.nominated || !eligible(n) {
			continue
		}
		if why := s.heldBy(n); why != "" {
			blocked = append(blocked, Blocked{Node: n, Reason: ReasonDisruptionBlocked, Message: why})
			continue
		}
		c := &Candidate{StateNode: n}
		for _, pod := range n.Pods {
			if podutil.IsReschedulable(pod) {
				c.Reschedulable = append(c.Reschedulable, pod)
			}
		}
		c.DisruptionCost = disruptionCost(c.Reschedulable, n.NodeClaim, s.now)
		c.SavingsRatio = n.price / nodeDisruption(n)
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *Candidate) int {
		return cmp.Or(cmp.Compare(a.DisruptionCost, b.DisruptionCost), cmp.Compare(a.Name(), b.Name()))
	})
	return out, blocked
}

// heldBy says what keeps a node from voluntary disruption ("" when nothing): the
// karpenter.sh/do-not-disrupt annotation on the node, its NodeClaim or one of its pods, or a
// PodDisruptionBudget that does not allow one of its pods to be evicted now.
func (s *Snapshot) heldBy(n *StateNode) string { return s.holdOf(n).why }

// hold is what keeps a node from voluntary disruption (heldBy), and what the pods looked at
// on the way are to be told about their karpenter.sh/do-not-disrupt annotations. It depends
// on the snapshot alone, and is worked out once per node.
type hold struct {
	why     string
	notices []PodNotice
}

// holdOf is the node's hold, worked out on first asking.
func (s *Snapshot) holdOf(n *StateNode) *hold {
	if n.hold == nil {
		n.hold = s.findHold(n)
	}
	return n.hold
}

func (s *Snapshot) findHold(n *StateNode) *hold {
	if n.Node.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true" {
		return &hold{why: fmt.Sprintf("node %s is annotated %s", n.Node.Name, karpv1.DoNotDisruptAnnotationKey)}
	}
	if n.NodeClaim.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true" {
		return &hold{why: fmt.Sprintf("nodeclaim %s is annotated %s", n.Name(), karpv1.DoNotDisruptAnnotationKey)}
	}
	h := &hold{}
	for _, pod := range n.Pods {
		if !pod.DeletionTimestamp.IsZero() {
			continue
		}
		// Every pod is looked at, not only up to the first that holds: each is told how its
		// annotation stands.
		why, notice := s.doNotDisrupt(pod)
		if why != "" && h.why == "" {
			h.why = why
		}
		if notice != nil {
			h.notices = append(h.notices, *notice)
		}
	}
	if h.why != "" {
		return h
	}
	for _, pod := range n.Pods {
		// Every pod the drain will evict is asked, DaemonSet pods included: a budget that
		// refuses one would hold the node in its drain, its replacement already launched. A
		// buffer's virtual pod is room, not a workload: no budget of a workload holds it.
		if !podutil.IsDrained(pod) || !pod.DeletionTimestamp.IsZero() || capacitybuffer.IsVirtual(pod) {
			continue
		}
		if why := s.pdbBlocks(pod); why != "" {
			h.why = why
			return h
		}
	}
	return h
}

// wanted reports whether a method would act on the node now, were nothing to hold it: it is
// drifted, or consolidatable under its NodePool's policy, and neither being disrupted already
// nor yet to initialize.
func wanted(n *StateNode) bool {
	if n.pool == nil || !n.initialized() || n.markedForDisruption() {
		return false
	}
	return drifted(n) || (consolidatable(n) && (underutilizable(n) || empty(n)))
}

// BlockedByPool counts, per NodePool, the nodes a method would act on now (drifted, or
// consolidatable under the NodePool's policy) that a karpenter.sh/do-not-disrupt annotation or
// a PodDisruptionBudget holds. Every NodePool is in it, with 0 when none is held.
func (s *Snapshot) BlockedByPool() map[string]int64 {
	out := make(map[string]int64, len(s.pools))
	for name := range s.pools {
		out[name] = 0
	}
	for _, n := range s.nodes {
		if wanted(n) && s.heldBy(n) != "" {
			out[n.pool.np.Name]++
		}
	}
	return out
}

// notices are what the pods of the nodes a method would act on are to be told about their
// karpenter.sh/do-not-disrupt annotations (see doNotDisrupt), a node at a time.
func (s *Snapshot) notices() []PodNotice {
	var out []PodNotice
	for _, n := range s.nodes {
		if wanted(n) {
			out = append(out, s.holdOf(n).notices...)
		}
	}
	return out
}

// doNotDisrupt says how a pod's karpenter.sh/do-not-disrupt annotation holds its node ("" when
// it does not), and what the pod is to be told (nil when nothing): until when a duration holds
// it, that it no longer does, or that the value is invalid (it then holds as "true" would).
func (s *Snapshot) doNotDisrupt(pod *corev1.Pod) (string, *PodNotice) {
	v, ok := pod.Annotations[karpv1.DoNotDisruptAnnotationKey]
	if !ok {
		return "", nil
	}
	active, until, err := podutil.DoNotDisrupt(pod, s.now)
	switch {
	case err != nil:
		return fmt.Sprintf("pod %s/%s is annotated %s=%q, which is not valid and holds as \"true\"", pod.Namespace, pod.Name, karpv1.DoNotDisruptAnnotationKey, v),
			&PodNotice{Pod: pod, Warning: true, Reason: ReasonInvalidDoNotDisruptAnnotation,
				Message: err.Error() + "; it holds the pod's node from voluntary disruption as \"true\" would until it is corrected"}
	case active && until.IsZero():
		return fmt.Sprintf("pod %s/%s is annotated %s", pod.Namespace, pod.Name, karpv1.DoNotDisruptAnnotationKey), nil
	case active:
		// The time itself, not how long is left: the words stay the same from pass to pass,
		// and still say when an hour later.
		return fmt.Sprintf("pod %s/%s is annotated %s=%s, which holds its node until %s", pod.Namespace, pod.Name, karpv1.DoNotDisruptAnnotationKey, v, until.UTC().Format(time.RFC3339)),
			&PodNotice{Pod: pod, Reason: ReasonDoNotDisruptUntil,
				Message: fmt.Sprintf("%s=%s holds this pod's node from voluntary disruption until %s", karpv1.DoNotDisruptAnnotationKey, v, until.UTC().Format(time.RFC3339))}
	default:
		return "", &PodNotice{Pod: pod, Reason: ReasonDoNotDisruptGracePeriodElapsed,
			Message: fmt.Sprintf("%s=%s elapsed at %s: the pod no longer holds its node", karpv1.DoNotDisruptAnnotationKey, v, until.UTC().Format(time.RFC3339))}
	}
}

// PodNotice is what the loop tells a pod about its karpenter.sh/do-not-disrupt annotation.
type PodNotice struct {
	Pod             *corev1.Pod
	Warning         bool
	Reason, Message string
}

// pdbBlocks says which PodDisruptionBudget would refuse the pod's eviction now ("" when none).
func (s *Snapshot) pdbBlocks(pod *corev1.Pod) string {
	var matching []string
	var zero string
	index := s.pdbIndex[pod.Namespace]
	if index == nil {
		return ""
	}
	pdbs := s.pdbs[pod.Namespace]
	// In the namespace's order, so that the budget named is the same every pass.
	var offered []int
	index.Each(pod.Labels, func(i int) { offered = append(offered, i) })
	slices.Sort(offered)
	for _, i := range offered {
		p := pdbs[i]
		if !p.selector.Matches(labelSet(pod.Labels)) {
			continue
		}
		matching = append(matching, p.pdb.Name)
		if p.pdb.Status.DisruptionsAllowed <= 0 && zero == "" {
			zero = p.pdb.Name
		}
	}
	switch {
	case len(matching) > 1:
		return fmt.Sprintf("pod %s/%s is covered by more than one PodDisruptionBudget (%s): the Eviction API refuses to evict it", pod.Namespace, pod.Name, strings.Join(matching, ", "))
	case zero != "":
		return fmt.Sprintf("PodDisruptionBudget %s/%s allows no disruption of pod %s/%s now (0 disruptions allowed)", pod.Namespace, zero, pod.Namespace, pod.Name)
	}
	return ""
}

// labelSet adapts a label map to labels.Labels without copying.
type labelSet map[string]string

func (l labelSet) Has(key string) bool   { _, ok := l[key]; return ok }
func (l labelSet) Get(key string) string { return l[key] }
func (l labelSet) Lookup(key string) (string, bool) {
	v, ok := l[key]
	return v, ok
}

// disruptionCost is the cost of evicting the pods, scaled by the share of the node's life
// still ahead of it (a node about to expire is cheap to disrupt).
func disruptionCost(pods []*corev1.Pod, nodeClaim *karpv1.NodeClaim, now time.Time) float64 {
	cost := 0.0
	for _, pod := range pods {
		cost += podEvictionCost(pod)
	}
	if d := nodeClaim.Spec.ExpireAfter.Duration; d != nil && *d > 0 {
		left := float64(nodeClaim.CreationTimestamp.Add(*d).Sub(now)) / float64(*d)
		cost *= math.Max(0, math.Min(1, left))
	}
	return cost
}

// bySavings orders consolidation's candidates as upstream Karpenter does since v1.15: the most
// price saved per unit of disruption first, so that a budget and multi-node consolidation's
// prefix take the moves worth the most first, and a cheap node with one pod is not moved
// before an expensive one with a few. Ties keep the order they came in (cheapest to disrupt
// first, then by name).
func bySavings(cands []*Candidate) {
	slices.SortStableFunc(cands, func(a, b *Candidate) int { return cmp.Compare(b.SavingsRatio, a.SavingsRatio) })
}

// podEvictionCost is 1 for an ordinary pod, more for pods with a positive disruption cost
// or a high priority, clamped to [-10, 10]. The cost is the pod's karpenter.sh/disruption-cost
// or, without it, its controller.kubernetes.io/pod-deletion-cost, an int32 each, as upstream
// Karpenter v1.15 reads them (the ReplicaSet controller's hint is a user's when Karpenter does
// not write it, which this operator never does); a value that does not parse counts as none.
func podEvictionCost(pod *corev1.Pod) float64 {
	cost := 1.0
	v, ok := pod.Annotations[karpv1.DisruptionCostAnnotationKey]
	if !ok {
		v, ok = pod.Annotations[podDeletionCostAnnotation]
	}
	if ok {
		if n, err := strconv.ParseInt(v, 10, 32); err == nil {
			cost += float64(n) / math.Pow(2, 27)
		}
	}
	if pod.Spec.Priority != nil {
		cost += float64(*pod.Spec.Priority) / math.Pow(2, 25)
	}
	return math.Max(-10, math.Min(10, cost))
}

// consolidatable reports whether consolidation may look at the node now: its NodePool
// consolidates and the node's Consolidatable condition is True.
// A static NodePool's nodes are never consolidated: it keeps spec.replicas of them whatever
// they run, as upstream's static NodePools do.
func consolidatable(n *StateNode) bool {
	return !n.pool.static() && n.pool.np.Spec.Disruption.ConsolidateAfter.Duration != nil &&
		meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeConsolidatable)
}

// drifted reports whether the node's NodeClaim is marked Drifted.
func drifted(n *StateNode) bool {
	return meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted)
}

// underutilizable reports whether the node's NodePool lets consolidation replace or remove
// nodes that still run pods.
func underutilizable(n *StateNode) bool {
	return n.pool.np.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyWhenEmpty
}
