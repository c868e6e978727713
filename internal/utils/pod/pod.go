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
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/index"
)

// DoNotDisruptAnnotation is karpenter.sh/do-not-disrupt (api/karpenter/v1 names it too; this
// package imports nothing of the project).
const DoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt"

// DoNotDisrupt reads the pod's karpenter.sh/do-not-disrupt annotation at now: whether it
// protects the pod from voluntary disruption and eviction, and until when (zero for "true",
// which protects as long as it is there). A duration ("30m") protects the pod for that long
// after it started, and from the start while the pod has not started. A value that is neither
// protects as "true" does, and err says why it is not valid: upstream Karpenter ignores such a
// value, and would evict a pod whose owner meant to protect it.
func DoNotDisrupt(pod *corev1.Pod, now time.Time) (active bool, until time.Time, err error) {
	value, ok := pod.Annotations[DoNotDisruptAnnotation]
	switch {
	case !ok:
		return false, time.Time{}, nil
	case value == "true":
		return true, time.Time{}, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return true, time.Time{}, fmt.Errorf("%s=%q is neither \"true\" nor a positive duration such as 30m", DoNotDisruptAnnotation, value)
	}
	if pod.Status.StartTime == nil {
		return true, time.Time{}, nil
	}
	until = pod.Status.StartTime.Add(d)
	return now.Before(until), until, nil
}

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

// IsDrained says whether a drain of the pod's node evicts it: it has not finished, and it is
// not a static pod's mirror (evicting a mirror changes nothing on the node). DaemonSet pods
// are evicted too, last.
func IsDrained(pod *corev1.Pod) bool {
	return !IsTerminal(pod) && !IsMirror(pod) && !IsOwnedByNode(pod)
}

// IsReschedulable says whether disrupting the pod's node moves the pod elsewhere. Finished pods, pods
// being deleted, DaemonSet pods (they follow the nodes) and static pods do not move.
func IsReschedulable(pod *corev1.Pod) bool {
	return !IsTerminal(pod) && pod.DeletionTimestamp.IsZero() && !IsOwnedByDaemonSet(pod) && !IsMirror(pod)
}

// CountReschedulable counts the reschedulable pods bound to the node, read through the cache's
// spec.nodeName index.
func CountReschedulable(ctx context.Context, reader client.Reader, nodeName string) (int, error) {
	if nodeName == "" {
		return 0, nil
	}
	pods := &corev1.PodList{}
	if err := reader.List(ctx, pods, client.MatchingFields{index.PodNodeName: nodeName}); err != nil {
		return 0, fmt.Errorf("listing the pods of node %s: %w", nodeName, err)
	}
	n := 0
	for i := range pods.Items {
		if IsReschedulable(&pods.Items[i]) {
			n++
		}
	}
	return n, nil
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
