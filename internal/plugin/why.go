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

package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// PodAnswer is why a pod runs where it does, or waits. Every decision in it is read from
// structured state: the pod's binding, its Nominated event's related object, the operator's
// simulation; the operator's notes are shown as Words, never read.
type PodAnswer struct {
	Pod   string `json:"pod"`
	Phase string `json:"phase"`
	// Node and NodeClaim are where it is bound, or NodeClaim where provisioning nominated it.
	Node      string `json:"node,omitempty"`
	NodeClaim string `json:"nodeClaim,omitempty"`
	// Nominated is provisioning's latest nomination, as its Nominated event's related object
	// names it: nodeclaim/<name> or node/<name>.
	Nominated string `json:"nominated,omitempty"`
	// Simulated is, for a pending pod provisioning did not nominate, the operator's simulation
	// of the pod as it is now (whatif pod): where it would land or what would launch for it, or
	// why it would find no place.
	Simulated *explain.PodWhatIfAnswer `json:"simulated,omitempty"`
	// RefusedBy is, for each NodePool that cannot take it, the first reason of the operator's
	// simulation.
	RefusedBy []simulation.NodePoolReason `json:"refusedBy,omitempty"`
	// DecidedAt is when provisioning last said so.
	DecidedAt *time.Time `json:"decidedAt,omitempty"`
	// Words are what provisioning last said of the pod, as it said it: its latest
	// FailedScheduling event's note, shown, not read.
	Words   []Word `json:"words,omitempty"`
	Verdict string `json:"verdict"`
}

// WhyPod answers for the pod key. For a pending pod provisioning last found no place for, it
// asks the operator why, as the pod is now (ask, nil for not asking): how the operator's
// events word it is not read.
func WhyPod(ctx context.Context, reader client.Reader, key types.NamespacedName, ask PodAsker) (*PodAnswer, error) {
	pod := &corev1.Pod{}
	if err := reader.Get(ctx, key, pod); err != nil {
		return nil, fmt.Errorf("reading pod %s: %w", key, err)
	}
	answer := &PodAnswer{Pod: key.String(), Phase: string(pod.Status.Phase)}
	if pod.Spec.NodeName != "" {
		return answer, bound(ctx, reader, pod, answer)
	}
	decisions, err := eventsOf(ctx, reader, pod.Namespace, []types.UID{pod.UID}, simulation.ReasonNominated, simulation.ReasonFailedScheduling)
	if err != nil {
		return nil, err
	}
	if len(decisions) == 0 {
		answer.Verdict = "provisioning has not decided about it yet"
		if !podutil.IsProvisionable(pod) {
			answer.Verdict += ": it looks only at pods the kube-scheduler marked unschedulable (PodScheduled False, reason Unschedulable)"
		}
		return answer, nil
	}
	latest := decisions[0]
	at := lastSeen(latest)
	answer.DecidedAt = &at
	if latest.Reason == simulation.ReasonNominated {
		nominatedBy(latest, answer)
		return answer, nil
	}
	answer.Words = []Word{wordOf(latest)}
	refusedNow(ctx, ask, pod, answer)
	return answer, nil
}

// bound answers for a pod bound to a node: the node, and its NodeClaim and NodePool.
func bound(ctx context.Context, reader client.Reader, pod *corev1.Pod, answer *PodAnswer) error {
	answer.Node = pod.Spec.NodeName
	_, nodeClaim, err := nodeAndClaim(ctx, reader, pod.Spec.NodeName)
	if err != nil {
		return err
	}
	answer.Verdict = "bound to node " + pod.Spec.NodeName
	if nodeClaim != nil {
		answer.NodeClaim = nodeClaim.Name
		answer.Verdict += fmt.Sprintf(" (NodeClaim %s of NodePool %s)", nodeClaim.Name, nodeClaim.Labels[karpv1.LabelNodePool])
	} else {
		answer.Verdict += ", which no NodeClaim manages"
	}
	return nil
}

