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

package instancetype

import (
	"maps"
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// kubeReservedCPUTiers are the default kube-reserved CPU, per vCPU, in hundredths of a percent
// of a core (basis points): the kubelet and the container runtime need a fixed slice of the
// first cores and little more as nodes grow. Each tier covers the cores up to and including
// upToCore; the last tier has no end.
var kubeReservedCPUTiers = []struct {
	upToCore    int64
	basisPoints int64
}{
	{upToCore: 1, basisPoints: 600},            // 6 % of the first core
	{upToCore: 2, basisPoints: 100},            // 1 % of the second
	{upToCore: 4, basisPoints: 50},             // 0.5 % of the third and fourth
	{upToCore: math.MaxInt64, basisPoints: 25}, // 0.25 % of every core above four
}

// Default kube-reserved memory and ephemeral storage. Memory has a fixed part for the kubelet
// and the runtime and a part per pod the node may run (sandboxes, cgroups, kubelet
// bookkeeping); the ephemeral storage holds their logs and state.
const (
	kubeReservedMemoryBaseMiB       = 255
	kubeReservedMemoryPerPodMiB     = 11
	kubeReservedEphemeralStorageGiB = 1
)

// kubeletDefaultEvictionHard are the kubelet's own hard eviction thresholds on Linux, by
// signal. A kubelet given --eviction-hard sets every signal the flag does not name to zero, so
// the join script names them all: these, with the KCNodeClass's own in their place.
var kubeletDefaultEvictionHard = map[string]string{
	"memory.available":   "100Mi",
	"nodefs.available":   "10%",
	"nodefs.inodesFree":  "5%",
	"imagefs.available":  "15%",
	"imagefs.inodesFree": "5%",
}

// newOverhead returns what the kubelet and the system hold back on a node with this capacity:
// the default kube-reserved, with each resource the node class's kubelet settings name
// replaced, their system-reserved, and the hard eviction thresholds of memory and nodefs.
func newOverhead(capacity corev1.ResourceList, k kubeletSettings) cloudprovider.Overhead {
	kubeReserved := make(corev1.ResourceList, len(reservableResources))
	kubeReserved[corev1.ResourceCPU] = *resource.NewMilliQuantity(kubeReservedMilliCPU(capacity.Cpu().Value()), resource.DecimalSI)
	kubeReserved[corev1.ResourceMemory] = *resource.NewQuantity((kubeReservedMemoryBaseMiB+kubeReservedMemoryPerPodMiB*capacity.Pods().Value())*mebibyte, resource.BinarySI)
	kubeReserved[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(kubeReservedEphemeralStorageGiB<<30, resource.BinarySI)
	// Deep copies, here and below: a parsed quantity may hold a pointer to its decimal value,
	// and every instance type must own its lists, which callers may change.
	for name, q := range k.kubeReserved {
		kubeReserved[name] = q.DeepCopy()
	}

	// Nothing is reserved for system daemons unless the node class says so: KakaoCloud's
	// worker images run few of them, and the kubelet reserves nothing by default either.
	systemReserved := k.systemReserved.DeepCopy()
	if systemReserved == nil {
		systemReserved = corev1.ResourceList{}
	}

	eviction := make(corev1.ResourceList, len(k.evictionHard))
	for name, threshold := range k.evictionHard {
		eviction[name] = threshold.of(capacity[name])
	}

	return cloudprovider.Overhead{KubeReserved: kubeReserved, SystemReserved: systemReserved, EvictionThreshold: eviction}
}

// kubeReservedMilliCPU is the default kube-reserved CPU of a node with vcpus cores, in
// millicores, rounded up.
func kubeReservedMilliCPU(vcpus int64) int64 {
	var basisPoints, counted int64
	for _, tier := range kubeReservedCPUTiers {
		cores := min(vcpus, tier.upToCore) - counted
		if cores <= 0 {
			break
		}
		basisPoints += cores * tier.basisPoints
		counted += cores
	}
	// A basis point of a core is a tenth of a millicore.
	return (basisPoints + 9) / 10
}

// KubeletReservations is what the model of an instance type assumes its node's kubelet holds
// back, in the form of the kubelet's flags. The join script passes exactly this, so that the
// node reports the allocatable the model computed rather than what a worker image's defaults
// would give.
type KubeletReservations struct {
	// MaxPods is the pods capacity: maxPods, capped by podsPerCore.
	MaxPods        int64
	KubeReserved   corev1.ResourceList
	SystemReserved corev1.ResourceList
	// EvictionHard is every hard eviction threshold by signal, as written ("10%", "100Mi"):
	// the kubelet's defaults with the node class's own in their place.
	EvictionHard map[string]string
}

// Reservations returns what a node of instance type it, listed for nodeClass, must be told to
// hold back. Invalid kubelet settings of the node class are left out here as in the model
// (List reports them): their defaults apply to both.
func Reservations(nodeClass *kcv1.KCNodeClass, it *cloudprovider.InstanceType) KubeletReservations {
	kubelet, _ := parseKubelet(nodeClass.Spec.Kubelet)
	return KubeletReservations{
		MaxPods:        it.Capacity.Pods().Value(),
		KubeReserved:   it.Overhead.KubeReserved.DeepCopy(),
		SystemReserved: it.Overhead.SystemReserved.DeepCopy(),
		EvictionHard:   maps.Clone(kubelet.evictionHardSignals),
	}
}
