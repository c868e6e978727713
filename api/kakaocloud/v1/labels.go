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

import karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"

// Labels the provider puts on every node it launches, derived from the KakaoCloud flavor.
// NodePools and pods may constrain all but LabelNodeClass.
const (
	LabelInstanceFamily   = Group + "/instance-family"    // m2a, c2a, r2a, ...
	LabelInstanceSize     = Group + "/instance-size"      // large, xlarge, ...
	LabelInstanceCPU      = Group + "/instance-cpu"       // vCPUs
	LabelInstanceMemory   = Group + "/instance-memory"    // MiB
	LabelInstanceGPUCount = Group + "/instance-gpu-count" // GPUs
	LabelInstanceGPUName  = Group + "/instance-gpu-name"  // e.g. a100
	// LabelNodeClass is the name of the KCNodeClass a node was launched from.
	LabelNodeClass = Group + "/kcnodeclass"
	// LabelSigningKey is the id of the signing key whose marker proves the node's VM is this
	// cluster's. During a keyring rotation, kubectl get nodeclaims -L with this key shows
	// which nodes still depend on the old key: it may leave the keyring once none does. It
	// is not schedulable.
	LabelSigningKey = Group + "/signing-key"
)

// ProviderIDPrefix starts the provider ID of KakaoCloud VMs: kakaocloud://<instance id>.
const ProviderIDPrefix = "kakaocloud://"

// WellKnownLabels are the provider's schedulable label keys.
var WellKnownLabels = []string{
	LabelInstanceFamily,
	LabelInstanceSize,
	LabelInstanceCPU,
	LabelInstanceMemory,
	LabelInstanceGPUCount,
	LabelInstanceGPUName,
	LabelNodeClass,
}

func init() {
	karpv1.RegisterWellKnownLabels(Group, WellKnownLabels...)
}
