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

package nodeclaim

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// ConsolidateAfterEnds is when the NodePool's consolidateAfter has passed for the NodeClaim:
// that long after the last pod was bound to or removed from its node or, when none has been,
// after it initialized, as upstream Karpenter counts it. ok is false when the NodePool does not
// consolidate or the NodeClaim has not initialized.
func ConsolidateAfterEnds(nodeClaim *karpv1.NodeClaim, np *karpv1.NodePool) (at time.Time, ok bool) {
	after := np.Spec.Disruption.ConsolidateAfter.Duration
	initialized := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)
	if after == nil || initialized == nil || initialized.Status != metav1.ConditionTrue {
		return time.Time{}, false
	}
	since := initialized.LastTransitionTime.Time
	if !nodeClaim.Status.LastPodEventTime.IsZero() {
		since = nodeClaim.Status.LastPodEventTime.Time
	}
	return since.Add(*after), true
}
