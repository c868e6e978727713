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

package kakao

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Default tolerations of the repair policies. A node NotReady for half an hour is replaced, as
// upstream Karpenter's AWS provider does; one whose VM KakaoCloud reports failed or stopped
// sooner, since KakaoCloud does not start such a VM again by itself (assumption A21).
const (
	DefaultNotReadyToleration       = 30 * time.Minute
	DefaultInstanceFailedToleration = 10 * time.Minute
)

// RepairTolerations are how long the repair policies wait; zero fields mean the defaults.
type RepairTolerations struct {
	NotReady, InstanceFailed time.Duration
}

// failedInstanceStates are the VM states a node does not come back from by itself.
var failedInstanceStates = []string{kakaocloud.InstanceStatusError, kakaocloud.InstanceStatusStopped}

// Priorities of the repair policies: a VM KakaoCloud reports failed is certainly gone, one
// NotReady may only have lost its network for a while.
const (
	instanceFailedPriority = 100
	notReadyPriority       = 50
	// notReadyDrainBound bounds the drain of a node whose kubelet reports NotReady; the
	// NodeClaim's terminationGracePeriod bounds it when shorter.
	notReadyDrainBound = 10 * time.Minute
)

// RepairPolicies are a node whose Ready condition is False or Unknown, past the NotReady
// toleration, or past the shorter InstanceFailed one while KakaoCloud reports its VM in error
// or stopped. Both drain forcefully (a termination grace period of 0), as upstream
// Karpenter's policies for Ready do: a kubelet that does not report cannot evict a pod, and
// a graceful drain would only wait.
func (p *CloudProvider) RepairPolicies() []cloudprovider.RepairPolicy {
	notReady := p.repair.NotReady
	if notReady <= 0 {
		notReady = DefaultNotReadyToleration
	}
	failed := p.repair.InstanceFailed
	if failed <= 0 {
		failed = DefaultInstanceFailedToleration
	}
	var policies []cloudprovider.RepairPolicy
	for _, status := range []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionUnknown} {
		// A kubelet that no longer reports (Unknown), or whose VM is down, cannot evict
		// anything: its pods are deleted at once. One that reports NotReady (False) on a
		// running VM is alive and can stop its pods gracefully, within a bound.
		drainBound := time.Duration(0)
		if status == corev1.ConditionFalse {
			drainBound = notReadyDrainBound
		}
		policies = append(policies,
			cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: status, InstanceStates: failedInstanceStates, TolerationDuration: failed,
				TerminationGracePeriod: new(time.Duration(0)), Priority: instanceFailedPriority},
			cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: status, TolerationDuration: notReady,
				TerminationGracePeriod: new(drainBound), Priority: notReadyPriority},
		)
	}
	return policies
}

// InstanceState reads the VM's state from the listing CheckLaunch shares (at most
// launchStatusTTL old, one list call for every node asked about in that time), in lower case.
func (p *CloudProvider) InstanceState(ctx context.Context, nodeClaim *karpv1.NodeClaim) (string, error) {
	id, err := instanceID(nodeClaim.Status.ProviderID)
	if err != nil {
		return "", nil
	}
	inst, ok, err := p.launchStatus(ctx, id)
	if err != nil || !ok {
		return "", err
	}
	return strings.ToLower(inst.Status), nil
}
