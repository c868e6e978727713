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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

var now = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

func kubeOf(t *testing.T, objects ...client.Object) client.Client {
	t.Helper()
	return fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).Build()
}

// event is an event the operator wrote about obj, last seen at.
func event(obj client.Object, kind, reason, action, note string, at time.Time) *eventsv1.Event {
	namespace := obj.GetNamespace()
	if namespace == "" {
		namespace = corev1.NamespaceDefault
	}
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: obj.GetName() + "." + reason + "." + at.Format("150405"), Namespace: namespace},
		EventTime:           metav1.NewMicroTime(at),
		Regarding:           corev1.ObjectReference{Kind: kind, Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID()},
		Reason:              reason,
		Action:              action,
		Note:                note,
		ReportingController: reportingController,
		ReportingInstance:   "karpenter-0",
		Type:                corev1.EventTypeNormal,
	}
}

// asked is a PodAsker that answers what the operator would, and remembers what it was asked.
type asked struct {
	answer *explain.PodWhatIfAnswer
	err    error
	pods   []*corev1.Pod
}

func (a *asked) ask(_ context.Context, pod *corev1.Pod) (*explain.PodWhatIfAnswer, error) {
	a.pods = append(a.pods, pod)
	return a.answer, a.err
}

// related is the event naming obj as its related object, as the API server's recorder makes it.
func related(e *eventsv1.Event, obj client.Object, apiVersion, kind string) *eventsv1.Event {
	e.Related = &corev1.ObjectReference{APIVersion: apiVersion, Kind: kind, Name: obj.GetName(), UID: obj.GetUID()}
	return e
}

