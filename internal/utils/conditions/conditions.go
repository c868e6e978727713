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

package conditions

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReasonAwaitingReconciliation is the root condition's reason while a condition it depends on
// has not been set yet.
const ReasonAwaitingReconciliation = "AwaitingReconciliation"

// Set sets c among conditions, stamped with generation, the object's metadata.generation the
// condition was computed from. LastTransitionTime changes only when the status does: to c's
// when set (a reconciler's clock, which timeouts are measured on), to now otherwise. The
// list is kept sorted by type, so that the same conditions always read, and patch, the same.
// It reports whether anything changed.
func Set(conditions *[]metav1.Condition, generation int64, c metav1.Condition) bool {
	c.ObservedGeneration = generation
	changed := meta.SetStatusCondition(conditions, c)
	if !slices.IsSortedFunc(*conditions, byType) {
		Sort(*conditions)
		changed = true
	}
	return changed
}

// SetReady sets the root condition root.Type from its dependencies, in their order: a False
// one makes it False, else an Unknown or missing one makes it Unknown, each with the
// dependency's reason and its message after its type; when every one is True, root is set
// as given (its status True). Conditions outside dependencies never affect it.
func SetReady(conditions *[]metav1.Condition, generation int64, root metav1.Condition, dependencies ...string) bool {
	root.Status = metav1.ConditionTrue
	var unknown *metav1.Condition
	for _, t := range dependencies {
		c := meta.FindStatusCondition(*conditions, t)
		switch {
		case c == nil:
			if unknown == nil {
				unknown = &metav1.Condition{Status: metav1.ConditionUnknown, Reason: ReasonAwaitingReconciliation, Message: t + " is not known yet"}
			}
		case c.Status == metav1.ConditionFalse:
			root.Status, root.Reason, root.Message = c.Status, c.Reason, t+": "+c.Message
			return Set(conditions, generation, root)
		case c.Status != metav1.ConditionTrue && unknown == nil:
			unknown = &metav1.Condition{Status: metav1.ConditionUnknown, Reason: c.Reason, Message: t + ": " + c.Message}
		}
	}
	if unknown != nil {
		root.Status, root.Reason, root.Message = unknown.Status, unknown.Reason, unknown.Message
	}
	return Set(conditions, generation, root)
}

// Sort orders conditions by type, the order Set keeps them in.
func Sort(conditions []metav1.Condition) { slices.SortStableFunc(conditions, byType) }

func byType(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) }
