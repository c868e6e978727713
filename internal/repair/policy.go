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

package repair

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/result"
)

// instanceStateRecheck is how soon a node whose condition a repair policy names, but whose VM
// is not (yet) in the state the policy asks for, is looked at again.
const instanceStateRecheck = 30 * time.Second

// Finding is how a node is unhealthy: the repair policy it meets past its toleration (the one
// of highest priority when it meets several), the node condition that meets it and, for a
// policy on the VM's state, that state.
type Finding struct {
	Policy        cloudprovider.RepairPolicy
	Condition     corev1.NodeCondition
	InstanceState string
	Lasted        time.Duration
	// TerminationGracePeriod is the shortest drain bound of the policies the node meets past
	// their toleration; nil when none of them sets one.
	TerminationGracePeriod *time.Duration
}

func (f Finding) String() string {
	s := fmt.Sprintf("its %s condition has been %s for %s", f.Condition.Type, f.Condition.Status, f.Lasted.Round(time.Second))
	if f.InstanceState != "" {
		s += fmt.Sprintf(" and KakaoCloud reports its VM %s", f.InstanceState)
	}
	return s + fmt.Sprintf(", past the %s its repair policy tolerates", f.Policy.TolerationDuration)
}

// EligibleAt is when the node became a repair candidate: its condition's transition plus the
// policy's toleration.
func (f Finding) EligibleAt() time.Time {
	return f.Condition.LastTransitionTime.Add(f.Policy.TolerationDuration)
}

// Evaluate finds the repair policy the node meets past its toleration at now, or else how long
// until the node should be looked at again, as Assess does, with the one read Assess may need:
// the state of the NodeClaim's VM, asked of the cloud provider only when NeedsInstanceState.
func Evaluate(ctx context.Context, provider cloudprovider.CloudProvider, node *corev1.Node, nodeClaim *karpv1.NodeClaim, now time.Time) (*Finding, time.Duration, error) {
	policies := provider.RepairPolicies()
	state := ""
	if NeedsInstanceState(policies, node) {
		var err error
		if state, err = provider.InstanceState(ctx, nodeClaim); err != nil {
			return nil, 0, fmt.Errorf("reading the state of the VM of NodeClaim %s: %w", nodeClaim.Name, err)
		}
	}
	found, wait := Assess(policies, node, state, now)
	return found, wait, nil
}

// NeedsInstanceState reports whether Assess needs the state of the node's VM: a policy that
// names VM states meets one of the node's conditions.
func NeedsInstanceState(policies []cloudprovider.RepairPolicy, node *corev1.Node) bool {
	return slices.ContainsFunc(policies, func(policy cloudprovider.RepairPolicy) bool {
		condition, ok := nodeutil.Condition(node, policy.ConditionType)
		return ok && condition.Status == policy.ConditionStatus && len(policy.InstanceStates) > 0
	})
}

// Assess finds the repair policy the node meets past its toleration at now, its VM being in
// state (read only when NeedsInstanceState says so; "" otherwise): the one of highest priority
// when it meets several, with the shortest drain bound of them all. Otherwise it returns how
// long until the node should be looked at again: the earliest toleration's end, or
// instanceStateRecheck when a policy waits on the VM's state (0 when neither). It is pure.
func Assess(policies []cloudprovider.RepairPolicy, node *corev1.Node, state string, now time.Time) (*Finding, time.Duration) {
	var wait time.Duration
	var found *Finding
	for _, policy := range policies {
		condition, ok := nodeutil.Condition(node, policy.ConditionType)
		if !ok || condition.Status != policy.ConditionStatus {
			continue
		}
		if len(policy.InstanceStates) > 0 && !slices.Contains(policy.InstanceStates, state) {
			// The VM's state is KakaoCloud's and changes without an event on the node: a
			// node that went NotReady before its VM went to error would otherwise wait for
			// the longer policy's toleration.
			wait = result.Sooner(wait, instanceStateRecheck)
			continue
		}
		lasted := now.Sub(condition.LastTransitionTime.Time)
		if left := policy.TolerationDuration - lasted; left > 0 {
			wait = result.Sooner(wait, left)
			continue
		}
		if found == nil || policy.Priority > found.Policy.Priority {
			bound := shorter(policy.TerminationGracePeriod, nil)
			if found != nil {
				bound = shorter(policy.TerminationGracePeriod, found.TerminationGracePeriod)
			}
			found = &Finding{Policy: policy, Condition: condition, Lasted: lasted, TerminationGracePeriod: bound}
			if len(policy.InstanceStates) > 0 {
				found.InstanceState = state
			}
			continue
		}
		found.TerminationGracePeriod = shorter(policy.TerminationGracePeriod, found.TerminationGracePeriod)
	}
	if found != nil {
		return found, 0
	}
	return nil, wait
}

