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
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

var (
	// nodeClaimsLaunched is this provider's: upstream has no such family.
	nodeClaimsLaunched = metrics.Counter("karpenter_nodeclaims_launched_total",
		"NodeClaims whose VM was created, by NodePool.",
		"nodepool")
	// nodeClaimsTerminated is upstream's, with its labels.
	nodeClaimsTerminated = metrics.Counter("karpenter_nodeclaims_terminated_total",
		"NodeClaims whose VM and node were deleted, by NodePool, capacity type and zone.",
		"nodepool", "capacity_type", "zone")
)
