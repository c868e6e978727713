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

package capacitybuffer

import (
	"context"
	"errors"
	"fmt"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// The annotations of a virtual pod, upstream Karpenter's keys: they mark it, and name its
// buffer.
const (
	VirtualPodAnnotation      = "karpenter.sh/capacity-buffer-fake-pod"
	BufferNameAnnotation      = "karpenter.sh/capacity-buffer-name"
	BufferNamespaceAnnotation = "karpenter.sh/capacity-buffer-namespace"
)

// Reasons of the ReadyForProvisioning and Provisioning conditions, upstream's.
const (
	ReasonResolved                = "Resolved"
	ReasonPodTemplateNotFound     = "PodTemplateNotFound"
	ReasonScalableRefNotFound     = "ScalableRefNotFound"
	ReasonResolutionFailed        = "ResolutionFailed"
	ReasonUnsupportedStrategy     = "UnsupportedProvisioningStrategy"
	ReasonFitsExistingCapacity    = "FitsExistingCapacity"
	ReasonRequiresNewCapacity     = "RequiresNewCapacity"
	ReasonNotReadyForProvisioning = "NotReadyForProvisioning"
	ReasonBufferEmpty             = "BufferEmpty"
)

// Resolution is what a buffer's reference gives: the chunks' pod template, and, for a
// workload, its replicas.
type Resolution struct {
	Template corev1.PodTemplateSpec
	// PodTemplate and PodTemplateGeneration name the PodTemplate, for a podTemplateRef.
	PodTemplate           string
	PodTemplateGeneration int64
	// WorkloadReplicas are the scalableRef workload's spec.replicas (1 when unset).
	WorkloadReplicas int32
}

// unresolvable is a buffer whose reference no object can satisfy: it names neither a
// PodTemplate nor a workload, or a kind of workload that has no pod template here.
type unresolvable struct{ error }

// IsUnresolvable says whether err is a buffer's reference that no object can satisfy, so
// that trying again does not help.
func IsUnresolvable(err error) bool {
	var u unresolvable
	return errors.As(err, &u)
}

// Resolve reads the buffer's PodTemplate or workload. A reference to an object that does not
// exist is a NotFound error.
func Resolve(ctx context.Context, reader client.Reader, cb *autoscalingv1beta1.CapacityBuffer) (*Resolution, error) {
	switch {
	case cb.Spec.PodTemplateRef != nil:
		template := &corev1.PodTemplate{}
		if err := reader.Get(ctx, types.NamespacedName{Namespace: cb.Namespace, Name: cb.Spec.PodTemplateRef.Name}, template); err != nil {
			return nil, fmt.Errorf("reading the podTemplateRef PodTemplate %s: %w", cb.Spec.PodTemplateRef.Name, err)
		}
		return &Resolution{Template: template.Template, PodTemplate: template.Name, PodTemplateGeneration: template.Generation}, nil
	case cb.Spec.ScalableRef != nil:
		return resolveWorkload(ctx, reader, cb.Namespace, cb.Spec.ScalableRef)
	}
	return nil, unresolvable{errors.New("neither podTemplateRef nor scalableRef is set")}
}

func resolveWorkload(ctx context.Context, reader client.Reader, namespace string, ref *autoscalingv1beta1.ScalableRef) (*Resolution, error) {
	if ref.APIGroup != "" && ref.APIGroup != appsv1.GroupName {
		return nil, unresolvable{fmt.Errorf("scalableRef apiGroup %q is not supported: only %s Deployments, StatefulSets and ReplicaSets", ref.APIGroup, appsv1.GroupName)}
	}
	key := types.NamespacedName{Namespace: namespace, Name: ref.Name}
	var template corev1.PodTemplateSpec
	var replicas *int32
	switch ref.Kind {
	case autoscalingv1beta1.KindDeployment:
		workload := &appsv1.Deployment{}
		if err := reader.Get(ctx, key, workload); err != nil {
			return nil, fmt.Errorf("reading the scalableRef Deployment %s: %w", ref.Name, err)
		}
		template, replicas = workload.Spec.Template, workload.Spec.Replicas
	case autoscalingv1beta1.KindStatefulSet:
		workload := &appsv1.StatefulSet{}
		if err := reader.Get(ctx, key, workload); err != nil {
			return nil, fmt.Errorf("reading the scalableRef StatefulSet %s: %w", ref.Name, err)
		}
		template, replicas = workload.Spec.Template, workload.Spec.Replicas
	case autoscalingv1beta1.KindReplicaSet:
		workload := &appsv1.ReplicaSet{}
		if err := reader.Get(ctx, key, workload); err != nil {
			return nil, fmt.Errorf("reading the scalableRef ReplicaSet %s: %w", ref.Name, err)
		}
		template, replicas = workload.Spec.Template, workload.Spec.Replicas
	default:
		return nil, unresolvable{fmt.Errorf("scalableRef kind %q is not supported: only Deployment, StatefulSet and ReplicaSet", ref.Kind)}
	}
	// The API server defaults a workload's replicas to 1.
	resolution := &Resolution{Template: template, WorkloadReplicas: 1}
	if replicas != nil {
		resolution.WorkloadReplicas = *replicas
	}
	return resolution, nil
}

// Replicas is the number of chunks: the larger of spec.replicas and the percentage of the
// workload's replicas (rounded up, at least 1 of a workload that has any), then no more than
// spec.limits allow, as upstream counts them. Limits alone decide when neither is set.
func Replicas(cb *autoscalingv1beta1.CapacityBuffer, resolution *Resolution) int32 {
	var wanted []int32
	if cb.Spec.Replicas != nil {
		wanted = append(wanted, *cb.Spec.Replicas)
	}
	if cb.Spec.ScalableRef != nil && cb.Spec.Percentage != nil && resolution.WorkloadReplicas > 0 {
		share := int32(math.Ceil(float64(resolution.WorkloadReplicas) * float64(*cb.Spec.Percentage) / 100))
		if *cb.Spec.Percentage > 0 {
			share = max(share, 1)
		}
		wanted = append(wanted, share)
	}
	replicas := int32(0)
	for _, w := range wanted {
		replicas = max(replicas, w)
	}
	if fit, limited := withinLimits(corev1.ResourceList(cb.Spec.Limits), resolution.Template.Spec); limited {
		if len(wanted) == 0 {
			return fit
		}
		replicas = min(replicas, fit)
	}
	return replicas
}

// withinLimits is how many pods of spec fit in limits, by every resource both name; limited
// is false when they name none in common.
func withinLimits(limits corev1.ResourceList, spec corev1.PodSpec) (int32, bool) {
	if len(limits) == 0 {
		return 0, false
	}
	requests := resources.PodRequests(&corev1.Pod{Spec: spec})
	fit, limited := int64(math.MaxInt32), false
	for name, limit := range limits {
		request, ok := requests[name]
		if !ok || request.IsZero() {
			continue
		}
		limited = true
		fit = min(fit, limit.MilliValue()/request.MilliValue())
	}
	return int32(fit), limited //nolint:gosec // at most MaxInt32
}

// Status is the buffer's status after resolving it (resolution, or err when that failed):
// ReadyForProvisioning with its reason, the replicas and the PodTemplate observed. The
// Provisioning condition is provisioning's, kept as it is.
func Status(cb *autoscalingv1beta1.CapacityBuffer, resolution *Resolution, err error, now metav1.Time) autoscalingv1beta1.CapacityBufferStatus {
	status := *cb.Status.DeepCopy()
	status.ProvisioningStrategy = cb.Spec.ProvisioningStrategy
	set := func(s metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: autoscalingv1beta1.ConditionReadyForProvisioning,
			Status: s, Reason: reason, Message: message, ObservedGeneration: cb.Generation, LastTransitionTime: now})
	}
	if strategy := cb.Spec.ProvisioningStrategy; strategy != nil && *strategy != autoscalingv1beta1.ActiveProvisioningStrategy {
		set(metav1.ConditionFalse, ReasonUnsupportedStrategy, fmt.Sprintf("provisioning strategy %q is not one this operator keeps capacity for (%s)", *strategy, autoscalingv1beta1.ActiveProvisioningStrategy))
		return status
	}
	if err != nil {
		reason := ReasonResolutionFailed
		if apierrors.IsNotFound(err) {
			reason = ReasonScalableRefNotFound
			if cb.Spec.PodTemplateRef != nil {
				reason = ReasonPodTemplateNotFound
			}
		}
		set(metav1.ConditionFalse, reason, err.Error())
		return status
	}
	status.PodTemplateRef, status.PodTemplateGeneration = nil, nil
	if resolution.PodTemplate != "" {
		status.PodTemplateRef = &autoscalingv1beta1.LocalObjectRef{Name: resolution.PodTemplate}
		status.PodTemplateGeneration = &resolution.PodTemplateGeneration
	}
	replicas := Replicas(cb, resolution)
	status.Replicas = &replicas
	set(metav1.ConditionTrue, ReasonResolved, "Pod template resolved successfully")
	return status
}

