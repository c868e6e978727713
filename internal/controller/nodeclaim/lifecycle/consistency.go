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
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// minShapeRatio is the least share of a resource the NodeClaim expects that its node may
// report before the difference is pointed out, as upstream's node shape check allows.
const minShapeRatio = 0.9

// checkConsistency compares an initialized node's capacity with what its NodeClaim was
// launched for, for every resource its pods asked for: a node that reports much less than its
// instance type promises means the scheduling model and the node disagree, and pods the
// simulation placed there may not fit (upstream's FailedConsistencyCheck).
func (r *Reconciler) checkConsistency(ctx context.Context, nodeClaim *karpv1.NodeClaim) (stepResult, error) {
	if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized) {
		return stepResult{requeue: reconcile.Result{}}, nil
	}
	node, err := r.nodeOf(ctx, nodeClaim)
	if err != nil || node == nil {
		return stepResult{requeue: reconcile.Result{}}, err
	}
	for _, issue := range shapeIssues(nodeClaim, node) {
		failedConsistencyCheck(r.Recorder, nodeClaim, issue)
	}
	return stepResult{requeue: reconcile.Result{}}, nil
}

// shapeIssues says, for each resource the NodeClaim was created with requests of, whether its
// node's capacity falls short of the NodeClaim's by more than minShapeRatio allows.
func shapeIssues(nodeClaim *karpv1.NodeClaim, node *corev1.Node) []string {
	var issues []string
	names := make([]corev1.ResourceName, 0, len(nodeClaim.Spec.Resources.Requests))
	for name := range nodeClaim.Spec.Resources.Requests {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		requested := nodeClaim.Spec.Resources.Requests[name]
		expected, found := nodeClaim.Status.Capacity[name], node.Status.Capacity[name]
		if requested.IsZero() || expected.IsZero() {
			continue
		}
		if ratio := found.AsApproximateFloat64() / expected.AsApproximateFloat64(); ratio < minShapeRatio {
			issues = append(issues, fmt.Sprintf("expected %s of resource %s, but found %s (%0.1f%% of expected)", expected.String(), name, found.String(), ratio*100))
		}
	}
	return issues
}
