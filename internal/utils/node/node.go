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

package node

import corev1 "k8s.io/api/core/v1"

// IsReady says whether the node's Ready condition is True.
func IsReady(node *corev1.Node) bool {
	for _, condition := range node.Status.Conditions {
		if condition.Type == corev1.NodeReady {
			return condition.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Condition is the node's condition of type t, and whether it has one.
func Condition(node *corev1.Node, t corev1.NodeConditionType) (corev1.NodeCondition, bool) {
	for _, c := range node.Status.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return corev1.NodeCondition{}, false
}

// HasTaint says whether taints hold taint (same key and effect, as the kube-scheduler matches).
func HasTaint(taints []corev1.Taint, taint corev1.Taint) bool {
	for i := range taints {
		if taints[i].MatchTaint(&taint) {
			return true
		}
	}
	return false
}

// WithoutTaint is taints without taint, as a new list.
func WithoutTaint(taints []corev1.Taint, taint corev1.Taint) []corev1.Taint {
	var kept []corev1.Taint
	for _, have := range taints {
		if !have.MatchTaint(&taint) {
			kept = append(kept, have)
		}
	}
	return kept
}
