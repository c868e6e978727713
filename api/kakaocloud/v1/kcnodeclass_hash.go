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

package v1

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Annotations that record which static settings a KCNodeClass (and each NodeClaim launched
// from it) had, for drift detection.
const (
	AnnotationNodeClassHash        = Group + "/kcnodeclass-hash"
	AnnotationNodeClassHashVersion = Group + "/kcnodeclass-hash-version"
	// NodeClassHashVersion changes when the hash's inputs change, so that NodeClaims hashed
	// the old way are re-hashed instead of all drifting at once.
	NodeClassHashVersion = "v1"

	// AnnotationKubernetesVersion and AnnotationSubnetID record on a NodeClaim the worker
	// version and the subnet its VM was launched with, for drift detection.
	AnnotationKubernetesVersion = Group + "/kubernetes-version"
	AnnotationSubnetID          = Group + "/subnet-id"
	// AnnotationLaunchAttempt records on a NodeClaim, before each VM create, when the create
	// was tried (RFC 3339); a launch that finds it and no VM looks for the VM that create may
	// have made before creating another. It is removed when every create was refused.
	AnnotationLaunchAttempt = Group + "/launch-attempted-at"
)

// StaticHash hashes the settings that shape a VM and are fixed at launch: key pair, root
// volume, kubelet settings and user data. The Kubernetes version, images, subnets and
// security groups are compared with the VM itself instead, so they are not part of it.
func (in *KCNodeClass) StaticHash() string {
	static := struct {
		KeyPairName string                `json:"keyPairName,omitempty"`
		RootVolume  RootVolume            `json:"rootVolume"`
		Kubelet     *KubeletConfiguration `json:"kubelet,omitempty"`
		UserData    *string               `json:"userData,omitempty"`
	}{in.Spec.KeyPairName, in.Spec.RootVolume, in.Spec.Kubelet, in.Spec.UserData}
	// encoding/json writes struct fields in order and map keys sorted: a stable encoding.
	raw, err := json.Marshal(static)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}
