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

// Reasons of the NodeClaim and NodePool conditions, upstream Karpenter's where it has one.
const (
	// NodeClaim Launched, Registered, Initialized.
	ReasonLaunched       = "Launched"
	ReasonNodeNotFound   = "NodeNotFound"
	ReasonRegistered     = "Registered"
	ReasonNotInitialized = "NotInitialized"
	ReasonInitialized    = "Initialized"
	// NodeClaim InstanceTerminating.
	ReasonInstanceTerminating = "InstanceTerminating"
	// NodeClaim Drained: upstream's Unknown "Draining" while pods are still to go, then True.
	ReasonDraining = "Draining"
	ReasonDrained  = "Drained"
	// NodeClaim VolumesDetached: upstream's Unknown "AwaitingVolumeDetachment" while
	// VolumeAttachments of drained pods remain, True once they are gone, False
	// "TerminationGracePeriodElapsed" when the deadline came first.
	ReasonAwaitingVolumeDetachment      = "AwaitingVolumeDetachment"
	ReasonVolumesDetached               = "VolumesDetached"
	ReasonTerminationGracePeriodElapsed = "TerminationGracePeriodElapsed"
	// Ready of a NodeClaim or a NodePool, when every dependency is True; otherwise Ready takes
	// the reason of the first dependency that is not.
	ReasonReady = "Ready"
	// NodePool NodeClassReady: the KCNodeClass is ready, is missing, or has not been
	// reconciled once yet.
	ReasonNodeClassReady         = "NodeClassReady"
	ReasonNodeClassNotFound      = "NodeClassNotFound"
	ReasonAwaitingReconciliation = "AwaitingReconciliation"
	// NodePool ValidationSucceeded.
	ReasonValid   = "Valid"
	ReasonInvalid = "Invalid"
	// NodePool NodeRegistrationHealthy: the latest NodeClaims launched registered their node,
	// too many of them did not in time (upstream's reason), or none has either way since the
	// NodePool or its KCNodeClass last changed.
	ReasonNodesRegistered      = "NodesRegistered"
	ReasonRegistrationFailed   = "RegistrationFailed"
	ReasonAwaitingRegistration = "AwaitingRegistration"
)