// shorter is the shorter of two drain bounds, nil meaning none.
func shorter(a, b *time.Duration) *time.Duration {
	switch {
	case a == nil:
		return b
	case b == nil || *a < *b:
		return a
	}
	return b
}

// MeetsAPolicy reports whether one of the node's conditions is as a repair policy names it,
// whether or not its toleration is over: how the circuit breaker counts a node unhealthy, as
// upstream Karpenter counts them.
func MeetsAPolicy(policies []cloudprovider.RepairPolicy, node *corev1.Node) bool {
	for _, policy := range policies {
		if condition, ok := nodeutil.Condition(node, policy.ConditionType); ok && condition.Status == policy.ConditionStatus {
			return true
		}
	}
	return false
}

// Breaker says why repair holds in a NodePool of total nodes, unhealthy of which meet a repair
// policy ("" when it does not): its repair.maxUnhealthy is 0, or more of its nodes than that
// allows are unhealthy at once, a fault that replacing nodes does not fix.
func Breaker(nodePool *karpv1.NodePool, total, unhealthy int) (string, error) {
	maxUnhealthy := karpv1.DefaultMaxUnhealthy
	if settings := nodePool.Spec.Disruption.Repair; settings != nil && settings.MaxUnhealthy != "" {
		maxUnhealthy = settings.MaxUnhealthy
	}
	if maxUnhealthy == "0" {
		return fmt.Sprintf("repair is turned off for NodePool %s (its repair.maxUnhealthy is 0)", nodePool.Name), nil
	}
	allowed, err := karpv1.NodeCount(maxUnhealthy, total)
	if err != nil {
		return "", fmt.Errorf("NodePool %s's repair.maxUnhealthy: %w", nodePool.Name, err)
	}
	if unhealthy <= allowed {
		return "", nil
	}
	return fmt.Sprintf("repair is held: %d of the %d nodes of NodePool %s are unhealthy, more than its repair.maxUnhealthy (%s, %d nodes) allows; a fault that takes that many nodes down is not one replacing them fixes",
		unhealthy, total, nodePool.Name, maxUnhealthy, allowed), nil
}

// Held says why repair holds in the NodePool ("" when it does not), as Breaker decides on its
// nodes as reader lists them.
func Held(ctx context.Context, reader client.Reader, policies []cloudprovider.RepairPolicy, nodePool *karpv1.NodePool) (string, error) {
	nodes := &corev1.NodeList{}
	if err := reader.List(ctx, nodes, client.MatchingLabels{karpv1.LabelNodePool: nodePool.Name}); err != nil {
		return "", fmt.Errorf("listing the nodes of NodePool %s: %w", nodePool.Name, err)
	}
	unhealthy := 0
	for i := range nodes.Items {
		if MeetsAPolicy(policies, &nodes.Items[i]) {
			unhealthy++
		}
	}
	return Breaker(nodePool, len(nodes.Items), unhealthy)
}

// RecordRepair counts a repaired NodeClaim in karpenter_nodeclaims_unhealthy_disrupted_total,
// with the termination mode its drain ends in.
func RecordRepair(found Finding, nodeClaim *karpv1.NodeClaim, terminationMode string) {
	unhealthyDisrupted.WithLabelValues(metrics.SnakeCase(string(found.Condition.Type)), nodeClaim.Labels[karpv1.LabelNodePool],
		nodeClaim.Labels[karpv1.LabelCapacityType], nodeClaim.Status.ImageID, terminationMode).Inc()
}
