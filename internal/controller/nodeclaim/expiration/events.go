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

package expiration

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Event reasons of expiration.
const (
	// EventExpired: a NodeClaim is deleted because its expireAfter elapsed.
	EventExpired = "Expired"
)

// expired says the NodeClaim is deleted because it expired, and what happens to its pods.
func expired(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeNormal, EventExpired, "Expire", "%s", message)
}