// Active says whether provisioning keeps room for the buffer: ReadyForProvisioning, with
// chunks.
func Active(cb *autoscalingv1beta1.CapacityBuffer) bool {
	return meta.IsStatusConditionTrue(cb.Status.Conditions, autoscalingv1beta1.ConditionReadyForProvisioning) &&
		cb.Status.Replicas != nil && *cb.Status.Replicas > 0
}

// VirtualPods are the buffer's chunks as pods to place: status.replicas pods of the template,
// unbound and unschedulable as the kube-scheduler leaves a pending pod, with the lowest
// priority, and without the volumes that would need a claim (a chunk is room, not storage).
func VirtualPods(cb *autoscalingv1beta1.CapacityBuffer, template corev1.PodTemplateSpec) []*corev1.Pod {
	if cb.Status.Replicas == nil {
		return nil
	}
	spec := virtualSpec(template.Spec)
	pods := make([]*corev1.Pod, 0, *cb.Status.Replicas)
	for i := range *cb.Status.Replicas {
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("capacity-buffer-%s-%d", cb.Name, i+1), Namespace: cb.Namespace,
				UID:    types.UID(fmt.Sprintf("%s-%d", cb.UID, i+1)),
				Labels: template.Labels,
				Annotations: map[string]string{
					VirtualPodAnnotation: "true", BufferNameAnnotation: cb.Name, BufferNamespaceAnnotation: cb.Namespace,
				},
				CreationTimestamp: cb.CreationTimestamp,
			},
			Spec: *spec.DeepCopy(),
			Status: corev1.PodStatus{
				Phase:      corev1.PodPending,
				Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}},
			},
		})
	}
	return pods
}

