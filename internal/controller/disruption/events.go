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

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
)

// Event reasons of the disruption loop, upstream Karpenter's where it has one.
const (
	// EventDisruptionBlocked: a node that would be disrupted is held by a do-not-disrupt
	// annotation, a PodDisruptionBudget or its NodePool's budgets.
	EventDisruptionBlocked = "DisruptionBlocked"
	// EventUnconsolidatable: consolidation looked at a node and found no cheaper arrangement.
	EventUnconsolidatable = "Unconsolidatable"
	// EventDisruptionReplacementFailed: a drifted node cannot be replaced (its pods fit
	// nowhere).
	EventDisruptionReplacementFailed = "DisruptionReplacementFailed"
	// EventDisruptionLaunching: a command launches the replacements of a node.
	EventDisruptionLaunching = "DisruptionLaunching"
	// EventDisruptionTerminating: a command deletes a node, its replacements ready.
	EventDisruptionTerminating = "DisruptionTerminating"
	// EventDisruptionFailed: a command was abandoned and rolled back.
	EventDisruptionFailed = "DisruptionFailed"
	// EventConsolidationApproved: a Balanced NodePool approved a consolidation move of the
	// node, with its score.
	EventConsolidationApproved = "ConsolidationApproved"
	// EventConsolidationRejected: a consolidation command no longer held when it was checked
	// again after the validation delay, and was given up.
	EventConsolidationRejected = "ConsolidationRejected"
	// EventDisruptionWaitingReadiness: a command waits for this replacement to initialize
	// before it deletes the nodes it replaces.
	EventDisruptionWaitingReadiness = "DisruptionWaitingReadiness"
	// On pods, upstream's: a karpenter.sh/do-not-disrupt duration holds the pod's node until
	// a time; it has elapsed; the annotation's value is not valid.
	EventDoNotDisruptUntil              = "DoNotDisruptUntil"
	EventDoNotDisruptGracePeriodElapsed = "DoNotDisruptGracePeriodElapsed"
	EventInvalidDoNotDisruptAnnotation  = "InvalidDoNotDisruptAnnotation"
)

// action is the action of every event of the disruption loop.
const action = "Disrupt"

// nodeHeld says, on a NodeClaim or its Node, what keeps the node from being disrupted (or
// replaced) now; reason is one of the loop's (EventDisruptionBlocked, EventUnconsolidatable,
// EventDisruptionReplacementFailed).
func nodeHeld(recorder events.EventRecorder, object runtime.Object, eventType, reason, message string) {
	recorder.Eventf(object, nil, eventType, reason, action, "%s", message)
}

// budgetBlocked says, on a NodePool, that its budgets allow no disruption now.
func budgetBlocked(recorder events.EventRecorder, nodePool runtime.Object, message string) {
	recorder.Eventf(nodePool, nil, corev1.EventTypeNormal, EventDisruptionBlocked, action, "%s", message)
}

// repairing says, on an unhealthy node and its NodeClaim, why repair replaces it and how.
func repairing(recorder events.EventRecorder, object runtime.Object, message string) {
	recorder.Eventf(object, nil, corev1.EventTypeWarning, repair.ReasonNodeRepair, action, "%s", message)
}

// consolidationRejected says, on a node or its NodeClaim, that the consolidation command that
// would have removed it was given up after its validation, and why.
func consolidationRejected(recorder events.EventRecorder, object runtime.Object, message string) {
	recorder.Eventf(object, nil, corev1.EventTypeNormal, EventConsolidationRejected, action, "%s", message)
}

// waitingReadiness says, on a replacement, that its command waits for it to initialize.
func waitingReadiness(recorder events.EventRecorder, replacement runtime.Object) {
	recorder.Eventf(replacement, nil, corev1.EventTypeNormal, EventDisruptionWaitingReadiness, action, "Waiting on readiness to continue disruption")
}

// launching says a command launches the NodeClaim's replacements.
func launching(recorder events.EventRecorder, nodeClaim runtime.Object, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeNormal, EventDisruptionLaunching, action, "%s", message)
}

// terminating says a command deletes the NodeClaim.
func terminating(recorder events.EventRecorder, nodeClaim runtime.Object, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeNormal, EventDisruptionTerminating, action, "%s", message)
}

// consolidationApproved says, on a NodeClaim or its Node, what a Balanced NodePool's score of
// the move that removes it was.
func consolidationApproved(recorder events.EventRecorder, object runtime.Object, message string) {
	recorder.Eventf(object, nil, corev1.EventTypeNormal, EventConsolidationApproved, action, "%s", message)
}

// podNotified tells a pod how its karpenter.sh/do-not-disrupt annotation stands.
func podNotified(recorder events.EventRecorder, notice PodNotice) {
	eventType := corev1.EventTypeNormal
	if notice.Warning {
		eventType = corev1.EventTypeWarning
	}
	recorder.Eventf(notice.Pod, nil, eventType, notice.Reason, action, "%s", notice.Message)
}

// failed says a command for the NodeClaim was abandoned and rolled back.
func failed(recorder events.EventRecorder, nodeClaim runtime.Object, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, EventDisruptionFailed, action, "%s", message)
}
