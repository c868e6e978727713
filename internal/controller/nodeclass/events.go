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

package nodeclass

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
)

// Event reasons of the KCNodeClass controller. A condition that turns on publishes the
// condition's own reason (kcv1.Reason*).
const (
	// ReasonWaitingOnReferences: a KCNodeClass being deleted waits for the NodePools and
	// NodeClaims that use it.
	ReasonWaitingOnReferences = "WaitingOnReferences"
)

// conditionTurnedOn says a problem condition of the KCNodeClass turned on, with its reason.
func conditionTurnedOn(recorder events.EventRecorder, nodeClass *kcv1.KCNodeClass, reason, message string) {
	recorder.Eventf(nodeClass, nil, corev1.EventTypeWarning, reason, "Reconcile", "%s", message)
}

// waitingOnReferences says what the KCNodeClass's deletion waits for.
func waitingOnReferences(recorder events.EventRecorder, nodeClass *kcv1.KCNodeClass, message string) {
	recorder.Eventf(nodeClass, nil, corev1.EventTypeNormal, ReasonWaitingOnReferences, "Delete", "%s", message)
}
