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

	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
)

// The disruption loop's events. Their reasons are the engine's (internal/disruption's Reason
// constants, upstream Karpenter's where it has one), which kubectl karpenter why reads, and
// node repair's (internal/repair).

// action is the action of every event of the disruption loop.
const action = "Disrupt"

// nodeHeld says, on a NodeClaim or its Node, what keeps the node from being disrupted (or
// replaced) now; reason is the decision's (engine.ReasonDisruptionBlocked,
// engine.ReasonUnconsolidatable, engine.ReasonDisruptionReplacementFailed,
// repair.ReasonNodeRepairBlocked).
func nodeHeld(recorder events.EventRecorder, object runtime.Object, eventType, reason, message string) {
	recorder.Eventf(object, nil, eventType, reason, action, "%s", message)
}

// budgetBlocked says, on a NodePool, that its budgets allow no disruption now.
func budgetBlocked(recorder events.EventRecorder, nodePool runtime.Object, message string) {
	recorder.Eventf(nodePool, nil, corev1.EventTypeNormal, engine.ReasonDisruptionBlocked, action, "%s", message)
}

// repairing says, on an unhealthy node and its NodeClaim, why repair replaces it and how.
func repairing(recorder events.EventRecorder, object runtime.Object, message string) {
	recorder.Eventf(object, nil, corev1.EventTypeWarning, repair.ReasonNodeRepair, action, "%s", message)
}

// consolidationRejected says, on a node or its NodeClaim, that the consolidation command that
// would have removed it was given up after its validation, and why.
func consolidationRejected(recorder events.EventRecorder, object runtime.Object, message string) {
	recorder.Eventf(object, nil, corev1.EventTypeNormal, engine.ReasonConsolidationRejected, action, "%s", message)
}

// waitingReadiness says, on a replacement, that its command waits for it to initialize.
func waitingReadiness(recorder events.EventRecorder, replacement runtime.Object) {
	recorder.Eventf(replacement, nil, corev1.EventTypeNormal, engine.ReasonDisruptionWaitingReadiness, action, "Waiting on readiness to continue disruption")
}

// launching says a command launches the NodeClaim's replacements.
func launching(recorder events.EventRecorder, nodeClaim runtime.Object, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeNormal, engine.ReasonDisruptionLaunching, action, "%s", message)
}

// terminating says a command deletes the NodeClaim.
func terminating(recorder events.EventRecorder, nodeClaim runtime.Object, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeNormal, engine.ReasonDisruptionTerminating, action, "%s", message)
}

// consolidationApproved says, on a NodeClaim or its Node, what a Balanced NodePool's score of
// the move that removes it was.
func consolidationApproved(recorder events.EventRecorder, object runtime.Object, message string) {
	recorder.Eventf(object, nil, corev1.EventTypeNormal, engine.ReasonConsolidationApproved, action, "%s", message)
}

// podNotified tells a pod how its karpenter.sh/do-not-disrupt annotation stands.
func podNotified(recorder events.EventRecorder, notice engine.PodNotice) {
	eventType := corev1.EventTypeNormal
	if notice.Warning {
		eventType = corev1.EventTypeWarning
	}
	recorder.Eventf(notice.Pod, nil, eventType, notice.Reason, action, "%s", notice.Message)
}

// failed says a command for the NodeClaim was abandoned and rolled back.
func failed(recorder events.EventRecorder, nodeClaim runtime.Object, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, engine.ReasonDisruptionFailed, action, "%s", message)
}