func virtualSpec(template corev1.PodSpec) corev1.PodSpec {
	spec := *template.DeepCopy()
	spec.NodeName = ""
	lowest := int32(math.MinInt32)
	spec.Priority = &lowest
	dropped := map[string]bool{}
	spec.Volumes = nil
	for _, volume := range template.Volumes {
		if volume.PersistentVolumeClaim != nil || volume.Ephemeral != nil {
			dropped[volume.Name] = true
			continue
		}
		spec.Volumes = append(spec.Volumes, volume)
	}
	unmount := func(containers []corev1.Container) {
		for i := range containers {
			var kept []corev1.VolumeMount
			for _, mount := range containers[i].VolumeMounts {
				if !dropped[mount.Name] {
					kept = append(kept, mount)
				}
			}
			containers[i].VolumeMounts = kept
		}
	}
	unmount(spec.Containers)
	unmount(spec.InitContainers)
	return spec
}

// IsVirtual says whether the pod is a buffer's chunk.
func IsVirtual(pod *corev1.Pod) bool { return pod.Annotations[VirtualPodAnnotation] == "true" }

// BufferOf names the buffer of a virtual pod; empty for another pod.
func BufferOf(pod *corev1.Pod) types.NamespacedName {
	if !IsVirtual(pod) {
		return types.NamespacedName{}
	}
	return types.NamespacedName{Namespace: pod.Annotations[BufferNamespaceAnnotation], Name: pod.Annotations[BufferNameAnnotation]}
}

