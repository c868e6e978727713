/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Scheduling simulation.
//
// Schedule decides, without touching the API server, where a batch of pending pods goes: onto
// existing nodes with room, onto NodeClaims opened earlier in the same run, or onto new
// NodeClaims from the highest-weight NodePool that accepts them. It honours resource requests
// (init containers, sidecars and pod overhead included), nodeSelector and the first required
// node-affinity term, taints and tolerations (NoSchedule, NoExecute), host ports, daemonset
// overhead, instance-type offerings (zone, capacity type, availability) and NodePool limits
// (pessimistically, by the largest instance type a NodeClaim may become).
//
// Not implemented yet (they come next): topology spread constraints, pod affinity and
// anti-affinity, relaxation of preferences (preferred node affinity, further required
// node-affinity terms, ScheduleAnyway spreads, PreferNoSchedule), volume topology and attach
// limits, and enforcing minValues across the chosen instance types.

package scheduling

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// Input is everything one scheduling run looks at.
type Input struct {
	// Pods are the pods to place.
	Pods []*corev1.Pod
	// NodePools are the NodePools new capacity may come from.
	NodePools []NodePoolInput
	// ExistingNodes are tried first, in the given order.
	ExistingNodes []ExistingNode
	// DaemonSetPods are one pod per daemonset (its template); their requests are added to each
	// new NodeClaim they would run on.
	DaemonSetPods []*corev1.Pod
}

// NodePoolInput is a NodePool with its instance types and what its limits still allow.
type NodePoolInput struct {
	NodePool      *karpv1.NodePool
	InstanceTypes []*cloudprovider.InstanceType
	// Remaining is spec.limits minus what the NodePool's nodes use; nil means unlimited.
	Remaining corev1.ResourceList
}

// Results is the outcome of a scheduling run.
type Results struct {
	// NewNodeClaims are the NodeClaims to launch, in the order they were opened.
	NewNodeClaims []*NewNodeClaim
	// ExistingPlacements maps an existing node's name to the pods placed on it.
	ExistingPlacements map[string][]*corev1.Pod
	// PodErrors says, for every pod that could not be placed, why not.
	PodErrors map[*corev1.Pod]error
}

// podInfo is a pod with what the scheduler needs of it precomputed.
type podInfo struct {
	pod          *corev1.Pod
	requests     resVec // includes pods: 1
	requirements Requirements
	ports        []hostPort
}

func newPodInfo(pod *corev1.Pod) *podInfo {
	req := toVec(PodRequests(pod))
	req[corev1.ResourcePods] += 1000
	return &podInfo{pod: pod, requests: req, requirements: FromPodRequiredAffinity(pod), ports: podHostPorts(pod)}
}

// poolTemplate is a NodePool prepared for a run.
type poolTemplate struct {
	pool      *karpv1.NodePool
	name      string
	taints    []corev1.Taint
	base      Requirements // template requirements and labels, nodepool, instance type values
	types     []*itInfo    // types compatible with the template
	remaining resVec       // nil = unlimited
	daemons   []*podInfo   // daemonset pods tolerating the template's taints
	err       error        // why the pool can take nothing, if so
}

func newPoolTemplate(in *NodePoolInput, daemons []*podInfo) *poolTemplate {
	np := in.NodePool
	t := &poolTemplate{pool: np, name: np.Name, taints: np.Spec.Template.Spec.Taints}
	reqs := FromNodeClaimRequirements(np.Spec.Template.Spec.Requirements...)
	reqs.Add(FromLabels(np.Spec.Template.Labels).Values()...)
	reqs.Add(NewRequirement(karpv1.LabelNodePool, karpv1.NodeSelectorOpIn, np.Name))
	for _, it := range in.InstanceTypes {
		info := newITInfo(it)
		if info.compatible(reqs) {
			t.types = append(t.types, info)
		}
	}
	if len(t.types) == 0 {
		t.err = fmt.Errorf("no instance type with an available offering satisfies the nodepool requirements")
	}
	t.base = merge(reqs, typeRequirements(t.types, reqs))
	if in.Remaining != nil {
		t.remaining = toVec(in.Remaining)
	}
	for _, d := range daemons {
		if tolerates(d.pod, t.taints) == nil {
			t.daemons = append(t.daemons, d)
		}
	}
	return t
}

// daemonOverhead sums the requests of the daemonset pods that would run on a node with reqs.
func (t *poolTemplate) daemonOverhead(reqs Requirements) resVec {
	out := resVec{}
	for _, d := range t.daemons {
		if daemonRuns(reqs, d.requirements) {
			for k, v := range d.requests {
				out[k] += v
			}
		}
	}
	return out
}

// daemonRuns reports whether a daemonset pod with dsReqs would run on a node with nodeReqs. A
// custom label the node requirements do not mention will not be on the node; an unmentioned
// well-known label is unknown, and counted as matching (pessimistic).
func daemonRuns(nodeReqs, dsReqs Requirements) bool {
	for k, d := range dsReqs {
		if n, ok := nodeReqs[k]; ok {
			if !n.intersects(d) {
				return false
			}
		} else if !d.AllowsAbsent() && !karpv1.WellKnownLabels.Has(k) {
			return false
		}
	}
	return true
}

