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

package repair

// Event reasons of node repair, on the node and its NodeClaim. Both the disruption loop's
// repair method and the legacy repair controller publish them, each through the event
// functions of its own events.go.
const (
	// ReasonNodeRepair: the node is unhealthy past its policy's toleration and is replaced.
	ReasonNodeRepair = "NodeRepair"
	// ReasonNodeRepairBlocked: the node is unhealthy but repair holds (circuit breaker, or
	// repair turned off for its NodePool).
	ReasonNodeRepairBlocked = "NodeRepairBlocked"
)
