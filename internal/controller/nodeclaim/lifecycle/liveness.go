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
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// liveness deletes a NodeClaim whose VM was not launched, or whose node did not register,
// in time; its termination deletes the VM, and its pods get another chance elsewhere.
func (r *Reconciler) liveness(ctx context.Context, nodeClaim *karpv1.NodeClaim) (stepResult, error) {
	if meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeRegistered) {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	timeout, what := r.LaunchTimeout, "launched"
	if timeout == 0 {
		timeout = DefaultLaunchTimeout
	}
	since := nodeClaim.CreationTimestamp.Time
	if launched := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched); launched != nil && launched.Status == "True" {
		timeout, what = r.RegistrationTimeout, "registered"
		if timeout == 0 {
			timeout = DefaultRegistrationTimeout
		}
		since = launched.LastTransitionTime.Time
	}
	left := timeout - r.Clock.Now().Sub(since)
	if left > 0 {
		return stepResult{requeue: reconcile.Result{RequeueAfter: left}}, nil
	}
	notLive(r.Recorder, nodeClaim, what, timeout)
	log.FromContext(ctx).Info("deleting nodeclaim that did not come up in time", "expected", what, "timeout", timeout.String())
	if what == "registered" && r.firstAnnouncement(nodeClaim, "RegistrationTimedOut") {
		r.recordRegistration(nodeClaim, false)
	}
	return deleted, nil
}
