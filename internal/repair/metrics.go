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

import "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"

// Upstream Karpenter's name and labels. Both repairers count in it, through RecordRepair.
var unhealthyDisrupted = metrics.Counter("karpenter_nodeclaims_unhealthy_disrupted_total",
	"NodeClaims deleted by node repair, by the node condition that made them unhealthy, NodePool, capacity type, image and termination mode.",
	"condition", "nodepool", "capacity_type", "image_id", "termination_mode")
