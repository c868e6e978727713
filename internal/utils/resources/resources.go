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

package resources

import (
	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// PodRequests returns what a pod requests of a node: the larger of its init containers and the
// sum of its containers (sidecars included), plus its overhead, as the kubelet computes it.
func PodRequests(pod *corev1.Pod) corev1.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
}

// Merge is the sum of the lists, as a new list.
func Merge(lists ...corev1.ResourceList) corev1.ResourceList {
	sum := corev1.ResourceList{}
	for _, list := range lists {
		AddTo(sum, list)
	}
	return sum
}

// AddTo adds list into sum, resource by resource.
func AddTo(sum, list corev1.ResourceList) {
	for name, quantity := range list {
		total := sum[name]
		total.Add(quantity)
		sum[name] = total
	}
}

// Max is, resource by resource, the largest quantity any of the lists has, as a new list.
func Max(lists ...corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, list := range lists {
		for name, quantity := range list {
			if have, ok := out[name]; !ok || quantity.Cmp(have) > 0 {
				out[name] = quantity
			}
		}
	}
	return out
}

// SubtractFrom takes list away from remaining, for the resources remaining has; a resource
// it does not have stays absent (unbounded), not negative.
func SubtractFrom(remaining, list corev1.ResourceList) {
	for name, quantity := range list {
		if left, ok := remaining[name]; ok {
			left.Sub(quantity)
			remaining[name] = left
		}
	}
}

// GiveBack adds list to remaining, for the resources remaining has: SubtractFrom undone. A
// resource it does not have stays absent (unbounded); adding it would bound it.
func GiveBack(remaining, list corev1.ResourceList) {
	for name, quantity := range list {
		if left, ok := remaining[name]; ok {
			left.Add(quantity)
			remaining[name] = left
		}
	}
}
