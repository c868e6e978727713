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

package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Provisioning strategies, conditions and the kinds a scalableRef may name.
const (
	// ActiveProvisioningStrategy keeps the buffer's capacity as nodes ready for its pods: the
	// strategy when none is given, and the only one this operator acts on.
	ActiveProvisioningStrategy = "buffer.x-k8s.io/active-capacity"

	// ConditionReadyForProvisioning is True once the buffer's pod template and replicas are
	// known.
	ConditionReadyForProvisioning = "ReadyForProvisioning"
	// ConditionProvisioning is True when the buffer's capacity is there: every one of its
	// chunks fits the nodes and NodeClaims that exist.
	ConditionProvisioning = "Provisioning"

	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindReplicaSet  = "ReplicaSet"
)

// CapacityBuffer keeps room for a number of pods of a template (its chunks) on nodes, ahead
// of the pods themselves.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=capacitybuffers,scope=Namespaced,shortName=cb,categories=autoscaling
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Strategy",type="string",JSONPath=".spec.provisioningStrategy",description="How the buffer's capacity is kept."
// +kubebuilder:printcolumn:name="PodTemplate",type="string",JSONPath=".status.podTemplateRef.name",description="The PodTemplate the chunks are shaped by."
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".status.replicas",description="The chunks kept."
// +kubebuilder:printcolumn:name="ConditionsType",type="string",JSONPath=".status.conditions[*].type",description="Condition types."
// +kubebuilder:printcolumn:name="ConditionsStatus",type="string",JSONPath=".status.conditions[*].status",description="Condition statuses."
// +kubebuilder:printcolumn:name="ConditionsReason",type="string",JSONPath=".status.conditions[*].reason",description="Condition reasons."
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type CapacityBuffer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec CapacityBufferSpec `json:"spec"`
	// +optional
	Status CapacityBufferStatus `json:"status,omitempty"`
}

// Limits bound the resources of a buffer's chunks together.
type Limits corev1.ResourceList

// LocalObjectRef names an object in the buffer's namespace.
type LocalObjectRef struct {
	// name of the object.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// ScalableRef names a workload in the buffer's namespace whose pod template shapes the chunks
// and whose replicas a percentage is taken of.
type ScalableRef struct {
	// apiGroup of the workload; apps when empty.
	// +optional
	APIGroup string `json:"apiGroup,omitempty"`
	// kind of the workload: Deployment, StatefulSet or ReplicaSet.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
	// name of the workload.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// CapacityBufferSpec is what the buffer keeps room for.
// +kubebuilder:validation:XValidation:rule="!has(self.podTemplateRef) || has(self.replicas) || has(self.limits)",message="If podTemplateRef is set, replicas or limits must also be set"
// +kubebuilder:validation:XValidation:rule="!(has(self.podTemplateRef) && has(self.scalableRef))",message="You must define either PodTemplateRef or ScalableRef, but not both"
type CapacityBufferSpec struct {
	// provisioningStrategy says how the capacity is kept; buffer.x-k8s.io/active-capacity
	// when empty.
	// +optional
	ProvisioningStrategy *string `json:"provisioningStrategy,omitempty"`
	// podTemplateRef names the PodTemplate each chunk is a pod of.
	// +optional
	PodTemplateRef *LocalObjectRef `json:"podTemplateRef,omitempty"`
	// scalableRef names the workload each chunk is a pod of.
	// +optional
	ScalableRef *ScalableRef `json:"scalableRef,omitempty"`
	// replicas is the number of chunks. With percentage, the larger of the two; with limits,
	// no more than they allow.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`
	// percentage of the scalableRef workload's replicas to keep chunks for, rounded up, at
	// least 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Percentage *int32 `json:"percentage,omitempty"`
	// limits bound the chunks' requests together: no more chunks than fit in them.
	// +optional
	Limits Limits `json:"limits,omitempty"`
}

// CapacityBufferStatus is what the operator made of the buffer.
type CapacityBufferStatus struct {
	// podTemplateRef is the PodTemplate the chunks were built from, when the buffer names one.
	// +optional
	PodTemplateRef *LocalObjectRef `json:"podTemplateRef,omitempty"`
	// replicas is the number of chunks kept.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// podTemplateGeneration is the generation of that PodTemplate.
	// +optional
	PodTemplateGeneration *int64 `json:"podTemplateGeneration,omitempty"`
	// conditions: ReadyForProvisioning and Provisioning.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// provisioningStrategy is the strategy the operator read from the spec.
	// +optional
	ProvisioningStrategy *string `json:"provisioningStrategy,omitempty"`
}

// CapacityBufferList is a list of CapacityBuffers.
// +kubebuilder:object:root=true
type CapacityBufferList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CapacityBuffer `json:"items"`
}