// nominatedBy answers from provisioning's Nominated event: where the pod waits is the event's
// related object.
func nominatedBy(event eventsv1.Event, answer *PodAnswer) {
	where, ok := destination.FromReference(event.Related)
	if !ok {
		// An operator that did not name the place in the event's related object.
		answer.Words = []Word{wordOf(event)}
		answer.Verdict = "provisioning nominated it in an event that names no NodeClaim or node: its words are below"
		return
	}
	answer.Nominated = where.String()
	if where.Kind == destination.NodeClaim {
		answer.NodeClaim = where.Name
	}
	answer.Verdict = "provisioning expects it to land on " + where.String()
}

// refusedNow answers for a pod provisioning found no place for with the operator's
// simulation of it as it is now: each NodePool's first reason, or where it would go now. When
// the operator cannot be asked, the verdict says why.
func refusedNow(ctx context.Context, ask PodAsker, pod *corev1.Pod, answer *PodAnswer) {
	simulated, err := askAbout(ctx, ask, pod)
	if err != nil {
		answer.Verdict = fmt.Sprintf("provisioning found no place for it when it last decided; the operator cannot be asked why now (%v): what provisioning said is below", err)
		return
	}
	answer.Simulated = simulated
	for _, r := range simulated.RefusedBy {
		if !slices.ContainsFunc(answer.RefusedBy, func(seen simulation.NodePoolReason) bool { return seen.NodePool == r.NodePool }) {
			answer.RefusedBy = append(answer.RefusedBy, r)
		}
	}
	switch {
	case simulated.Node != "":
		answer.Verdict = "provisioning found no place for it when it last decided; as the cluster is now, it would land on " + simulated.Node
	case simulated.Launch != nil:
		answer.Verdict = "provisioning found no place for it when it last decided; as the cluster is now, a NodeClaim of NodePool " + simulated.Launch.NodePool + " would launch for it"
	case len(answer.RefusedBy) > 0:
		answer.Verdict = "no NodePool can take it, as the cluster is now: each one's reason is below"
	default:
		answer.Verdict = "it would find no place, as the cluster is now: " + simulated.Reason
	}
}

// askAbout asks ask about the pod; an error when there is no one to ask.
func askAbout(ctx context.Context, ask PodAsker, pod *corev1.Pod) (*explain.PodWhatIfAnswer, error) {
	if ask == nil {
		return nil, errors.New("no one to ask")
	}
	answer, err := ask(ctx, pod)
	if err != nil {
		return nil, err
	}
	if answer == nil {
		return nil, errors.New("the operator gave no answer")
	}
	return answer, nil
}

// nodeAndClaim are the node named, nil when it is gone, and its NodeClaim, nil when none: a
// NodeClaim names its node, or carries the node's provider ID.
func nodeAndClaim(ctx context.Context, reader client.Reader, name string) (*corev1.Node, *karpv1.NodeClaim, error) {
	node := &corev1.Node{}
	if err := reader.Get(ctx, types.NamespacedName{Name: name}, node); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return nil, nil, fmt.Errorf("reading node %s: %w", name, err)
		}
		node = nil
	}
	claims := &karpv1.NodeClaimList{}
	if err := reader.List(ctx, claims); err != nil {
		return nil, nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	for i := range claims.Items {
		c := &claims.Items[i]
		if c.Status.NodeName == name || (node != nil && node.Spec.ProviderID != "" && c.Status.ProviderID == node.Spec.ProviderID) {
			return node, c, nil
		}
	}
	return node, nil, nil
}

// NodeAnswer is why a node is, or is not, being disrupted.
type NodeAnswer struct {
	Node      string `json:"node"`
	NodeClaim string `json:"nodeClaim,omitempty"`
	NodePool  string `json:"nodePool,omitempty"`
	// Disrupting is the reason the disruption loop is taking the node away for, if it is.
	Disrupting string `json:"disrupting,omitempty"`
	// Drifted says what drifted, when the NodeClaim has.
	Drifted string `json:"drifted,omitempty"`
	// Consolidatable is the NodeClaim's Consolidatable condition: True once consolidateAfter
	// passed without pods coming or going.
	Consolidatable string `json:"consolidatable,omitempty"`
	// Held is the disruption loop's reason for leaving the node alone, as its NodeClaim's
	// DisruptionBlocked condition keeps it while it holds, and since when.
	Held      string     `json:"held,omitempty"`
	HeldSince *time.Time `json:"heldSince,omitempty"`
	// Words are the disruption loop's latest words on the node, newest first, one per reason.
	Words   []Word `json:"words,omitempty"`
	Verdict string `json:"verdict"`
}

