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

package kakao

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// Event reasons of the KakaoCloud cloud provider.
const (
	// ReasonInstanceOwnershipUnverified: a NodeClaim's VM was left in place because it no
	// longer proves it is this cluster's.
	ReasonInstanceOwnershipUnverified = "InstanceOwnershipUnverified"
)

// ownershipUnverified says, on the NodeClaim, that its VM was not deleted and why.
func ownershipUnverified(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, instanceID string, err error) {
	if errors.Is(err, signing.ErrUnknownKey) {
		recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonInstanceOwnershipUnverified, "Delete",
			"VM %s was not deleted: it is signed with a key the signing keyring no longer holds; put that key back into the keyring Secret and the VM is deleted (%v)", instanceID, err)
		return
	}
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonInstanceOwnershipUnverified, "Delete",
		"VM %s was not deleted: its name or description was changed, so this cluster cannot prove it owns it; delete it by hand if it is this NodeClaim's (%v)", instanceID, err)
}
