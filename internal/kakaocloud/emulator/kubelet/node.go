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

package kubelet

import (
	"fmt"
	"maps"
	"math/big"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	resourceutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// Annotations a registered node carries.
const (
	// KwokNodeAnnotation marks the node for the kwok controller, which plays the kubelet's
	// status reporting: it makes the node Ready, renews its lease and runs its pods.
	KwokNodeAnnotation      = "kwok.x-k8s.io/node"
	KwokNodeAnnotationValue = "fake"
)

// ResourceNvidiaGPU is what the NVIDIA device plugin advertises on GPU VMs.
const ResourceNvidiaGPU corev1.ResourceName = "nvidia.com/gpu"

// What a VM and its kubelet report without being told otherwise: pods per node (the
// kubelet's default), the share of a flavor's memory the guest never sees, and the root
// volume of a VM without one. The kubelet reserves nothing for itself or the system unless its
// flags say so: the join script tells it what the instance type's model holds back.
const (
	defaultMaxPods             = 110
	hypervisorMemoryOverheadBP = 750 // basis points: 7.5 %
	defaultRootVolumeGiB       = 50
	mebibyte                   = 1 << 20
	gibibyte                   = 1 << 30
)

// NodeInfo is what the VM's image tells about the kubelet and the OS; empty fields are left
// for kwok to fill.
type NodeInfo struct {
	KubeletVersion string
	OSImage        string
	KernelVersion  string
}

// NewNode returns the Node the kubelet of inst registers, with flags from its user data:
// named after the VM's hostname, with the provider id, labels and taints of its flags plus
// the labels every kubelet sets, and the capacity and allocatable of its flavor.
func NewNode(inst kakaocloud.Instance, flags Flags, info NodeInfo) (*corev1.Node, error) {
	name := strings.ToLower(flags.HostnameOverride)
	if name == "" {
		name = strings.ToLower(inst.Hostname)
	}
	if name == "" {
		name = strings.ToLower(inst.Name)
	}
	arch := kubernetesArch(inst.Image.OSArchitecture)
	labels := map[string]string{}
	maps.Copy(labels, flags.NodeLabels)
	labels[corev1.LabelHostname] = name
	labels[corev1.LabelOSStable] = "linux"
	labels[corev1.LabelArchStable] = arch

	capacity, allocatable, err := resources(inst, flags)
	if err != nil {
		return nil, err
	}
	var addresses []corev1.NodeAddress
	for _, a := range inst.Addresses {
		if a.PrivateIP != "" {
			addresses = append(addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a.PrivateIP})
		}
	}
	addresses = append(addresses, corev1.NodeAddress{Type: corev1.NodeHostName, Address: name})

	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: labels,
			Annotations: map[string]string{
				KwokNodeAnnotation: KwokNodeAnnotationValue,
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID: flags.ProviderID,
			Taints:     append([]corev1.Taint(nil), flags.Taints...),
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Addresses:   addresses,
			NodeInfo: corev1.NodeSystemInfo{
				Architecture:    arch,
				OperatingSystem: "linux",
				KubeletVersion:  info.KubeletVersion,
				OSImage:         info.OSImage,
				KernelVersion:   info.KernelVersion,
				SystemUUID:      inst.ID,
			},
		},
	}, nil
}

// kubernetesArch maps an image's architecture to GOARCH.
func kubernetesArch(architecture string) string {
	switch strings.ToLower(architecture) {
	case "aarch64", "arm64":
		return "arm64"
	default:
		return "amd64"
	}
}

