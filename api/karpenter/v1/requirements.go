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

package v1

import corev1 "k8s.io/api/core/v1"

// Operators a requirement may use: the Kubernetes node selector operators plus the inclusive
// numeric comparisons upstream Karpenter added.
const (
	NodeSelectorOpIn           = corev1.NodeSelectorOpIn
	NodeSelectorOpNotIn        = corev1.NodeSelectorOpNotIn
	NodeSelectorOpExists       = corev1.NodeSelectorOpExists
	NodeSelectorOpDoesNotExist = corev1.NodeSelectorOpDoesNotExist
	NodeSelectorOpGt           = corev1.NodeSelectorOpGt
	NodeSelectorOpLt           = corev1.NodeSelectorOpLt
	NodeSelectorOpGte          = corev1.NodeSelectorOperator("Gte")
	NodeSelectorOpLte          = corev1.NodeSelectorOperator("Lte")
)

// NodeSelectorRequirementWithMinValues is a node selector requirement with an optional minimum
// number of distinct values the launched capacity must stay flexible across.
//
// The key rules below keep NodePools portable and safe: keys the controller owns and keys of
// other cloud providers are refused with a message that names what to use instead. Keys of
// Kubernetes' own domains (kubernetes.io, k8s.io) are custom keys like any other, as upstream
// Karpenter has them since it lifted that restriction: the controller sets them on the node
// at registration, where the kubelet may not.
// +kubebuilder:validation:XValidation:rule="self.key != 'kubernetes.io/hostname'",message="label \"kubernetes.io/hostname\" is restricted"
// +kubebuilder:validation:XValidation:rule="!self.key.find('^[^/]*/').endsWith('karpenter.sh/') || self.key in ['karpenter.sh/capacity-type', 'karpenter.sh/nodepool']",messageExpression="'label domain \"karpenter.sh\" is restricted: only karpenter.sh/capacity-type may be used, not ' + self.key"
// +kubebuilder:validation:XValidation:rule="!self.key.find('^[^/]*/').endsWith('karpenter.kakaocloud.com/') || self.key in ['karpenter.kakaocloud.com/instance-family', 'karpenter.kakaocloud.com/instance-size', 'karpenter.kakaocloud.com/instance-cpu', 'karpenter.kakaocloud.com/instance-memory', 'karpenter.kakaocloud.com/instance-gpu-count', 'karpenter.kakaocloud.com/instance-gpu-name', 'karpenter.kakaocloud.com/kcnodeclass']",messageExpression="'label domain \"karpenter.kakaocloud.com\" is restricted: ' + self.key + ' is not one of karpenter.kakaocloud.com/instance-family, instance-size, instance-cpu, instance-memory, instance-gpu-count, instance-gpu-name'"
// +kubebuilder:validation:XValidation:rule="!(self.key.startsWith('karpenter.') && self.key.contains('/') && !self.key.startsWith('karpenter.sh/') && !self.key.startsWith('karpenter.kakaocloud.com/')) && !self.key.find('^[^/]*/').endsWith('.amazonaws.com/') && !self.key.find('^[^/]*/').endsWith('.azure.com/') && !self.key.find('^[^/]*/').endsWith('cloud.google.com/')",messageExpression="'requirement key ' + self.key + ' belongs to another cloud provider; on KakaoCloud use node.kubernetes.io/instance-type, topology.kubernetes.io/zone or karpenter.kakaocloud.com/instance-family, instance-size, instance-cpu, instance-memory, instance-gpu-count, instance-gpu-name'"
// +kubebuilder:validation:XValidation:rule="self.operator != 'In' || (has(self.values) && size(self.values) != 0)",message="requirements with operator 'In' must have a value defined"
// +kubebuilder:validation:XValidation:rule="!(self.operator in ['Gt', 'Lt', 'Gte', 'Lte']) || (has(self.values) && size(self.values) == 1 && self.values[0].matches('^[0-9]+$'))",message="requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"
// +kubebuilder:validation:XValidation:rule="!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",message="requirements with operator 'Exists' or 'DoesNotExist' must not have values"
// +kubebuilder:validation:XValidation:rule="!has(self.minValues) || self.operator != 'In' || (has(self.values) && size(self.values) >= self.minValues)",message="requirements with 'minValues' must have at least that many values specified in the 'values' field"
type NodeSelectorRequirementWithMinValues struct {
	// key is the label key that the requirement applies to: a qualified name, as node labels
	// take it (the prefix a lowercase DNS subdomain).
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$`
	// +kubebuilder:validation:XValidation:rule="self.indexOf('/') <= 253 && self.size() - self.indexOf('/') - 1 <= 63",message="requirement keys must be qualified names: a prefix of at most 253 characters before the '/', and at most 63 after it"
	// +required
	Key string `json:"key"`
	// operator relates the key to the values.
	// +kubebuilder:validation:Enum={In,NotIn,Exists,DoesNotExist,Gt,Lt,Gte,Lte}
	// +required
	Operator corev1.NodeSelectorOperator `json:"operator"`
	// values is the set of values for In and NotIn, or a single integer for Gt, Lt, Gte and Lte.
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	// +listType=atomic
	// +optional
	Values []string `json:"values,omitempty"`
	// minValues is the minimum number of distinct values of the key that the instance types a
	// NodeClaim may launch must cover. This field is ALPHA.
	// +kubebuilder:validation:Minimum:=1
	// +kubebuilder:validation:Maximum:=50
	// +optional
	MinValues *int `json:"minValues,omitempty"`
}

// NodeSelectorRequirement returns the requirement without its minimum, in the shape the
// Kubernetes node-affinity helpers take. Gte and Lte are kept as they are; callers that hand
// the result to Kubernetes code must translate them first.
func (r NodeSelectorRequirementWithMinValues) NodeSelectorRequirement() corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: append([]string(nil), r.Values...)}
}