func TestWhyPod(t *testing.T) {
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "pod-1"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}}
	// The note is shown, never read: what it names is not what the answer says.
	note := "Failed to schedule pod, nodepool words: only words"
	refused := event(pending, "Pod", simulation.ReasonFailedScheduling, "Provision", note, now)
	claim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-abcde", UID: "claim-1"}}
	older := related(event(pending, "Pod", simulation.ReasonNominated, "Provision", "Pod should schedule on: nodeclaim/default-abcde", now.Add(-time.Minute)),
		claim, karpv1.GroupVersion.String(), "NodeClaim")
	// The kube-scheduler's own FailedScheduling is not provisioning's decision.
	scheduler := event(pending, "Pod", simulation.ReasonFailedScheduling, "Scheduling", "0/3 nodes are available", now.Add(time.Minute))
	scheduler.ReportingController = "default-scheduler"
	kube := kubeOf(t, pending, refused, older, scheduler)

	operator := &asked{answer: &explain.PodWhatIfAnswer{Pod: "shop/web", Reason: "nodepool default: would exceed limits cpu; nodepool gpu: ...", RefusedBy: []simulation.NodePoolReason{
		{NodePool: "default", Reason: "would exceed limits cpu"},
		{NodePool: "gpu", Reason: "the pod does not tolerate taint nvidia.com/gpu"},
		{NodePool: "default", Reason: "the subnets of its KCNodeClass default are in zones [kr-central-2-a]"},
	}}}
	answer, err := WhyPod(context.Background(), kube, client.ObjectKeyFromObject(pending), operator.ask)
	if err != nil {
		t.Fatal(err)
	}
	if len(operator.pods) != 1 || operator.pods[0].UID != pending.UID {
		t.Errorf("the operator was asked about %v, want the pod as it is", operator.pods)
	}
	if len(answer.RefusedBy) != 2 || answer.RefusedBy[0].NodePool != "default" || answer.RefusedBy[0].Reason != "would exceed limits cpu" || answer.RefusedBy[1].NodePool != "gpu" {
		t.Errorf("refused by %+v, want the operator's: default's limit first, then gpu", answer.RefusedBy)
	}
	if answer.DecidedAt == nil || !answer.DecidedAt.Equal(now) {
		t.Errorf("decided at %v, want the latest decision's time", answer.DecidedAt)
	}
	if len(answer.Words) != 1 || answer.Words[0].Reason != simulation.ReasonFailedScheduling || answer.Words[0].Message != note ||
		strings.Contains(answer.Verdict, "only words") || !strings.Contains(answer.Verdict, "no NodePool can take it") || answer.Simulated == nil {
		t.Errorf("answer %+v, want the note shown as said, and the verdict from the operator's answer", answer)
	}

	// The operator's simulation puts it somewhere now.
	operator = &asked{answer: &explain.PodWhatIfAnswer{Pod: "shop/web", Node: "node/node-b"}}
	if answer, err = WhyPod(context.Background(), kube, client.ObjectKeyFromObject(pending), operator.ask); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer.Verdict, "it would land on node/node-b") || len(answer.RefusedBy) != 0 {
		t.Errorf("answer %+v, want where it would land now", answer)
	}
	operator = &asked{answer: &explain.PodWhatIfAnswer{Pod: "shop/web", Launch: &explain.Launch{NodePool: "default", Pods: 1}}}
	if answer, err = WhyPod(context.Background(), kube, client.ObjectKeyFromObject(pending), operator.ask); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer.Verdict, "a NodeClaim of NodePool default would launch for it") {
		t.Errorf("verdict %q, want the launch", answer.Verdict)
	}

	// The operator cannot be asked: the verdict says so, and what provisioning said is shown.
	for name, ask := range map[string]PodAsker{
		"refused": (&asked{err: errors.New(`whatifs.explain.karpenter.kakaocloud.com is forbidden: User "reader" cannot create resource "whatifs"`)}).ask,
		"none":    nil,
	} {
		if answer, err = WhyPod(context.Background(), kube, client.ObjectKeyFromObject(pending), ask); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(answer.Verdict, "cannot be asked") || len(answer.Words) != 1 || answer.Words[0].Message != note || len(answer.RefusedBy) != 0 {
			t.Errorf("%s: answer %+v, want the operator's words and no refusals", name, answer)
		}
		if name == "refused" && !strings.Contains(answer.Verdict, `cannot create resource "whatifs"`) {
			t.Errorf("%s: verdict %q, want the refusal", name, answer.Verdict)
		}
	}

	// A later nomination answers instead, from the event's related object, not its note; the
	// operator is not asked.
	nominated := related(event(pending, "Pod", simulation.ReasonNominated, "Provision", "Pod should schedule on: nodeclaim/stale", now.Add(2*time.Minute)),
		&karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-xyz", UID: "claim-2"}}, karpv1.GroupVersion.String(), "NodeClaim")
	operator = &asked{}
	if answer, err = WhyPod(context.Background(), kubeOf(t, pending, refused, nominated), client.ObjectKeyFromObject(pending), operator.ask); err != nil {
		t.Fatal(err)
	}
	if answer.Nominated != "nodeclaim/default-xyz" || answer.NodeClaim != "default-xyz" || len(answer.RefusedBy) != 0 || len(answer.Words) != 0 ||
		!strings.HasSuffix(answer.Verdict, "nodeclaim/default-xyz") || len(operator.pods) != 0 {
		t.Errorf("answer %+v (operator asked %d times), want the nomination", answer, len(operator.pods))
	}
	// On a node.
	onNode := related(event(pending, "Pod", simulation.ReasonNominated, "Provision", "Pod should schedule on: node/node-b", now.Add(2*time.Minute)),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b", UID: "node-2"}}, "v1", "Node")
	if answer, err = WhyPod(context.Background(), kubeOf(t, pending, refused, onNode), client.ObjectKeyFromObject(pending), nil); err != nil {
		t.Fatal(err)
	}
	if answer.Nominated != "node/node-b" || answer.NodeClaim != "" {
		t.Errorf("answer %+v, want the nomination to node-b", answer)
	}
	// A nomination that names no object: its words are shown, nothing is read from them.
	unnamed := event(pending, "Pod", simulation.ReasonNominated, "Provision", "Pod should schedule on: nodeclaim/default-xyz", now.Add(2*time.Minute))
	if answer, err = WhyPod(context.Background(), kubeOf(t, pending, unnamed), client.ObjectKeyFromObject(pending), nil); err != nil {
		t.Fatal(err)
	}
	if answer.Nominated != "" || answer.NodeClaim != "" || len(answer.Words) != 1 || !strings.Contains(answer.Verdict, "names no NodeClaim or node") {
		t.Errorf("answer %+v, want the words and no nomination read from them", answer)
	}

	// Bound: its node's NodeClaim.
	bound := pending.DeepCopy()
	bound.Spec.NodeName = "node-a"
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-xyz", Labels: map[string]string{karpv1.LabelNodePool: "default"}}, Status: karpv1.NodeClaimStatus{NodeName: "node-a"}}
	answer, err = WhyPod(context.Background(), kubeOf(t, bound, nodeClaim), client.ObjectKeyFromObject(bound), nil)
	if err != nil {
		t.Fatal(err)
	}
	if answer.NodeClaim != "default-xyz" || !strings.Contains(answer.Verdict, "NodePool default") {
		t.Errorf("answer %+v, want its node's NodeClaim and NodePool", answer)
	}

	// Nothing decided, and not marked unschedulable: say what provisioning waits for.
	fresh := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "new", Namespace: "shop"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	answer, err = WhyPod(context.Background(), kubeOf(t, fresh), client.ObjectKeyFromObject(fresh), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer.Verdict, "marked unschedulable") {
		t.Errorf("verdict %q", answer.Verdict)
	}
}

func TestWhyNode(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", UID: "node-uid"}, Spec: corev1.NodeSpec{ProviderID: "kakaocloud://a"}}
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-a", UID: "claim-uid", Labels: map[string]string{karpv1.LabelNodePool: "default"}},
		Status: karpv1.NodeClaimStatus{ProviderID: "kakaocloud://a", NodeName: "node-a", Conditions: []metav1.Condition{
			{Type: karpv1.ConditionTypeConsolidatable, Status: metav1.ConditionTrue, Reason: "Consolidatable", LastTransitionTime: metav1.NewTime(now)},
		}}}
	held := event(nodeClaim, "NodeClaim", disruption.ReasonDisruptionBlocked, "Disrupt",
		"Cannot disrupt NodeClaim: PodDisruptionBudget shop/web allows no disruption of pod shop/web-1 now (0 disruptions allowed)", now)
	older := event(node, "Node", disruption.ReasonUnconsolidatable, "Disrupt", "no cheaper replacement", now.Add(-time.Hour))
	answer, err := WhyNode(context.Background(), kubeOf(t, node, nodeClaim, held, older), "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if answer.NodeClaim != "default-a" || answer.NodePool != "default" || !strings.Contains(answer.Verdict, "PodDisruptionBudget shop/web") ||
		!strings.Contains(answer.Verdict, "pod shop/web-1") || len(answer.Words) != 2 || answer.Words[0].Reason != disruption.ReasonDisruptionBlocked {
		t.Errorf("answer %+v, want the PDB and pod named, newest word first", answer)
	}
	// Left alone by the event's reason; its note is quoted as it was said.
	if want := `left alone: its latest DisruptionBlocked event, at 2026-12-04T10:00:00Z, says "Cannot disrupt NodeClaim: PodDisruptionBudget shop/web`; !strings.HasPrefix(answer.Verdict, want) {
		t.Errorf("verdict %q, want it to start %q", answer.Verdict, want)
	}
	// A word whose reason holds nothing does not leave the node alone, whatever its note says.
	launching := event(nodeClaim, "NodeClaim", disruption.ReasonDisruptionLaunching, "Disrupt", "left alone: not really", now.Add(time.Minute))
	if answer, err = WhyNode(context.Background(), kubeOf(t, node, nodeClaim, held, launching), "node-a"); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(answer.Verdict, "left alone") || len(answer.Words) != 2 || answer.Words[0].Message != "left alone: not really" {
		t.Errorf("answer %+v, want the verdict from the reasons and the note shown", answer)
	}

	disrupted := nodeClaim.DeepCopy()
	disrupted.Status.Conditions = append(disrupted.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeDisruptionReason, Status: metav1.ConditionTrue, Reason: "Drifted", LastTransitionTime: metav1.NewTime(now)})
	answer, err = WhyNode(context.Background(), kubeOf(t, node, disrupted, held), "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if answer.Disrupting != "Drifted" || !strings.HasPrefix(answer.Verdict, "being disrupted") {
		t.Errorf("answer %+v, want it being disrupted for drift", answer)
	}

	// An hour later the events are gone; the NodeClaim's condition still says it.
	kept := nodeClaim.DeepCopy()
	kept.Status.Conditions = append(kept.Status.Conditions, metav1.Condition{Type: disruption.ConditionDisruptionBlocked, Status: metav1.ConditionTrue,
		Reason: disruption.ReasonDisruptionBlocked, Message: "PodDisruptionBudget shop/web allows no disruption of pod shop/web-1 now (0 disruptions allowed)", LastTransitionTime: metav1.NewTime(now)})
	answer, err = WhyNode(context.Background(), kubeOf(t, node, kept), "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer.Verdict, "left alone since 2026-12-04T10:00:00Z") || !strings.Contains(answer.Verdict, "PodDisruptionBudget shop/web") || len(answer.Words) != 0 {
		t.Errorf("answer %+v, want the kept verdict without events", answer)
	}

	unmanaged := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "static"}}
	answer, err = WhyNode(context.Background(), kubeOf(t, unmanaged), "static")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer.Verdict, "no NodeClaim manages") {
		t.Errorf("verdict %q", answer.Verdict)
	}
	if _, err := WhyNode(context.Background(), kubeOf(t), "missing"); err == nil {
		t.Error("no error for a node that does not exist")
	}
}

