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

package static

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Event reasons of static NodePools, on the NodePool.
const (
	// ReasonScaledUp: NodeClaims were created to reach spec.replicas.
	ReasonScaledUp = "ScaledUp"
	// ReasonScaledDown: NodeClaims were deleted to come down to spec.replicas.
	ReasonScaledDown = "ScaledDown"
	// ReasonScaleUpWaiting: the NodePool has fewer nodes than spec.replicas and cannot create
	// more now (not Ready, or at limits.nodes).
	ReasonScaleUpWaiting = "ScaleUpWaiting"
)

func scaled(recorder events.EventRecorder, nodePool *karpv1.NodePool, reason, message string) {
	recorder.Eventf(nodePool, nil, corev1.EventTypeNormal, reason, "Scale", "%s", message)
}

func scaleUpWaiting(recorder events.EventRecorder, nodePool *karpv1.NodePool, message string) {
	recorder.Eventf(nodePool, nil, corev1.EventTypeWarning, ReasonScaleUpWaiting, "Scale", "%s", message)
}
