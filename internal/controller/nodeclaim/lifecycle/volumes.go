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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/index"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// +kubebuilder:rbac:groups=storage.k8s.io,resources=volumeattachments,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch

// awaitVolumeDetachment holds a drained node's VM until the volumes its pods used are
// detached: the attach/detach controller deletes their VolumeAttachments once the pods are
// gone, and a block volume still attached to a VM being deleted cannot be attached to the
// node its pod moves to until KakaoCloud lets it go. Volumes of pods the drain leaves on the
// node (DaemonSet-like pods tolerating the disrupted taint, static pods) stay attached to the
// end and do not hold it; nor does anything once the terminationGracePeriod deadline passes,
// as with upstream Karpenter.
func (r *Reconciler) awaitVolumeDetachment(ctx context.Context, nodeClaim *karpv1.NodeClaim, node *corev1.Node, deadline *time.Time) (reconcile.Result, bool, error) {
	pending, err := r.pendingVolumeAttachments(ctx, node)
	if err != nil {
		return reconcile.Result{}, true, err
	}
	switch {
	case len(pending) == 0:
		r.setCondition(nodeClaim, karpv1.ConditionTypeVolumesDetached, metav1.ConditionTrue, karpv1.ReasonVolumesDetached, "no volume of a drained pod is attached to the node")
		return reconcile.Result{}, false, nil
	case deadline == nil || r.Clock.Now().Before(*deadline):
		message := fmt.Sprintf("waiting for volumes %s to detach before the VM is deleted", strings.Join(pending, ", "))
		r.setCondition(nodeClaim, karpv1.ConditionTypeVolumesDetached, metav1.ConditionUnknown, karpv1.ReasonAwaitingVolumeDetachment, message)
		awaitingVolumeDetachment(r.Recorder, nodeClaim, message)
		return reconcile.Result{RequeueAfter: drainPoll}, true, nil
	default:
		r.setCondition(nodeClaim, karpv1.ConditionTypeVolumesDetached, metav1.ConditionFalse, karpv1.ReasonTerminationGracePeriodElapsed,
			fmt.Sprintf("volumes %s are still attached, and the terminationGracePeriod deadline %s has passed: the VM is deleted with them", strings.Join(pending, ", "), deadline.UTC().Format(time.RFC3339)))
		return reconcile.Result{}, false, nil
	}
}

// pendingVolumeAttachments names the persistent volumes attached to the node that no pod the
// drain leaves there uses, sorted.
func (r *Reconciler) pendingVolumeAttachments(ctx context.Context, node *corev1.Node) ([]string, error) {
	attachments := &storagev1.VolumeAttachmentList{}
	if err := r.Client.List(ctx, attachments); err != nil {
		return nil, fmt.Errorf("listing VolumeAttachments: %w", err)
	}
	var attached []string
	for _, a := range attachments.Items {
		if a.Spec.NodeName == node.Name && a.Spec.Source.PersistentVolumeName != nil {
			attached = append(attached, *a.Spec.Source.PersistentVolumeName)
		}
	}
	if len(attached) == 0 {
		return nil, nil
	}
	kept, err := r.volumesOfStayingPods(ctx, node)
	if err != nil {
		return nil, err
	}
	attached = slices.DeleteFunc(attached, kept.Has)
	slices.Sort(attached)
	return attached, nil
}

// volumesOfStayingPods names the persistent volumes of the pods the drain leaves on the node.
func (r *Reconciler) volumesOfStayingPods(ctx context.Context, node *corev1.Node) (sets.Set[string], error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.MatchingFields{index.PodNodeName: node.Name}); err != nil {
		return nil, fmt.Errorf("listing the pods of node %s: %w", node.Name, err)
	}
	now := r.Clock.Now()
	kept := sets.New[string]()
	for i := range pods.Items {
		pod := &pods.Items[i]
		if podutil.IsTerminal(pod) || waitingEviction(pod, now) {
			continue
		}
		for _, v := range pod.Spec.Volumes {
			claimName := ""
			switch {
			case v.PersistentVolumeClaim != nil:
				claimName = v.PersistentVolumeClaim.ClaimName
			case v.Ephemeral != nil:
				// The claim of a generic ephemeral volume is named after its pod and volume.
				claimName = pod.Name + "-" + v.Name
			default:
				continue
			}
			claim := &corev1.PersistentVolumeClaim{}
			if err := r.Client.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: claimName}, claim); err != nil {
				if client.IgnoreNotFound(err) == nil {
					continue
				}
				return nil, fmt.Errorf("getting PersistentVolumeClaim %s/%s of pod %s: %w", pod.Namespace, claimName, pod.Name, err)
			}
			if claim.Spec.VolumeName != "" {
				kept.Insert(claim.Spec.VolumeName)
			}
		}
	}
	return kept, nil
}