// resources returns what the kubelet reports: capacity from the VM (vCPUs, the memory the
// guest sees, the root volume, pods from --max-pods and --pods-per-core, GPUs), and
// allocatable = capacity - kube-reserved - system-reserved - hard eviction thresholds, each
// from its flag; only the eviction thresholds have defaults, the kubelet's own.
//
//nolint:gocyclo // one branch per kubelet flag that shapes capacity and allocatable, as the kubelet applies them
func resources(inst kakaocloud.Instance, flags Flags) (capacity, allocatable corev1.ResourceList, err error) {
	vcpus := int64(inst.Flavor.VCPUs)
	pods := flags.MaxPods
	if pods == 0 {
		pods = defaultMaxPods
	}
	if flags.PodsPerCore > 0 {
		pods = min(pods, flags.PodsPerCore*vcpus)
	}
	memoryMiB := inst.Flavor.MemoryMB - (inst.Flavor.MemoryMB*hypervisorMemoryOverheadBP+9999)/10000
	rootGiB := int64(defaultRootVolumeGiB)
	for _, v := range inst.AttachedVolumes {
		if v.IsRoot && v.Size > 0 {
			rootGiB = int64(v.Size)
		}
	}
	capacity = corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(vcpus, resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(memoryMiB*mebibyte, resource.BinarySI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(rootGiB*gibibyte, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(pods, resource.DecimalSI),
	}
	if inst.Flavor.HWCount > 0 && (strings.EqualFold(inst.Flavor.HWType, "gpu") || inst.InstanceType == "gpu") {
		capacity[ResourceNvidiaGPU] = *resource.NewQuantity(int64(inst.Flavor.HWCount), resource.DecimalSI)
	}

	reserved := corev1.ResourceList{}
	if err := overrideQuantities(reserved, "kube-reserved", flags.KubeReserved); err != nil {
		return nil, nil, err
	}
	system := corev1.ResourceList{}
	if err := overrideQuantities(system, "system-reserved", flags.SystemReserved); err != nil {
		return nil, nil, err
	}
	eviction, err := evictionThresholds(capacity, flags.EvictionHard)
	if err != nil {
		return nil, nil, err
	}

	allocatable = corev1.ResourceList{}
	for name, q := range capacity {
		a := q.DeepCopy()
		for _, held := range []corev1.ResourceList{reserved, system, eviction} {
			if h, ok := held[name]; ok {
				a.Sub(h)
			}
		}
		if a.Sign() < 0 {
			a = *resource.NewQuantity(0, q.Format)
		}
		allocatable[name] = a
	}
	return capacity, allocatable, nil
}

// overrideQuantities sets the resources a --kube-reserved or --system-reserved flag names;
// pid reservations hold back no schedulable resource.
func overrideQuantities(list corev1.ResourceList, flag string, values map[string]string) error {
	for name, value := range values {
		q, err := resourceutil.ParseNonNegative(value)
		if err != nil {
			return fmt.Errorf("--%s: %s=%q is not a quantity", flag, name, value)
		}
		switch corev1.ResourceName(name) {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
			list[corev1.ResourceName(name)] = q
		case "pid":
		default:
			return fmt.Errorf("--%s: unknown resource %q", flag, name)
		}
	}
	return nil
}

// evictionSignals are the hard eviction signals that hold back allocatable, by resource.
var evictionSignals = map[string]corev1.ResourceName{
	"memory.available": corev1.ResourceMemory,
	"nodefs.available": corev1.ResourceEphemeralStorage,
}

// evictionThresholds returns the hard eviction thresholds by resource: the kubelet's defaults
// (memory.available 100Mi, nodefs.available 10%) without the flag; with it, only the signals
// it names, as a kubelet given --eviction-hard sets the others to zero.
func evictionThresholds(capacity corev1.ResourceList, flag map[string]string) (corev1.ResourceList, error) {
	values := flag
	if values == nil {
		values = map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"}
	}
	thresholds := corev1.ResourceList{}
	for signal, value := range values {
		name, ok := evictionSignals[signal]
		if !ok {
			continue // other signals (inodes, imagefs, pids) hold back nothing schedulable
		}
		c := capacity[name]
		if number, isPercentage := strings.CutSuffix(value, "%"); isPercentage {
			share, ok := new(big.Rat).SetString(number)
			if !ok || share.Sign() < 0 || share.Cmp(big.NewRat(100, 1)) > 0 {
				return nil, fmt.Errorf("--eviction-hard: %s<%s is not a percentage", signal, value)
			}
			bytes := new(big.Rat).Mul(share, new(big.Rat).SetInt64(c.Value()))
			bytes.Quo(bytes, big.NewRat(100, 1))
			// Rounded up to the byte.
			whole := new(big.Int).Quo(bytes.Num(), bytes.Denom())
			if new(big.Rat).SetInt(whole).Cmp(bytes) < 0 {
				whole.Add(whole, big.NewInt(1))
			}
			thresholds[name] = *resource.NewQuantity(whole.Int64(), resource.BinarySI)
			continue
		}
		q, err := resourceutil.ParseNonNegative(value)
		if err != nil {
			return nil, fmt.Errorf("--eviction-hard: %s<%s is not a quantity", signal, value)
		}
		thresholds[name] = q
	}
	return thresholds, nil
}