func TestWhyNodePool(t *testing.T) {
	window := "0 9 * * *"
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: karpv1.NodePoolSpec{
			Limits: karpv1.Limits{corev1.ResourceCPU: resource.MustParse("16")},
			Disruption: karpv1.Disruption{Budgets: []karpv1.Budget{
				{Nodes: "50%"},
				{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnderutilized}},
				{Nodes: "100%", Schedule: &window, Duration: &metav1.Duration{Duration: time.Hour}, Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}},
			}},
		},
		Status: karpv1.NodePoolStatus{Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("12")}, DisruptionBlocked: 1},
	}
	objects := []client.Object{np}
	for i, name := range []string{"a", "b", "c", "d"} {
		nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.LabelNodePool: "default"}},
			Status: karpv1.NodeClaimStatus{ProviderID: "kakaocloud://" + name, NodeName: name, Conditions: []metav1.Condition{
				{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized", LastTransitionTime: metav1.NewTime(now)},
			}}}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.LabelNodePool: "default"}}, Spec: corev1.NodeSpec{ProviderID: "kakaocloud://" + name},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		if i == 0 {
			// Being disrupted: uses one of the budget's nodes up.
			node.Spec.Taints = []corev1.Taint{karpv1.DisruptedNoScheduleTaint}
			nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "NodePoolDrifted", LastTransitionTime: metav1.NewTime(now)})
		}
		objects = append(objects, nodeClaim, node)
	}
	answer, err := WhyNodePool(context.Background(), kubeOf(t, objects...), "default", now)
	if err != nil {
		t.Fatal(err)
	}
	byReason := map[string]BudgetAnswer{}
	for _, b := range answer.Budgets {
		byReason[b.Reason] = b
	}
	// 50% of 4 nodes is 2, one of them is being disrupted.
	if b := byReason["Empty"]; b.Allowed != 1 || b.Disrupting != 1 || !strings.Contains(b.Budget, "budget 0") {
		t.Errorf("Empty: %+v, want 1 more allowed by budget 0", b)
	}
	if b := byReason["Underutilized"]; b.Allowed != 0 || !strings.Contains(b.Budget, "budget 1") {
		t.Errorf("Underutilized: %+v, want none, by budget 1", b)
	}
	wantWindow := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	if b := byReason["Drifted"]; b.NextWindow == nil || !b.NextWindow.Equal(wantWindow) {
		t.Errorf("Drifted: next window %v, want %v", b.NextWindow, wantWindow)
	}
	if len(answer.Limits) != 1 || answer.Limits[0].Used != "12" || answer.Limits[0].Limit != "16" {
		t.Errorf("limits %+v", answer.Limits)
	}
	if len(answer.Drifted) != 1 || answer.Drifted[0] != "a" || answer.Blocked != 1 || answer.Nodes != 4 {
		t.Errorf("answer %+v", answer)
	}
}

