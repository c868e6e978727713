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

// Package v1beta1 is the autoscaling.x-k8s.io/v1beta1 API's CapacityBuffer: spare capacity
// kept ready for pods that are not there yet, wire-compatible with the CapacityBuffer of
// Kubernetes' autoscalers, which upstream Karpenter serves behind its CapacityBuffer gate.
// +kubebuilder:object:generate=true
// +groupName=autoscaling.x-k8s.io
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of CapacityBuffer.
const Group = "autoscaling.x-k8s.io"

var (
	// GroupVersion is group version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: Group, Version: "v1beta1"}
	// SchemeBuilder adds this group-version's kinds to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &CapacityBuffer{}, &CapacityBufferList{})
		metav1.AddToGroupVersion(s, GroupVersion)
		return nil
	})
	// AddToScheme adds this group-version's kinds to the given scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
