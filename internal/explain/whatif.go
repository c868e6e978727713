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

package explain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// Explainer answers what-if questions from the manager's cache, with provisioning's own
// simulation input.
type Explainer struct {
	Reader client.Reader
	// Inputs builds what a provisioning pass simulates, as the provisioner builds it: the
	// NodePools' instance types, the default topology spread, the operator's policies, the
	// pods' volumes.
	Inputs simulation.Builder
	Clock  clock.PassiveClock
	// NodeClassDrift is the cloud provider's drift from an edited KCNodeClass.
	NodeClassDrift NodeClassDrift
}

// WhatIfAnswer is what applying an edited NodePool or KCNodeClass would do: the NodeClaims it
// would drift, and, once they are replaced, what provisioning would launch and what the
// cluster's nodes would cost.
type WhatIfAnswer struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Drifts are the NodeClaims the edit would drift.
	Drifts []Drift `json:"drifts"`
	// Unchanged counts the edited object's NodeClaims the edit leaves as they are.
	Unchanged int `json:"unchanged"`
	// Launches are the NodeClaims provisioning would open, with the edit applied and the
	// drifted nodes gone, for their pods and for the pods pending now.
	Launches []Launch `json:"launches"`
	// LaunchesWithoutEdit counts the NodeClaims provisioning would open now without the edit
	// (for the pods pending now): they are not the edit's doing.
	LaunchesWithoutEdit int `json:"launchesWithoutEdit"`
	// Pending are the pods that would find no place once the edit is applied, with why.
	Pending []PendingPod `json:"pending,omitempty"`
	Cost    Cost         `json:"cost"`
	// Notes say what the answer cannot know before the edit is applied.
	Notes []string `json:"notes,omitempty"`
}

// Launch is a NodeClaim provisioning would open.
type Launch struct {
	NodePool string `json:"nodePool"`
	// InstanceType is the cheapest of the types it allows, which a launch tries first, and
	// Price what it costs at best.
	InstanceType string  `json:"instanceType"`
	Price        float64 `json:"price"`
	// InstanceTypes counts the types it allows.
	InstanceTypes int `json:"instanceTypes"`
	// Zones are where its cheapest offering is sold; the launch spreads over them.
	Zones []string `json:"zones"`
	Pods  int      `json:"pods"`
}

// PendingPod is a pod left without a place, and why.
type PendingPod struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
}

// Cost is what the cluster's nodes cost per hour, in the relative units of
// karpenter_nodepools_cost_total: each launched NodeClaim priced in its offering, each launch
// at its cheapest offering.
type Cost struct {
	Now float64 `json:"now"`
	// WithoutEdit adds the launches provisioning would make now anyway.
	WithoutEdit float64 `json:"withoutEdit"`
	// WithEdit takes the drifted NodeClaims away and adds the launches after the edit.
	WithEdit float64 `json:"withEdit"`
	// Change is WithEdit less WithoutEdit.
	Change float64 `json:"change"`
	// Unpriced counts the NodeClaims whose price is not known (their NodePool is not ready
	// or their offering is no longer sold): they count for nothing above.
	Unpriced int `json:"unpriced,omitempty"`
}