func TestPrint(t *testing.T) {
	answer := &explain.WhatIfAnswer{Kind: "KCNodeClass", Name: "workers", Drifts: []explain.Drift{{NodeClaim: "a", Reason: "KubernetesVersionDrift", Message: "m"}},
		Launches: []explain.Launch{{NodePool: "default", InstanceType: "m2a.large", Price: 2.5, InstanceTypes: 12, Zones: []string{"kr-central-2-a"}, Pods: 3}},
		Cost:     explain.Cost{Now: 5, WithoutEdit: 5, WithEdit: 2.5, Change: -2.5}}
	var table, js bytes.Buffer
	if err := Print(&table, answer, "table"); err != nil || !strings.Contains(table.String(), "KubernetesVersionDrift") ||
		!regexp.MustCompile(`default\s+m2a.large\s+2.500\s+12\s+kr-central-2-a\s+3`).MatchString(table.String()) ||
		!regexp.MustCompile(`COST WITH EDIT\s+2.500 \(-2.500\)`).MatchString(table.String()) {
		t.Errorf("table %q, %v", table.String(), err)
	}
	if err := Print(&js, answer, "json"); err != nil {
		t.Fatal(err)
	}
	var back explain.WhatIfAnswer
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Drifts[0].NodeClaim != "a" {
		t.Errorf("json %q, %v", js.String(), err)
	}
	if err := Print(&js, answer, "yaml"); err == nil {
		t.Error("no error for an unknown output format")
	}

	// why pod: the operator's refusals and launch, and provisioning's words as said.
	pod := &PodAnswer{Pod: "shop/web", Phase: "Pending", Verdict: "v",
		Simulated: &explain.PodWhatIfAnswer{Launch: &explain.Launch{NodePool: "default", InstanceType: "m2a.large", Price: 2.5, InstanceTypes: 3, Zones: []string{"kr-central-2-a"}, Pods: 1}},
		RefusedBy: []simulation.NodePoolReason{{NodePool: "gpu", Reason: "the pod does not tolerate taint nvidia.com/gpu"}},
		Words:     []Word{{Reason: "FailedScheduling", Message: "Failed to schedule pod, nodepool gpu: x", At: now}}}
	table.Reset()
	if err := Print(&table, pod, "table"); err != nil || !regexp.MustCompile(`gpu\s+the pod does not tolerate taint nvidia.com/gpu`).MatchString(table.String()) ||
		!regexp.MustCompile(`default\s+m2a.large\s+2.500`).MatchString(table.String()) ||
		!regexp.MustCompile(`2026-12-04T10:00:00Z\s+FailedScheduling\s+Failed to schedule pod, nodepool gpu: x`).MatchString(table.String()) {
		t.Errorf("table %q, %v", table.String(), err)
	}
}
