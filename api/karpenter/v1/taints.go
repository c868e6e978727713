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
	"strings"

	corev1 "k8s.io/api/core/v1"
)

var (
	// DisruptedNoScheduleTaint is put on a node chosen for disruption or termination so that
	// no new pods land on it while it is drained.
	DisruptedNoScheduleTaint = corev1.Taint{Key: Group + "/disrupted", Effect: corev1.TaintEffectNoSchedule}
	// UnregisteredNoExecuteTaint is expected on a node when its kubelet registers; the
	// controller removes it once it has synced the NodeClaim's labels and taints.
	UnregisteredNoExecuteTaint = corev1.Taint{Key: Group + "/unregistered", Effect: corev1.TaintEffectNoExecute}
)

// EphemeralTaints are the taints a new node carries until it is ready for pods (the node
// lifecycle controller's, the cloud provider's, and karpenter.sh/unregistered). Initialization
// waits for them to go, and provisioning counts a node that is not initialized yet as if they
// were gone: the pods it was launched for wait for it.
var EphemeralTaints = []corev1.Taint{
	{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.cloudprovider.kubernetes.io/uninitialized", Effect: corev1.TaintEffectNoSchedule},
	UnregisteredNoExecuteTaint,
}

// EphemeralTaintKeyPrefixes are the key prefixes of taint families a controller puts on new
// nodes and takes off once its rule holds, ephemeral too: the Node Readiness Controller's
// readiness.k8s.io/<rule>, as upstream Karpenter counts them.
var EphemeralTaintKeyPrefixes = []string{"readiness.k8s.io/"}

// IsEphemeralTaint reports whether a taint is one a new node carries until it is ready for
// pods: one of EphemeralTaints, or of a family of EphemeralTaintKeyPrefixes.
func IsEphemeralTaint(t corev1.Taint) bool {
	for _, e := range EphemeralTaints {
		if e.MatchTaint(&t) {
			return true
		}
	}
	for _, prefix := range EphemeralTaintKeyPrefixes {
		if strings.HasPrefix(t.Key, prefix) {
			return true
		}
	}
	return false
}
