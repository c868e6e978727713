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

package pod

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IsTerminal says whether the pod has finished (Succeeded or Failed) and holds nothing.
func IsTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// IsOwnedByDaemonSet says whether a DaemonSet controls the pod (its controller owner reference; an owner
// reference without the controller flag does not make the pod the DaemonSet's).
func IsOwnedByDaemonSet(pod *corev1.Pod) bool {
	owner := metav1.GetControllerOf(pod)
	return owner != nil && owner.Kind == "DaemonSet"
}

// IsMirror says whether the pod is the API server's mirror of a static pod, which the kubelet runs from
// a file; evicting or deleting the mirror changes nothing on the node.
func IsMirror(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// IsOwnedByNode says whether the pod is a static pod's mirror as its owner reference shows it.
func IsOwnedByNode(pod *corev1.Pod) bool {
	for _, owner := range pod.OwnerReferences {
		if owner.Kind == "Node" && owner.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// IsReschedulable says whether disrupting the pod's node moves the pod elsewhere. Finished pods, pods
// being deleted, DaemonSet pods (they follow the nodes) and static pods do not move.
func IsReschedulable(pod *corev1.Pod) bool {
	return !IsTerminal(pod) && pod.DeletionTimestamp.IsZero() && !IsOwnedByDaemonSet(pod) && !IsMirror(pod)
}

// IsProvisionable says whether provisioning acts on the pod. It is not bound, not being deleted, refused
// by the kube-scheduler as unschedulable, not a DaemonSet's (those follow nodes, they do not
// ask for them), and not nominated to a node (the kube-scheduler is preempting lower-priority
// pods to make room for it there).
func IsProvisionable(pod *corev1.Pod) bool {
	if pod.Spec.NodeName != "" || !pod.DeletionTimestamp.IsZero() || pod.Status.NominatedNodeName != "" || IsOwnedByDaemonSet(pod) {
		return false
	}
	for _, condition := range pod.Status.Conditions {
		if condition.Type == corev1.PodScheduled && condition.Status == corev1.ConditionFalse && condition.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}
