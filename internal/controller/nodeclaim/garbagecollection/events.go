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

package garbagecollection

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Event reasons of NodeClaim garbage collection.
const (
	// EventInstanceGone: a NodeClaim is deleted because its VM is gone.
	EventInstanceGone = "InstanceGone"
)

// instanceGone says the NodeClaim is deleted because its VM is gone from KakaoCloud.
func instanceGone(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, EventInstanceGone, "GarbageCollect",
		"deleting the NodeClaim: its VM (%s) is gone from KakaoCloud", nodeClaim.Status.ProviderID)
}