// WhatIf answers for an edited *karpv1.NodePool or *kcv1.KCNodeClass.
func (e *Explainer) WhatIf(ctx context.Context, edited client.Object) (*WhatIfAnswer, error) {
	cluster, err := state.Read(ctx, e.Reader)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	drifts, unchanged, notes, err := Drifts(cluster.NodeClaims, edited, e.NodeClassDrift)
	if err != nil {
		return nil, err
	}
	kind := "NodePool"
	if _, ok := edited.(*kcv1.KCNodeClass); ok {
		kind = "KCNodeClass"
	}
	answer := &WhatIfAnswer{Kind: kind, Name: edited.GetName(), Drifts: drifts, Unchanged: unchanged, Notes: notes, Launches: []Launch{}}
	now := e.Clock.Now()

	beforeInput, before, _, err := e.simulate(ctx, cluster, simulation.PodsToPlace(cluster, now))
	if err != nil {
		return nil, err
	}
	after, moving, err := e.applied(ctx, cluster, edited, drifts, now)
	if err != nil {
		return nil, err
	}
	pods := simulation.PodsToPlace(after, now)
	for _, pod := range moving {
		if !slices.ContainsFunc(pods, func(p *corev1.Pod) bool { return p.UID == pod.UID }) {
			pods = append(pods, pod)
		}
	}
	_, res, waiting, err := e.simulate(ctx, after, pods)
	if err != nil {
		return nil, err
	}
	for _, n := range res.NewNodeClaims {
		answer.Launches = append(answer.Launches, launchOf(n))
	}
	answer.LaunchesWithoutEdit = len(before.NewNodeClaims)
	answer.Pending = pendingOf(res, waiting)

	prices := pricesOf(beforeInput.NodePools)
	drifted := map[string]bool{}
	for _, d := range drifts {
		drifted[d.NodeClaim] = true
	}
	for _, nodeClaim := range cluster.NodeClaims {
		price, ok := prices.of(nodeClaim)
		if !ok {
			if nodeClaim.Status.ProviderID != "" {
				answer.Cost.Unpriced++
			}
			continue
		}
		answer.Cost.Now += price
		if !drifted[nodeClaim.Name] {
			answer.Cost.WithEdit += price
		}
	}
	answer.Cost.WithoutEdit = answer.Cost.Now + simulation.LaunchPrice(before.NewNodeClaims)
	answer.Cost.WithEdit += simulation.LaunchPrice(res.NewNodeClaims)
	answer.Cost.Change = answer.Cost.WithEdit - answer.Cost.WithoutEdit
	return answer, nil
}

// PodWhatIfAnswer is where a pod would land if it were created now: a node, a NodeClaim in
// flight, or a NodeClaim provisioning would launch for it; or why no NodePool could take it.
type PodWhatIfAnswer struct {
	Pod string `json:"pod"`
	// Node is where it would land as provisioning's events word it, node/<name> or
	// nodeclaim/<name> (one still coming up), for people; Destination is that place.
	Node        string                   `json:"node,omitempty"`
	Destination *destination.Destination `json:"destination,omitempty"`
	// Launch is the NodeClaim provisioning would open for it, with the pending pods it would
	// share it with.
	Launch *Launch `json:"launch,omitempty"`
	// Reason is why it would find no place, and RefusedBy each NodePool's reason.
	Reason    string                      `json:"reason,omitempty"`
	RefusedBy []simulation.NodePoolReason `json:"refusedBy,omitempty"`
}

// WhatIfPod answers for a pod that is not created: placed after the pods pending now, as the
// next provisioning pass would place it. A manifest that names a pod waiting for a place
// (kubectl karpenter why pod asks with the pod's own) stands for that pod: it is placed instead
// of it, not beside it.
func (e *Explainer) WhatIfPod(ctx context.Context, pod *corev1.Pod) (*PodWhatIfAnswer, error) {
	if pod.Spec.NodeName != "" {
		return nil, fmt.Errorf("the pod names spec.nodeName %s: it is bound there without scheduling", pod.Spec.NodeName)
	}
	pod = pod.DeepCopy()
	if pod.Namespace == "" {
		pod.Namespace = corev1.NamespaceDefault
	}
	if pod.Name == "" {
		pod.Name = pod.GenerateName + "whatif"
	}
	pod.UID = types.UID("whatif-" + pod.Namespace + "-" + pod.Name)
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending}
	cluster, err := state.Read(ctx, e.Reader)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	answer := &PodWhatIfAnswer{Pod: pod.Namespace + "/" + pod.Name}
	pods := slices.DeleteFunc(slices.Clone(simulation.PodsToPlace(cluster, e.Clock.Now())), func(p *corev1.Pod) bool {
		return p.Namespace == pod.Namespace && p.Name == pod.Name
	})
	_, res, waiting, err := e.simulate(ctx, cluster, append(pods, pod))
	if err != nil {
		return nil, err
	}
	ours := func(p *corev1.Pod) bool { return p.UID == pod.UID }
	if i := slices.IndexFunc(waiting, func(w simulation.Waiting) bool { return ours(w.Pod) }); i >= 0 {
		answer.Reason = waiting[i].Why
		return answer, nil
	}
	for _, placed := range res.Placed {
		switch {
		case !ours(placed.Pod):
		case placed.NodeClaim != nil:
			launch := launchOf(placed.NodeClaim)
			answer.Launch = &launch
			return answer, nil
		default:
			where := placed.ExistingNode
			answer.Node, answer.Destination = where.String(), &where
			return answer, nil
		}
	}
	for p, err := range res.PodErrors {
		if ours(p) {
			answer.Reason = err.Error()
			if nodePools, ok := errors.AsType[*simulation.NodePoolsError](err); ok {
				answer.RefusedBy = nodePools.Reasons
			}
		}
	}
	return answer, nil
}