// open tries to open a new NodeClaim from the pool for the pod.
func (t *poolTemplate) open(p *podInfo) (*NewNodeClaim, error) {
	if t.err != nil {
		return nil, t.err
	}
	if err := tolerates(p.pod, t.taints); err != nil {
		return nil, err
	}
	n := &NewNodeClaim{NodePoolName: t.name, NodePool: t.pool, tmpl: t, reqs: t.base, types: t.types, podRequests: resVec{}}
	reqs, types, ds, err := n.canAdd(p)
	if err != nil {
		return nil, err
	}
	if t.remaining != nil {
		var within []*itInfo
		exceeded := map[string]bool{}
		for _, it := range types {
			if over := it.capacity.exceeded(t.remaining); len(over) > 0 {
				for _, o := range over {
					exceeded[o] = true
				}
				continue
			}
			within = append(within, it)
		}
		if len(within) == 0 {
			names := make([]string, 0, len(exceeded))
			for k := range exceeded {
				names = append(names, k)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("would exceed limits %s", strings.Join(names, ", "))
		}
		types = within
		largest := resVec{}
		for _, it := range types {
			largest = maxVec(largest, it.capacity)
		}
		t.remaining = t.remaining.sub(largest)
	}
	n.add(p, reqs, types, ds)
	return n, nil
}

// Schedule runs the simulation. It is deterministic for a given input.
func Schedule(in Input) *Results {
	res := &Results{ExistingPlacements: map[string][]*corev1.Pod{}, PodErrors: map[*corev1.Pod]error{}}

	pods := make([]*podInfo, len(in.Pods))
	for i, pod := range in.Pods {
		pods[i] = newPodInfo(pod)
	}
	slices.SortStableFunc(pods, comparePods)

	daemons := make([]*podInfo, len(in.DaemonSetPods))
	for i, d := range in.DaemonSetPods {
		daemons[i] = newPodInfo(d)
	}
	pools := make([]*poolTemplate, len(in.NodePools))
	for i := range in.NodePools {
		pools[i] = newPoolTemplate(&in.NodePools[i], daemons)
	}
	slices.SortStableFunc(pools, func(a, b *poolTemplate) int {
		return cmp.Or(cmp.Compare(weight(b.pool), weight(a.pool)), cmp.Compare(a.name, b.name))
	})

	existing := make([]*existingNode, len(in.ExistingNodes))
	for i := range in.ExistingNodes {
		existing[i] = newExistingNode(&in.ExistingNodes[i])
	}

	var claims []*NewNodeClaim // in opening order
	byPods := []*NewNodeClaim{}
	for _, p := range pods {
		if placeExisting(existing, p) {
			continue
		}
		if placeOpen(byPods, p) {
			continue
		}
		var reasons []string
		var opened *NewNodeClaim
		for _, t := range pools {
			n, err := t.open(p)
			if err != nil {
				reasons = append(reasons, fmt.Sprintf("nodepool %s: %v", t.name, err))
				continue
			}
			opened = n
			break
		}
		if opened == nil {
			if len(pools) == 0 {
				reasons = append(reasons, "no nodepool to launch capacity from")
			}
			res.PodErrors[p.pod] = fmt.Errorf("%s", strings.Join(reasons, "; "))
			continue
		}
		claims = append(claims, opened)
		byPods = append(byPods, opened)
	}

	for _, e := range existing {
		if len(e.pods) > 0 {
			res.ExistingPlacements[e.node.Name] = e.pods
		}
	}
	for _, n := range claims {
		n.finalize()
	}
	res.NewNodeClaims = claims
	return res
}

func placeExisting(existing []*existingNode, p *podInfo) bool {
	for _, e := range existing {
		if e.canAdd(p) == nil {
			e.add(p)
			return true
		}
	}
	return false
}

// placeOpen tries the NodeClaims opened in this run, fewest pods first, and keeps byPods in
// that order (among equal counts, the order in which they reached it).
func placeOpen(byPods []*NewNodeClaim, p *podInfo) bool {
	for i, n := range byPods {
		reqs, types, ds, err := n.canAdd(p)
		if err != nil {
			continue
		}
		n.add(p, reqs, types, ds)
		// n has one more pod: move it right past the claims that now have fewer.
		j := i
		for j+1 < len(byPods) && len(byPods[j+1].Pods) < len(n.Pods) {
			byPods[j] = byPods[j+1]
			j++
		}
		byPods[j] = n
		return true
	}
	return false
}

func weight(np *karpv1.NodePool) int32 {
	if np.Spec.Weight == nil {
		return 0
	}
	return *np.Spec.Weight
}

// comparePods orders pods by CPU request descending, then memory descending, then creation
// time, then namespace and name.
func comparePods(a, b *podInfo) int {
	return cmp.Or(
		cmp.Compare(b.requests[corev1.ResourceCPU], a.requests[corev1.ResourceCPU]),
		cmp.Compare(b.requests[corev1.ResourceMemory], a.requests[corev1.ResourceMemory]),
		a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time),
		cmp.Compare(a.pod.Namespace, b.pod.Namespace),
		cmp.Compare(a.pod.Name, b.pod.Name),
	)
}
