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

// KCNodeClass condition types. Ready summarises the others except two informational ones:
// KubernetesVersionDeprecated (a version Kubernetes Engine no longer offers keeps working for
// existing node classes) and NodesOnControlPlaneVersion (whether Kubernetes Engine would let
// the control plane be upgraded now, as far as this node class's nodes go).
const (
	ConditionTypeReady                       = "Ready"
	ConditionTypeKubernetesVersionReady      = "KubernetesVersionReady"
	ConditionTypeImagesReady                 = "ImagesReady"
	ConditionTypeSubnetsReady                = "SubnetsReady"
	ConditionTypeSecurityGroupsReady         = "SecurityGroupsReady"
	ConditionTypeKubernetesVersionDeprecated = "KubernetesVersionDeprecated"
	ConditionTypeNodesOnControlPlaneVersion  = "NodesOnControlPlaneVersion"
)

// Condition reasons of KCNodeClass.
const (
	// KubernetesVersionReady
	ReasonVersionSupported       = "VersionSupported"
	ReasonVersionSkewUnsupported = "VersionSkewUnsupported"
	ReasonControlPlaneUpgrading  = "ControlPlaneUpgrading"
	ReasonClusterUnavailable     = "ClusterUnavailable"

	// ImagesReady
	ReasonImagesResolved = "ImagesResolved"
	ReasonImagesRetained = "ImagesRetained"
	ReasonImagePinned    = "ImagePinned"
	ReasonImagesNotFound = "ImagesNotFound"

	// SubnetsReady and SecurityGroupsReady
	ReasonSubnetsResolved        = "SubnetsResolved"
	ReasonSubnetsNotFound        = "SubnetsNotFound"
	ReasonSecurityGroupsResolved = "SecurityGroupsResolved"
	ReasonSecurityGroupsNotFound = "SecurityGroupsNotFound"

	// KubernetesVersionDeprecated
	ReasonWorkerVersionOffered    = "WorkerVersionOffered"
	ReasonWorkerVersionNotOffered = "WorkerVersionNotOffered"

	// NodesOnControlPlaneVersion (Unknown with ReasonClusterUnavailable when the control
	// plane's version is not known)
	ReasonAllNodesOnControlPlaneVersion = "AllNodesOnControlPlaneVersion"
	ReasonNodesOffControlPlaneVersion   = "NodesOffControlPlaneVersion"
	ReasonNodeVersionsUnknown           = "NodeVersionsUnknown"

	// Ready, when every dependency is True; otherwise Ready takes the reason of the first
	// dependency that is not.
	ReasonReady = "Ready"
)

// ReadyDependencies are the conditions that must all be True for Ready to be True.
var ReadyDependencies = []string{
	ConditionTypeKubernetesVersionReady,
	ConditionTypeImagesReady,
	ConditionTypeSubnetsReady,
	ConditionTypeSecurityGroupsReady,
}
