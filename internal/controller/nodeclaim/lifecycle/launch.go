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

package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// awaitingInstancePoll is how often a launch whose create is in doubt looks for the VM.
const awaitingInstancePoll = 5 * time.Second

// throttledRetry is when a call the cloud refused for its rate limit, without saying how long
// to wait, is made again.
const throttledRetry = 5 * time.Second

// throttledWait returns how long to wait before a call the cloud throttled is made again, and
// whether err is such a refusal.
func throttledWait(err error) (time.Duration, bool) {
	wait, throttled := cloudprovider.Throttled(err)
	return cmp.Or(wait, throttledRetry), throttled
}

// launch creates the NodeClaim's VM once. When no offering has capacity or the node class
// cannot launch, the NodeClaim is deleted so that the next provisioning round places its pods
// elsewhere; other failures are retried.
func (r *Reconciler) launch(ctx context.Context, nodeClaim *karpv1.NodeClaim) (stepResult, error) {
	if meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched) {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	// The status write that records a launch can trail the metadata write that triggers the
	// next reconcile; the result of the launch is reused rather than launched again.
	launched, cached := r.launches.Get(nodeClaim.UID, r.Clock.Now())
	var err error
	if !cached {
		launched, err = r.CloudProvider.Create(ctx, nodeClaim)
	}
	if err != nil {
		return r.launchFailed(ctx, nodeClaim, err)
	}

	// What the cloud resolved goes under what the NodeClaim already says.
	if nodeClaim.Labels == nil {
		nodeClaim.Labels = map[string]string{}
	}
	for k, v := range launched.Labels {
		if _, set := nodeClaim.Labels[k]; !set {
			nodeClaim.Labels[k] = v
		}
	}
	for k, v := range launched.Annotations {
		metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, k, v)
	}
	nodeClaim.Status.ProviderID = launched.Status.ProviderID
	nodeClaim.Status.ImageID = launched.Status.ImageID
	nodeClaim.Status.Capacity = launched.Status.Capacity
	nodeClaim.Status.Allocatable = launched.Status.Allocatable
	r.setCondition(nodeClaim, karpv1.ConditionTypeLaunched, metav1.ConditionTrue, karpv1.ReasonLaunched, "the VM was created")
	if cached {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	r.launches.Set(nodeClaim.UID, launched, r.Clock.Now())
	nodeClaimsLaunched.WithLabelValues(nodeClaim.Labels[karpv1.LabelNodePool]).Inc()
	log.FromContext(ctx).Info("launched nodeclaim", "provider-id", nodeClaim.Status.ProviderID,
		"instance-type", nodeClaim.Labels[karpv1.LabelInstanceType], "zone", nodeClaim.Labels[karpv1.LabelTopologyZone],
		"capacity-type", nodeClaim.Labels[karpv1.LabelCapacityType], "allocatable", nodeClaim.Status.Allocatable)
	return stepResult{requeue: reconcile.Result{}}, nil
}

// launchFailed decides what a failed create means: a VM that may exist is looked for, a
// throttled create is made again once the wait is over, a launch that cannot succeed deletes
// the NodeClaim, and any other failure is retried.
func (r *Reconciler) launchFailed(ctx context.Context, nodeClaim *karpv1.NodeClaim, err error) (stepResult, error) {
	var pending *cloudprovider.CreatePendingError
	wait, throttled := throttledWait(err)
	switch {
	case errors.As(err, &pending):
		// Not a failure: the VM may exist and not be listed yet. Look again soon, and create
		// again only once the window has passed.
		if !launchedBecause(nodeClaim, ReasonAwaitingInstance) {
			awaitingInstance(r.Recorder, nodeClaim, pending.Until, pending.Err)
		}
		r.setCondition(nodeClaim, karpv1.ConditionTypeLaunched, metav1.ConditionUnknown, ReasonAwaitingInstance, err.Error())
		return stepResult{requeue: reconcile.Result{RequeueAfter: min(awaitingInstancePoll, max(pending.Until.Sub(r.Clock.Now()), time.Second))}}, nil
	case throttled:
		// Nothing was created: the next pass creates, once the wait the cloud asked for is
		// over, and this worker serves other NodeClaims (registrations, terminations) meanwhile.
		if !launchedBecause(nodeClaim, ReasonThrottled) {
			launchThrottled(r.Recorder, nodeClaim, wait, err)
		}
		r.setCondition(nodeClaim, karpv1.ConditionTypeLaunched, metav1.ConditionUnknown, ReasonThrottled, err.Error())
		return stepResult{requeue: reconcile.Result{RequeueAfter: wait}}, nil
	case cloudprovider.IsInsufficientCapacity(err) || cloudprovider.IsNodeClassNotReady(err):
		reason := ReasonInsufficientCapacity
		if cloudprovider.IsNodeClassNotReady(err) {
			reason = ReasonNodeClassNotReady
		}
		launchAbandoned(r.Recorder, nodeClaim, reason, err)
		log.FromContext(ctx).Error(err, "failed launching nodeclaim", "reason", reason)
		return deleted, nil
	}
	r.setCondition(nodeClaim, karpv1.ConditionTypeLaunched, metav1.ConditionUnknown, ReasonLaunchFailed, err.Error())
	return stepResult{requeue: reconcile.Result{}}, fmt.Errorf("launching nodeclaim: %w", err)
}

// launchedBecause reports whether the NodeClaim's Launched condition already has reason: an
// event that says why a launch waits is recorded when the wait starts, not on every pass.
func launchedBecause(nodeClaim *karpv1.NodeClaim, reason string) bool {
	c := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched)
	return c != nil && c.Reason == reason
}
