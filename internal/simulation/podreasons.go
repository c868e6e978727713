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

import (
	"strings"
)

// NodePoolReason is why one NodePool could not take a pod.
type NodePoolReason struct {
	NodePool string `json:"nodePool"`
	Reason   string `json:"reason"`
}

// NodePoolsError is why no NodePool could take a pod: each NodePool's reason, in the order
// they were tried. Its text is what the pod's FailedScheduling event says, for people; code
// reads Reasons (whatif pod answers with them).
type NodePoolsError struct {
	Reasons []NodePoolReason
}

// noNodePools is the text of a NodePoolsError without NodePools.
const noNodePools = "no nodepool to launch capacity from"

func (e *NodePoolsError) Error() string {
	if len(e.Reasons) == 0 {
		return noNodePools
	}
	parts := make([]string, len(e.Reasons))
	for i, r := range e.Reasons {
		parts[i] = FormatNodePoolReason(r)
	}
	return strings.Join(parts, "; ")
}

// FormatNodePoolReason writes one NodePool's reason as a NodePoolsError does, for messages
// that add reasons of their own to one.
func FormatNodePoolReason(r NodePoolReason) string {
	return nodePoolPrefix + r.NodePool + ": " + r.Reason
}

const nodePoolPrefix = "nodepool "
