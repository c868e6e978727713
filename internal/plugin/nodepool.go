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
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
)

// NodePoolAnswer is what a NodePool's budgets and limits allow now, and which of its nodes
// drifted or are held.
type NodePoolAnswer struct {
	NodePool string `json:"nodePool"`
	// Nodes counts the NodePool's NodeClaims.
	Nodes   int            `json:"nodes"`
	Budgets []BudgetAnswer `json:"budgets"`
	Limits  []LimitAnswer  `json:"limits,omitempty"`
	Drifted []string       `json:"drifted,omitempty"`
	// Blocked is status.disruptionBlocked: nodes a do-not-disrupt annotation or a
	// PodDisruptionBudget holds.
	Blocked int64 `json:"blocked"`
}

// BudgetAnswer is what the budgets allow now for one reason.
type BudgetAnswer struct {
	Reason string `json:"reason"`
	// Allowed is how many more nodes may be disrupted now; -1 for no limit.
	Allowed int `json:"allowed"`
	// Disrupting counts the nodes being disrupted, which use it up.
	Disrupting int `json:"disrupting"`
	// Budget names the budget that sets it ("no budget" when none applies).
	Budget string `json:"budget"`
	// NextWindow is when the next scheduled budget for the reason starts, when one will.
	NextWindow *time.Time `json:"nextWindow,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// LimitAnswer is one of spec.limits and what the NodePool's nodes use of it.
type LimitAnswer struct {
	Resource string `json:"resource"`
	Used     string `json:"used"`
	Limit    string `json:"limit"`
}

// WhyNodePool answers for the NodePool named, at now.
func WhyNodePool(ctx context.Context, reader client.Reader, name string, now time.Time) (*NodePoolAnswer, error) {
	np := &karpv1.NodePool{}
	if err := reader.Get(ctx, types.NamespacedName{Name: name}, np); err != nil {
		return nil, fmt.Errorf("reading NodePool %s: %w", name, err)
	}
	claims := &karpv1.NodeClaimList{}
	if err := reader.List(ctx, claims, client.MatchingLabels{karpv1.LabelNodePool: name}); err != nil {
		return nil, fmt.Errorf("listing the NodeClaims of NodePool %s: %w", name, err)
	}
	nodes := &corev1.NodeList{}
	if err := reader.List(ctx, nodes, client.MatchingLabels{karpv1.LabelNodePool: name}); err != nil {
		return nil, fmt.Errorf("listing the nodes of NodePool %s: %w", name, err)
	}
	byProviderID := map[string]*corev1.Node{}
	for i := range nodes.Items {
		byProviderID[nodes.Items[i].Spec.ProviderID] = &nodes.Items[i]
	}
	answer := &NodePoolAnswer{NodePool: name, Nodes: len(claims.Items), Blocked: np.Status.DisruptionBlocked}
	for _, reason := range []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonDrifted, karpv1.DisruptionReasonUnderutilized, karpv1.DisruptionReasonUnhealthy} {
		total, disrupting := 0, 0
		for i := range claims.Items {
			counts, disrupted := disruption.BudgetCounts(budgetNode(&claims.Items[i], byProviderID[claims.Items[i].Status.ProviderID]), reason)
			if counts {
				total++
			}
			if disrupted {
				disrupting++
			}
		}
		allowance := disruption.AllowedDisruptions(np, reason, now, total)
		budget := BudgetAnswer{Reason: string(reason), Allowed: max(allowance.Nodes-disrupting, 0), Disrupting: disrupting,
			Budget: disruption.DescribeBudget(np, allowance.Budget), NextWindow: nextWindow(np, reason, now)}
		if allowance.Nodes == disruption.Unlimited {
			budget.Allowed = -1
		}
		if allowance.Err != nil {
			budget.Error = allowance.Err.Error()
		}
		answer.Budgets = append(answer.Budgets, budget)
	}
	for resource, limit := range np.Spec.Limits {
		used := np.Status.Resources[resource]
		answer.Limits = append(answer.Limits, LimitAnswer{Resource: string(resource), Used: used.String(), Limit: limit.String()})
	}
	slices.SortFunc(answer.Limits, func(a, b LimitAnswer) int { return strings.Compare(a.Resource, b.Resource) })
	for _, c := range claims.Items {
		if meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeDrifted) {
			answer.Drifted = append(answer.Drifted, c.Name)
		}
	}
	slices.Sort(answer.Drifted)
	return answer, nil
}

// budgetNode is what the budgets count of a NodeClaim and its node (nil before it registers).
func budgetNode(nodeClaim *karpv1.NodeClaim, node *corev1.Node) disruption.BudgetNode {
	n := disruption.BudgetNode{
		Initialized: node != nil && meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized),
		Terminating: meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInstanceTerminating),
		Disrupted:   !nodeClaim.DeletionTimestamp.IsZero(),
	}
	if node != nil {
		n.Disrupted = n.Disrupted || !node.DeletionTimestamp.IsZero() || nodeutil.HasTaint(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
		n.Ready = nodeutil.IsReady(node)
	}
	return n
}

// nextWindow is when the next scheduled budget for reason that is not active now starts.
func nextWindow(np *karpv1.NodePool, reason karpv1.DisruptionReason, now time.Time) *time.Time {
	var next *time.Time
	for _, b := range np.Spec.Disruption.Budgets {
		if b.Schedule == nil || (len(b.Reasons) > 0 && !slices.Contains(b.Reasons, reason)) {
			continue
		}
		if active, err := disruption.BudgetActive(b, now); err != nil || active {
			continue
		}
		schedule, err := karpv1.ParseBudgetSchedule(*b.Schedule)
		if err != nil {
			continue
		}
		if at := schedule.Next(now.UTC()); next == nil || at.Before(*next) {
			next = &at
		}
	}
	return next
}