// Word is one thing the operator said of an object: an event's reason and note. The reason
// is one of the operator's constants; the note is shown as it was written, never read.
type Word struct {
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// wordOf is what the event says.
func wordOf(e eventsv1.Event) Word {
	return Word{Reason: e.Reason, Message: e.Note, At: lastSeen(e)}
}

// disruptionReasons are the events in which the disruption loop says why it leaves a node
// alone or what it does with it.
var disruptionReasons = []string{
	disruption.ReasonDisruptionBlocked, disruption.ReasonUnconsolidatable, disruption.ReasonDisruptionReplacementFailed,
	disruption.ReasonDisruptionLaunching, disruption.ReasonDisruptionTerminating, disruption.ReasonDisruptionWaitingReadiness,
	disruption.ReasonDisruptionFailed, disruption.ReasonConsolidationApproved, disruption.ReasonConsolidationRejected,
}

// holdingReasons are those of disruptionReasons that say the node is left alone.
var holdingReasons = []string{disruption.ReasonDisruptionBlocked, disruption.ReasonUnconsolidatable, disruption.ReasonDisruptionReplacementFailed}

// WhyNode answers for the node named.
//
//nolint:gocyclo // the answer gathers each source in turn (NodeClaim, node, verdict, events) and says what is missing when one is
func WhyNode(ctx context.Context, reader client.Reader, name string) (*NodeAnswer, error) {
	answer := &NodeAnswer{Node: name}
	node, nodeClaim, err := nodeAndClaim(ctx, reader, name)
	if err != nil {
		return nil, err
	}
	if node == nil && nodeClaim == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
	}
	var uids []types.UID
	if node != nil {
		uids = append(uids, node.UID)
	}
	if nodeClaim != nil {
		answer.NodeClaim, answer.NodePool = nodeClaim.Name, nodeClaim.Labels[karpv1.LabelNodePool]
		uids = append(uids, nodeClaim.UID)
		if c := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason); c != nil && c.Status == metav1.ConditionTrue {
			answer.Disrupting = c.Reason
		}
		if c := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeDrifted); c != nil && c.Status == metav1.ConditionTrue {
			answer.Drifted = c.Reason + ": " + c.Message
		}
		if c := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeConsolidatable); c != nil {
			answer.Consolidatable = string(c.Status)
		}
		if c := meta.FindStatusCondition(nodeClaim.Status.Conditions, disruption.ConditionDisruptionBlocked); c != nil && c.Status == metav1.ConditionTrue {
			answer.Held = c.Reason + ": " + c.Message
			answer.HeldSince = &c.LastTransitionTime.Time
		}
	}
	events, err := eventsOf(ctx, reader, corev1.NamespaceDefault, uids, disruptionReasons...)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		if !slices.ContainsFunc(answer.Words, func(w Word) bool { return w.Reason == e.Reason }) {
			answer.Words = append(answer.Words, wordOf(e))
		}
	}
	switch {
	case nodeClaim == nil:
		answer.Verdict = "no NodeClaim manages this node: Karpenter does not disrupt it"
	case answer.Disrupting != "":
		answer.Verdict = "being disrupted: " + answer.Disrupting
	case answer.Held != "":
		answer.Verdict = "left alone since " + answer.HeldSince.UTC().Format(time.RFC3339) + ": " + answer.Held
	case len(answer.Words) > 0 && slices.Contains(holdingReasons, answer.Words[0].Reason):
		// Decided by the reason; the message is quoted as it was said.
		word := answer.Words[0]
		answer.Verdict = fmt.Sprintf("left alone: its latest %s event, at %s, says \"%s\"", word.Reason, word.At.UTC().Format(time.RFC3339), word.Message)
	case answer.Drifted != "":
		answer.Verdict = "drifted, waiting for its turn: " + answer.Drifted
	case answer.Consolidatable != "True":
		answer.Verdict = "not a consolidation candidate yet: its NodePool's consolidateAfter has not passed since its pods last changed"
	default:
		answer.Verdict = "a candidate: the disruption loop has found nothing to do with it"
	}
	return answer, nil
}