// simulate runs a provisioning pass over pods on cluster without creating anything, and
// without the scheduler metrics, which are the provisioner's.
func (e *Explainer) simulate(ctx context.Context, cluster *state.Cluster, pods []*corev1.Pod) (simulation.Input, *simulation.Results, []simulation.Waiting, error) {
	input, waiting, err := e.Inputs.Input(ctx, cluster, pods)
	if err != nil {
		return simulation.Input{}, nil, nil, fmt.Errorf("building the simulation's input: %w", err)
	}
	return input, simulation.Schedule(input), waiting, nil
}

// applied is the cluster as it would be with the edit applied and the drifted NodeClaims on
// their way out, and the pods those NodeClaims' nodes would have to move: every reschedulable
// one, as the disruption loop replaces a node for all of them (a PodDisruptionBudget only
// makes the move wait).
func (e *Explainer) applied(ctx context.Context, cluster *state.Cluster, edited client.Object, drifts []Drift, now time.Time) (*state.Cluster, []*corev1.Pod, error) {
	after := *cluster
	if np, ok := edited.(*karpv1.NodePool); ok {
		np = stamped(np)
		if err := e.readiness(ctx, cluster, np); err != nil {
			return nil, nil, err
		}
		after.NodePools = slices.DeleteFunc(slices.Clone(cluster.NodePools), func(live *karpv1.NodePool) bool { return live.Name == np.Name })
		after.NodePools = append(after.NodePools, np)
	}
	drifted := map[string]bool{}
	for _, d := range drifts {
		drifted[d.NodeClaim] = true
	}
	leaving := map[string]bool{}
	after.NodeClaims = make([]*karpv1.NodeClaim, len(cluster.NodeClaims))
	for i, nodeClaim := range cluster.NodeClaims {
		after.NodeClaims[i] = nodeClaim
		if drifted[nodeClaim.Name] {
			deleting := nodeClaim.DeepCopy()
			deleting.DeletionTimestamp = &metav1.Time{Time: now}
			after.NodeClaims[i] = deleting
			if nodeClaim.Status.NodeName != "" {
				leaving[nodeClaim.Status.NodeName] = true
			}
		}
	}
	var moving []*corev1.Pod
	for _, pod := range cluster.Pods {
		if leaving[pod.Spec.NodeName] && podutil.IsReschedulable(pod) {
			moving = append(moving, pod)
		}
	}
	return &after, moving, nil
}

