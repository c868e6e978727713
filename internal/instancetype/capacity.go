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
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// ResourceNvidiaGPU is the extended resource the NVIDIA device plugin advertises on GPU nodes.
const ResourceNvidiaGPU corev1.ResourceName = "nvidia.com/gpu"

// hypervisorMemoryOverheadBasisPoints is the share of a flavor's memory_mb the guest never
// sees (firmware, kernel reservations, hypervisor bookkeeping), in hundredths of a percent:
// 750 = 7.5 %. It is the AWS provider's figure, kept until it is measured on KakaoCloud VMs
// (compare memory_mb with a node's reported memory capacity). Basis points keep the
// arithmetic exact.
const hypervisorMemoryOverheadBasisPoints = 750

// defaultRootVolumeGiB is the CRD default of spec.rootVolume.sizeGiB, for node classes built
// without the API server's defaulting (tests, tools).
const defaultRootVolumeGiB = 50

const mebibyte = 1 << 20

// newCapacity returns what a node of flavor f reports as capacity, for the node class
// settings s: cpu, memory, pods, ephemeral-storage and, for GPU flavors, nvidia.com/gpu.
func newCapacity(f kakaocloud.Flavor, s nodeClassSettings) corev1.ResourceList {
	capacity := make(corev1.ResourceList, 5)
	capacity[corev1.ResourceCPU] = *resource.NewQuantity(int64(f.VCPUs), resource.DecimalSI)
	capacity[corev1.ResourceMemory] = *resource.NewQuantity(guestMemoryMiB(f.MemoryMB)*mebibyte, resource.BinarySI)
	capacity[corev1.ResourceEphemeralStorage] = s.rootVolume
	capacity[corev1.ResourcePods] = *resource.NewQuantity(s.kubelet.pods(f.VCPUs), resource.DecimalSI)
	if isGPU(f) {
		capacity[ResourceNvidiaGPU] = *resource.NewQuantity(int64(f.HWCount), resource.DecimalSI)
	}
	return capacity
}

// guestMemoryMiB is the memory the guest OS sees of a flavor's memoryMiB, the hypervisor
// overhead rounded up so that the estimate never exceeds what the node will report.
func guestMemoryMiB(memoryMiB int64) int64 {
	overhead := (memoryMiB*hypervisorMemoryOverheadBasisPoints + 9999) / 10000
	return memoryMiB - overhead
}

// isGPU reports whether the flavor carries GPUs. KakaoCloud's GPU flavors are NVIDIA (T4,
// A100, ...), so every GPU is advertised as nvidia.com/gpu.
func isGPU(f kakaocloud.Flavor) bool {
	return f.HWCount > 0 && (strings.EqualFold(f.HWType, "gpu") || f.InstanceType == flavorTypeGPU)
}
