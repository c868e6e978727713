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

package health

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
)

// The legacy repair controller's events, on the node and its NodeClaim, with the reasons of
// node repair (repair.Reason*), which the disruption loop's repair method publishes too.

// repairing says why the node is replaced and what happens to its pods.
func repairing(recorder events.EventRecorder, node *corev1.Node, nodeClaim *karpv1.NodeClaim, message string) {
	recorder.Eventf(node, nil, corev1.EventTypeWarning, repair.ReasonNodeRepair, "Repair", "%s", message)
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, repair.ReasonNodeRepair, "Repair", "%s", message)
}

// repairHeld says why an unhealthy node is not replaced now.
func repairHeld(recorder events.EventRecorder, node *corev1.Node, nodeClaim *karpv1.NodeClaim, message string) {
	recorder.Eventf(node, nil, corev1.EventTypeWarning, repair.ReasonNodeRepairBlocked, "Repair", "%s", message)
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, repair.ReasonNodeRepairBlocked, "Repair", "%s", message)
}