// readiness gives the edited NodePool the Ready condition it would have once applied: the
// live NodePool's while it keeps the same KCNodeClass; otherwise (a new NodePool, or another
// KCNodeClass) that KCNodeClass's readiness, which is what the NodePool controller mostly
// decides it from.
func (e *Explainer) readiness(ctx context.Context, cluster *state.Cluster, np *karpv1.NodePool) error {
	ref := np.Spec.Template.Spec.NodeClassRef
	i := slices.IndexFunc(cluster.NodePools, func(live *karpv1.NodePool) bool { return live.Name == np.Name })
	if i >= 0 && ref != nil && cluster.NodePools[i].Spec.Template.Spec.NodeClassRef != nil &&
		cluster.NodePools[i].Spec.Template.Spec.NodeClassRef.Name == ref.Name {
		np.Status = *cluster.NodePools[i].Status.DeepCopy()
		return nil
	}
	ready := metav1.Condition{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionFalse, Reason: "NodeClassNotReady"}
	if ref == nil {
		ready.Message = "it has no nodeClassRef"
	} else {
		nodeClass := &kcv1.KCNodeClass{}
		switch err := e.Reader.Get(ctx, client.ObjectKey{Name: ref.Name}, nodeClass); {
		case client.IgnoreNotFound(err) != nil:
			return fmt.Errorf("reading KCNodeClass %s: %w", ref.Name, err)
		case err != nil:
			ready.Message = fmt.Sprintf("KCNodeClass %s does not exist", ref.Name)
		case !meta.IsStatusConditionTrue(nodeClass.Status.Conditions, karpv1.ConditionTypeReady):
			ready.Message = fmt.Sprintf("KCNodeClass %s is not ready", ref.Name)
		default:
			ready = metav1.Condition{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: karpv1.ConditionTypeReady}
		}
	}
	np.Status = karpv1.NodePoolStatus{Conditions: []metav1.Condition{ready}}
	return nil
}

func launchOf(n *simulation.NewNodeClaim) Launch {
	launch := Launch{NodePool: n.NodePoolName, InstanceTypes: len(n.InstanceTypes), Pods: len(n.Pods), Zones: []string{}}
	if it, offering, ok := n.Cheapest(); ok {
		launch.InstanceType, launch.Price = it.Name, offering.Price
		zones := n.Requirements.Get(karpv1.LabelTopologyZone)
		for _, of := range it.Offerings {
			if of.Available && of.Price == offering.Price && of.CapacityType == offering.CapacityType && zones.Has(of.Zone) && !slices.Contains(launch.Zones, of.Zone) {
				launch.Zones = append(launch.Zones, of.Zone)
			}
		}
		slices.Sort(launch.Zones)
	}
	return launch
}

// pendingOf are the pods a run left without a place, the waiting ones first, by name.
func pendingOf(res *simulation.Results, waiting []simulation.Waiting) []PendingPod {
	var out []PendingPod
	for _, w := range waiting {
		out = append(out, PendingPod{Pod: client.ObjectKeyFromObject(w.Pod).String(), Reason: w.Why})
	}
	var failed []PendingPod
	for pod, err := range res.PodErrors {
		failed = append(failed, PendingPod{Pod: client.ObjectKeyFromObject(pod).String(), Reason: err.Error()})
	}
	slices.SortFunc(failed, func(a, b PendingPod) int { return strings.Compare(a.Pod, b.Pod) })
	return append(out, failed...)
}

// prices prices launched NodeClaims with their NodePool's instance types.
type prices map[string]map[string]*cloudprovider.InstanceType

func pricesOf(pools []simulation.NodePoolInput) prices {
	out := prices{}
	for _, pool := range pools {
		byName := make(map[string]*cloudprovider.InstanceType, len(pool.InstanceTypes))
		for _, it := range pool.InstanceTypes {
			byName[it.Name] = it
		}
		out[pool.NodePool.Name] = byName
	}
	return out
}

func (p prices) of(nodeClaim *karpv1.NodeClaim) (float64, bool) {
	if nodeClaim.Status.ProviderID == "" {
		return 0, false
	}
	return p[nodeClaim.Labels[karpv1.LabelNodePool]][nodeClaim.Labels[karpv1.LabelInstanceType]].PriceOf(nodeClaim.Labels)
}
