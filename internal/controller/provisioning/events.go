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

package provisioning

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// Event reasons of provisioning.
const (
	// ReasonFailedScheduling and ReasonNominated are the simulation's decisions about a pod,
	// which kubectl karpenter why reads back.
	ReasonFailedScheduling = simulation.ReasonFailedScheduling
	ReasonNominated        = simulation.ReasonNominated
	// ReasonNoCompatibleInstanceTypes is upstream's: a NodePool whose requirements leave none of
	// its instance types.
	ReasonNoCompatibleInstanceTypes = "NoCompatibleInstanceTypes"
)

// noCompatibleInstanceTypes tells a NodePool that its requirements leave it nothing to
// launch.
func noCompatibleInstanceTypes(recorder events.EventRecorder, nodePool runtime.Object) {
	recorder.Eventf(nodePool, nil, corev1.EventTypeWarning, ReasonNoCompatibleInstanceTypes, "Provision",
		"NodePool requirements filtered out all compatible available instance types")
}

// nominated tells a pending pod where provisioning expects it to land. The note words it as
// upstream Karpenter does (nodeclaim/NAME or node/NAME); the event's related object is the
// NodeClaim or node itself (kind, name and UID), which is what kubectl karpenter why reads.
func nominated(recorder events.EventRecorder, pod *corev1.Pod, where destination.Destination) {
	recorder.Eventf(pod, where.Object(), corev1.EventTypeNormal, ReasonNominated, "Provision", "Pod should schedule on: %s", where)
}

// failedScheduling tells the pod why provisioning gives it no node, as upstream Karpenter
// words it.
func failedScheduling(recorder events.EventRecorder, pod *corev1.Pod, why string) {
	recorder.Eventf(pod, nil, corev1.EventTypeWarning, ReasonFailedScheduling, "Provision", "Failed to schedule pod, %s", why)
}
