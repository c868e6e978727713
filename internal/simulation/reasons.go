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

package simulation

// The reasons provisioning publishes the simulation's decision about a pending pod under, as
// events on the pod: upstream Karpenter's. kubectl karpenter why finds the events by them.
const (
	// ReasonFailedScheduling is upstream Karpenter's (and the kube-scheduler's) reason for a
	// pod no node can be provisioned for.
	ReasonFailedScheduling = "FailedScheduling"
	// ReasonNominated is upstream's: where provisioning expects a pending pod to land, a node
	// or a NodeClaim in flight.
	ReasonNominated = "Nominated"
)