// ReadVirtualPods lists the buffers and returns the virtual pods of those provisioning keeps
// room for (Active), each resolved again so that a template edited since the buffer's last
// reconcile counts as it is now. A buffer that no longer resolves is left out until its
// controller says why.
func ReadVirtualPods(ctx context.Context, reader client.Reader) ([]*autoscalingv1beta1.CapacityBuffer, []*corev1.Pod, error) {
	list := &autoscalingv1beta1.CapacityBufferList{}
	if err := reader.List(ctx, list); err != nil {
		return nil, nil, fmt.Errorf("listing CapacityBuffers: %w", err)
	}
	var buffers []*autoscalingv1beta1.CapacityBuffer
	var pods []*corev1.Pod
	for i := range list.Items {
		cb := &list.Items[i]
		buffers = append(buffers, cb)
		if !Active(cb) {
			continue
		}
		resolution, err := Resolve(ctx, reader, cb)
		if err != nil {
			log.FromContext(ctx).V(1).Info("leaving out a CapacityBuffer that does not resolve", "CapacityBuffer", client.ObjectKeyFromObject(cb), "error", err.Error())
			continue
		}
		pods = append(pods, VirtualPods(cb, resolution.Template)...)
	}
	return buffers, pods, nil
}

// Placement is how a provisioning pass placed one buffer's chunks: on nodes and NodeClaims
// that exist, on NodeClaims it opens, or nowhere.
type Placement struct {
	Existing, New, Failed int
}

// Placements counts, per buffer, where a provisioning pass placed its virtual pods.
func Placements(results simulation.Results) map[types.NamespacedName]*Placement {
	out := map[types.NamespacedName]*Placement{}
	count := func(pod *corev1.Pod, add func(*Placement)) {
		key := BufferOf(pod)
		if key.Name == "" {
			return
		}
		if out[key] == nil {
			out[key] = &Placement{}
		}
		add(out[key])
	}
	for _, placed := range results.Placed {
		if !placed.ExistingNode.IsZero() {
			count(placed.Pod, func(p *Placement) { p.Existing++ })
		} else {
			count(placed.Pod, func(p *Placement) { p.New++ })
		}
	}
	for pod := range results.PodErrors {
		count(pod, func(p *Placement) { p.Failed++ })
	}
	return out
}

// ProvisioningCondition is the buffer's Provisioning condition after a provisioning pass
// placed its chunks as placement says (nil when the pass placed none of them); nil when the
// condition stays as it is.
func ProvisioningCondition(cb *autoscalingv1beta1.CapacityBuffer, placement *Placement, now metav1.Time) *metav1.Condition {
	condition := func(s metav1.ConditionStatus, reason, message string) *metav1.Condition {
		return &metav1.Condition{Type: autoscalingv1beta1.ConditionProvisioning, Status: s, Reason: reason, Message: message,
			ObservedGeneration: cb.Generation, LastTransitionTime: now}
	}
	switch {
	case !meta.IsStatusConditionTrue(cb.Status.Conditions, autoscalingv1beta1.ConditionReadyForProvisioning):
		return condition(metav1.ConditionFalse, ReasonNotReadyForProvisioning, "Buffer is not ReadyForProvisioning")
	case cb.Status.Replicas == nil || *cb.Status.Replicas == 0:
		return condition(metav1.ConditionFalse, ReasonBufferEmpty, "Buffer has zero desired replicas")
	case placement == nil:
		return nil
	case placement.New > 0 || placement.Failed > 0:
		return condition(metav1.ConditionFalse, ReasonRequiresNewCapacity,
			fmt.Sprintf("%d/%d virtual pods required new capacity, %d failed", placement.New, *cb.Status.Replicas, placement.Failed))
	case placement.Existing == int(*cb.Status.Replicas):
		return condition(metav1.ConditionTrue, ReasonFitsExistingCapacity, fmt.Sprintf("All %d virtual pods fit on existing capacity", placement.Existing))
	}
	return nil
}
