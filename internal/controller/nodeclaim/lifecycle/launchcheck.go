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
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// launchCheckPeriod is how often the VM of a NodeClaim waiting for its node is looked at.
const launchCheckPeriod = 5 * time.Second

// checkLaunch watches the VM of a launched NodeClaim until its node registers. KakaoCloud
// accepts a VM and may then put it in error, for lack of capacity among other reasons
// (assumption A18): that is a failed launch at once, not one to wait out the registration
// timeout for. The NodeClaim is deleted (its termination deletes the VM) and its pods are
// provisioned again; a lack of capacity has marked the offering unavailable, so they go to
// the next cheapest type or zone.
func (r *Reconciler) checkLaunch(ctx context.Context, nodeClaim *karpv1.NodeClaim) (stepResult, error) {
	if nodeClaim.Status.ProviderID == "" || meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeRegistered) {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	err := r.CloudProvider.CheckLaunch(ctx, nodeClaim)
	switch {
	case err == nil:
		return stepResult{requeue: reconcile.Result{RequeueAfter: launchCheckPeriod}}, nil
	case cloudprovider.IsInsufficientCapacity(err):
		launchAbandoned(r.Recorder, nodeClaim, ReasonInsufficientCapacity, err)
	case cloudprovider.IsLaunchFailed(err):
		launchAbandoned(r.Recorder, nodeClaim, ReasonLaunchFailed, err)
	default:
		log.FromContext(ctx).Error(err, "checking the VM of a NodeClaim waiting for its node")
		return stepResult{requeue: reconcile.Result{RequeueAfter: launchCheckPeriod}}, nil
	}
	log.FromContext(ctx).Info("deleting nodeclaim: its VM failed to come up", "provider-id", nodeClaim.Status.ProviderID, "reason", err.Error())
	return deleted, nil
}
