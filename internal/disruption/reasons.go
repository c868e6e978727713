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

package disruption

// Reasons of the disruption loop's words on a node, a NodePool or a pod, upstream Karpenter's
// where it has one: a decision gives the first three in Blocked (and the DisruptionBlocked
// condition keeps them), the loop's events give them all, and kubectl karpenter why lists
// those of nodes.
const (
	// ReasonDisruptionBlocked: a node that would be disrupted is held by a do-not-disrupt
	// annotation, a PodDisruptionBudget or its NodePool's budgets.
	ReasonDisruptionBlocked = "DisruptionBlocked"
	// ReasonUnconsolidatable: consolidation looked at a node and found no cheaper arrangement.
	ReasonUnconsolidatable = "Unconsolidatable"
	// ReasonDisruptionReplacementFailed: a drifted node cannot be replaced (its pods fit
	// nowhere).
	ReasonDisruptionReplacementFailed = "DisruptionReplacementFailed"
	// ReasonDisruptionLaunching: a command launches the replacements of a node.
	ReasonDisruptionLaunching = "DisruptionLaunching"
	// ReasonDisruptionTerminating: a command deletes a node, its replacements ready.
	ReasonDisruptionTerminating = "DisruptionTerminating"
	// ReasonDisruptionFailed: a command was abandoned and rolled back.
	ReasonDisruptionFailed = "DisruptionFailed"
	// ReasonConsolidationApproved: a Balanced NodePool approved a consolidation move of the
	// node, with its score.
	ReasonConsolidationApproved = "ConsolidationApproved"
	// ReasonConsolidationRejected: a consolidation command no longer held when it was checked
	// again after the validation delay, and was given up.
	ReasonConsolidationRejected = "ConsolidationRejected"
	// ReasonDisruptionWaitingReadiness: a command waits for this replacement to initialize
	// before it deletes the nodes it replaces.
	ReasonDisruptionWaitingReadiness = "DisruptionWaitingReadiness"
	// On pods, upstream's: a karpenter.sh/do-not-disrupt duration holds the pod's node until
	// a time; it has elapsed; the annotation's value is not valid.
	ReasonDoNotDisruptUntil              = "DoNotDisruptUntil"
	ReasonDoNotDisruptGracePeriodElapsed = "DoNotDisruptGracePeriodElapsed"
	ReasonInvalidDoNotDisruptAnnotation  = "InvalidDoNotDisruptAnnotation"
)
