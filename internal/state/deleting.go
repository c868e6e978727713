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

package state

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// DeletingNodes names the nodes being deleted: the Node itself, or the NodeClaim that owns
// it. The NodeClaim's deletion comes first (expiration, repair, the disruption loop,
// kubectl delete nodeclaim or node all delete the NodeClaim), and its termination taints
// and drains the node a moment later; from the first of these the node takes no new pod.
func (c *Cluster) DeletingNodes() map[string]bool {
	deletingClaims := map[string]bool{}
	for _, nodeClaim := range c.NodeClaims {
		if !nodeClaim.DeletionTimestamp.IsZero() && nodeClaim.Status.ProviderID != "" {
			deletingClaims[nodeClaim.Status.ProviderID] = true
		}
	}
	out := map[string]bool{}
	for _, node := range c.Nodes {
		if !node.DeletionTimestamp.IsZero() || (node.Spec.ProviderID != "" && deletingClaims[node.Spec.ProviderID]) {
			out[node.Name] = true
		}
	}
	return out
}

// DeletingNodePods are the pods that will have to leave the nodes being deleted: each one's
// reschedulable pods, as upstream Karpenter's provisioner counts them, without those whose
// eviction nothing will allow before the termination grace period forces it (an active
// karpenter.sh/do-not-disrupt, a PodDisruptionBudget that never allows one, or more than one
// budget, which the Eviction API refuses) and those no controller recreates once evicted (a
// pod without a controller owner; upstream places those too): a node launched for them now
// would stand idle.
// Placing the others at once launches one node sized for all of them when the deletion
// starts, instead of one node per evicted pod as a budget lets them go one at a time.
func (c *Cluster) DeletingNodePods(now time.Time) []*corev1.Pod {
	deleting := c.DeletingNodes()
	if len(deleting) == 0 {
		return nil
	}
	leaving := NewLeaving(c.PDBs, now)
	var out []*corev1.Pod
	for _, pod := range c.Pods {
		if deleting[pod.Spec.NodeName] && leaving.Leaves(pod) {
			out = append(out, pod)
		}
	}
	return out
}

// Leaving tells which pods of a node being deleted will have to find another node, by
// DeletingNodePods' rule; provisioning and disruption both place those pods.
type Leaving struct {
	pdbs     []*policyv1.PodDisruptionBudget
	now      time.Time
	blocking *pdbSelectors
}

// NewLeaving reads the cluster's PodDisruptionBudgets as of now.
func NewLeaving(pdbs []*policyv1.PodDisruptionBudget, now time.Time) *Leaving {
	return &Leaving{pdbs: pdbs, now: now}
}

// Leaves reports whether the pod, on a node being deleted, will have to find another node.
func (l *Leaving) Leaves(pod *corev1.Pod) bool {
	if !podutil.IsReschedulable(pod) || metav1.GetControllerOf(pod) == nil {
		return false
	}
	if active, _, _ := podutil.DoNotDisrupt(pod, l.now); active {
		return false
	}
	if l.blocking == nil {
		l.blocking = newPDBSelectors(l.pdbs)
	}
	return !l.blocking.neverEvicts(pod)
}

// pdbSelectors are the PodDisruptionBudgets of the cluster with their selectors parsed.
type pdbSelectors struct {
	byNamespace map[string][]pdbSelector
}

type pdbSelector struct {
	selector labels.Selector
	// never is whether the budget refuses every eviction whatever the pods' state:
	// maxUnavailable 0 or 0%, or minAvailable 100%.
	never bool
}

func newPDBSelectors(pdbs []*policyv1.PodDisruptionBudget) *pdbSelectors {
	out := &pdbSelectors{byNamespace: map[string][]pdbSelector{}}
	for _, pdb := range pdbs {
		selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			// The disruption controller of Kubernetes ignores such a budget too.
			continue
		}
		out.byNamespace[pdb.Namespace] = append(out.byNamespace[pdb.Namespace], pdbSelector{selector: selector, never: refusesEveryEviction(pdb)})
	}
	return out
}

// neverEvicts reports whether the Eviction API will refuse the pod for as long as the
// budgets stay as they are: one of them allows no disruption ever, or more than one selects
// the pod.
func (p *pdbSelectors) neverEvicts(pod *corev1.Pod) bool {
	matching := 0
	never := false
	for _, pdb := range p.byNamespace[pod.Namespace] {
		if pdb.selector.Matches(labels.Set(pod.Labels)) {
			matching++
			never = never || pdb.never
		}
	}
	return never || matching > 1
}

func refusesEveryEviction(pdb *policyv1.PodDisruptionBudget) bool {
	zero := func(v *intstr.IntOrString) bool {
		return v != nil && ((v.Type == intstr.Int && v.IntVal == 0) || (v.Type == intstr.String && v.StrVal == "0%"))
	}
	return zero(pdb.Spec.MaxUnavailable) ||
		(pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.String && pdb.Spec.MinAvailable.StrVal == "100%")
}
