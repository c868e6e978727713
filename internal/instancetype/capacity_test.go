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
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Flavors shaped like the emulator's catalog.
var (
	m2aLarge    = kakaocloud.Flavor{Name: "m2a.large", VCPUs: 2, MemoryMB: 8192, Architecture: "x86_64", InstanceType: "vm"}
	m2aXLarge   = kakaocloud.Flavor{Name: "m2a.xlarge", VCPUs: 4, MemoryMB: 16384, Architecture: "x86_64", InstanceType: "vm"}
	r2a16XLarge = kakaocloud.Flavor{Name: "r2a.16xlarge", VCPUs: 64, MemoryMB: 524288, Architecture: "x86_64", InstanceType: "vm"}
	gn1i8XLarge = kakaocloud.Flavor{
		Name: "gn1i.8xlarge", VCPUs: 32, MemoryMB: 131072, Architecture: "x86_64", InstanceType: "gpu",
		HWType: "GPU", HWName: "t4", HWCount: 4,
	}
)

// m2aXLargeDefaults is m2a.xlarge with no kubelet settings, the worked example of
// docs/instance-types.md.
var m2aXLargeDefaults = shape{
	capacity:     resources("cpu=4", "memory=15155Mi", "ephemeral-storage=50Gi", "pods=110"),
	kubeReserved: resources("cpu=80m", "memory=1465Mi", "ephemeral-storage=1Gi"),
	eviction:     resources("memory=100Mi", "ephemeral-storage=5Gi"),
	allocatable:  resources("cpu=3920m", "memory=13590Mi", "ephemeral-storage=44Gi", "pods=110"),
}

// shape is the capacity, overhead and allocatable expected of an instance type.
type shape struct {
	capacity, kubeReserved, systemReserved, eviction, allocatable corev1.ResourceList
}

func TestCapacityOverheadAndAllocatable(t *testing.T) {
	tests := []struct {
		name    string
		flavor  kakaocloud.Flavor
		spec    kcv1.KCNodeClassSpec
		want    shape
		wantErr []string // substrings of the reported error; none when empty
	}{
		{
			name:   "small flavor",
			flavor: m2aLarge,
			want: shape{
				capacity:     resources("cpu=2", "memory=7577Mi", "ephemeral-storage=50Gi", "pods=110"),
				kubeReserved: resources("cpu=70m", "memory=1465Mi", "ephemeral-storage=1Gi"),
				eviction:     resources("memory=100Mi", "ephemeral-storage=5Gi"),
				allocatable:  resources("cpu=1930m", "memory=6012Mi", "ephemeral-storage=44Gi", "pods=110"),
			},
		},
		{
			name:   "worked example",
			flavor: m2aXLarge,
			want:   m2aXLargeDefaults,
		},
		{
			name:   "large flavor",
			flavor: r2a16XLarge,
			want: shape{
				capacity:     resources("cpu=64", "memory=484966Mi", "ephemeral-storage=50Gi", "pods=110"),
				kubeReserved: resources("cpu=230m", "memory=1465Mi", "ephemeral-storage=1Gi"),
				eviction:     resources("memory=100Mi", "ephemeral-storage=5Gi"),
				allocatable:  resources("cpu=63770m", "memory=483401Mi", "ephemeral-storage=44Gi", "pods=110"),
			},
		},
		{
			name:   "GPU flavor",
			flavor: gn1i8XLarge,
			want: shape{
				capacity:     resources("cpu=32", "memory=121241Mi", "ephemeral-storage=50Gi", "pods=110", "nvidia.com/gpu=4"),
				kubeReserved: resources("cpu=150m", "memory=1465Mi", "ephemeral-storage=1Gi"),
				eviction:     resources("memory=100Mi", "ephemeral-storage=5Gi"),
				allocatable:  resources("cpu=31850m", "memory=119676Mi", "ephemeral-storage=44Gi", "pods=110", "nvidia.com/gpu=4"),
			},
		},
		{
			name:   "root volume size",
			flavor: m2aXLarge,
			spec:   kcv1.KCNodeClassSpec{RootVolume: kcv1.RootVolume{SizeGiB: 100}},
			want: m2aXLargeDefaults.with(shape{
				capacity:    resources("ephemeral-storage=100Gi"),
				eviction:    resources("ephemeral-storage=10Gi"),
				allocatable: resources("ephemeral-storage=89Gi"),
			}),
		},
		{
			name:   "maxPods",
			flavor: m2aXLarge,
			spec:   kubelet(kcv1.KubeletConfiguration{MaxPods: ptr.To[int32](58)}),
			want: m2aXLargeDefaults.with(shape{
				capacity:     resources("pods=58"),
				kubeReserved: resources("memory=893Mi"),
				allocatable:  resources("pods=58", "memory=14162Mi"),
			}),
		},
		{
			name:   "podsPerCore below the default maxPods",
			flavor: m2aXLarge,
			spec:   kubelet(kcv1.KubeletConfiguration{PodsPerCore: ptr.To[int32](10)}),
			want: m2aXLargeDefaults.with(shape{
				capacity:     resources("pods=40"),
				kubeReserved: resources("memory=695Mi"),
				allocatable:  resources("pods=40", "memory=14360Mi"),
			}),
		},
		{
			name:   "podsPerCore above maxPods",
			flavor: m2aXLarge,
			spec:   kubelet(kcv1.KubeletConfiguration{MaxPods: ptr.To[int32](150), PodsPerCore: ptr.To[int32](50)}),
			want: m2aXLargeDefaults.with(shape{
				capacity:     resources("pods=150"),
				kubeReserved: resources("memory=1905Mi"),
				allocatable:  resources("pods=150", "memory=13150Mi"),
			}),
		},
		{
			name:   "podsPerCore 0 is no cap",
			flavor: m2aXLarge,
			spec:   kubelet(kcv1.KubeletConfiguration{PodsPerCore: ptr.To[int32](0)}),
			want:   m2aXLargeDefaults,
		},
		{
			name:   "kubeReserved and systemReserved",
			flavor: m2aXLarge,
			spec: kubelet(kcv1.KubeletConfiguration{
				KubeReserved:   map[string]string{"cpu": "200m", "memory": "1Gi"},
				SystemReserved: map[string]string{"cpu": "100m", "memory": "512Mi", "ephemeral-storage": "2Gi", "pid": "1000"},
			}),
			want: m2aXLargeDefaults.with(shape{
				kubeReserved:   resources("cpu=200m", "memory=1Gi"),
				systemReserved: resources("cpu=100m", "memory=512Mi", "ephemeral-storage=2Gi", "pid=1000"),
				allocatable:    resources("cpu=3700m", "memory=13519Mi", "ephemeral-storage=42Gi"),
			}),
		},
		{
			name:   "evictionHard percentage of memory, quantity of storage",
			flavor: m2aXLarge,
			spec: kubelet(kcv1.KubeletConfiguration{
				EvictionHard: map[string]string{"memory.available": "5%", "nodefs.available": "2Gi"},
			}),
			want: m2aXLargeDefaults.with(shape{
				// 5 % of 15155Mi is 757.75Mi.
				eviction:    resources("memory=794558464", "ephemeral-storage=2Gi"),
				allocatable: resources("memory=13560446976", "ephemeral-storage=47Gi"),
			}),
		},
		{
			name:   "evictionHard quantity of memory, percentage of storage",
			flavor: m2aXLarge,
			spec: kubelet(kcv1.KubeletConfiguration{
				// imagefs.available is valid but takes nothing from allocatable.
				EvictionHard: map[string]string{"memory.available": "500Mi", "nodefs.available": "15%", "imagefs.available": "20%"},
			}),
			want: m2aXLargeDefaults.with(shape{
				// 15 % of 50Gi is 7.5Gi.
				eviction:    resources("memory=500Mi", "ephemeral-storage=8053063680"),
				allocatable: resources("memory=13190Mi", "ephemeral-storage=44560285696"),
			}),
		},
		{
			name:   "evictionHard decimal percentages, rounded up to the byte",
			flavor: m2aXLarge,
			spec: kubelet(kcv1.KubeletConfiguration{
				EvictionHard: map[string]string{"memory.available": "12.5%", "nodefs.available": "33.3%"},
			}),
			want: m2aXLargeDefaults.with(shape{
				// 12.5 % of 15155Mi is 1986396160 bytes; 33.3 % of 50Gi is 17877801369.6 bytes.
				eviction:    resources("memory=1986396160", "ephemeral-storage=17877801370"),
				allocatable: resources("memory=12368609280", "ephemeral-storage=34735548006"),
			}),
		},
		{
			name:   "invalid values are skipped and reported",
			flavor: m2aXLarge,
			spec: kcv1.KCNodeClassSpec{
				RootVolume: kcv1.RootVolume{SizeGiB: -1},
				Kubelet: &kcv1.KubeletConfiguration{
					MaxPods:        ptr.To[int32](0),
					PodsPerCore:    ptr.To[int32](-1),
					KubeReserved:   map[string]string{"memory": "lots", "cpu": "-100m", "ephemeral-storage": "3Gi"},
					SystemReserved: map[string]string{"nvidia.com/gpu": "1"},
					EvictionHard: map[string]string{
						"memory.available": "150%", "nodefs.available": "abc%", "imagefs.available": "1e1%", "memory.free": "1Gi",
					},
				},
			},
			want: m2aXLargeDefaults.with(shape{
				kubeReserved: resources("ephemeral-storage=3Gi"),
				allocatable:  resources("ephemeral-storage=42Gi"),
			}),
			wantErr: []string{
				"spec.rootVolume.sizeGiB: -1",
				"spec.kubelet.maxPods: 0",
				"spec.kubelet.podsPerCore: -1",
				`spec.kubelet.kubeReserved[memory]: "lots" is not a quantity`,
				`spec.kubelet.kubeReserved[cpu]: "-100m" is negative`,
				`spec.kubelet.systemReserved[nvidia.com/gpu]`,
				`spec.kubelet.evictionHard[memory.available]: "150%" is not a decimal percentage`,
				`spec.kubelet.evictionHard[nodefs.available]: "abc%" is not a decimal percentage`,
				`spec.kubelet.evictionHard[imagefs.available]: "1e1%" is not a decimal percentage`,
				"spec.kubelet.evictionHard[memory.free]: unknown eviction signal",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it, err := instanceType(tt.flavor, &kcv1.KCNodeClass{Spec: tt.spec})
			expectErrorContaining(t, err, tt.wantErr)
			expectResources(t, "capacity", it.Capacity, tt.want.capacity)
			expectResources(t, "kube-reserved", it.Overhead.KubeReserved, tt.want.kubeReserved)
			expectResources(t, "system-reserved", it.Overhead.SystemReserved, tt.want.systemReserved)
			expectResources(t, "eviction threshold", it.Overhead.EvictionThreshold, tt.want.eviction)
			expectResources(t, "allocatable", it.Allocatable(), tt.want.allocatable)
		})
	}
}

func TestKubeReservedCPUTiers(t *testing.T) {
	tests := []struct {
		vcpus     int64
		wantMilli int64
	}{
		{vcpus: 1, wantMilli: 60},
		{vcpus: 2, wantMilli: 70},
		{vcpus: 3, wantMilli: 75},
		{vcpus: 4, wantMilli: 80},
		{vcpus: 5, wantMilli: 83}, // 82.5 rounded up
		{vcpus: 8, wantMilli: 90},
		{vcpus: 64, wantMilli: 230},
		{vcpus: 96, wantMilli: 310},
	}
	for _, tt := range tests {
		if got := kubeReservedMilliCPU(tt.vcpus); got != tt.wantMilli {
			t.Errorf("kubeReservedMilliCPU(%d) = %dm, want %dm", tt.vcpus, got, tt.wantMilli)
		}
	}
}

func TestGuestMemory(t *testing.T) {
	tests := []struct{ memoryMiB, wantMiB int64 }{
		{memoryMiB: 4096, wantMiB: 3788},     // 307.2 MiB overhead, rounded up
		{memoryMiB: 40960, wantMiB: 37888},   // exactly 3072 MiB overhead
		{memoryMiB: 524288, wantMiB: 484966}, // 39321.6 MiB overhead, rounded up
	}
	for _, tt := range tests {
		if got := guestMemoryMiB(tt.memoryMiB); got != tt.wantMiB {
			t.Errorf("guestMemoryMiB(%d) = %d, want %d", tt.memoryMiB, got, tt.wantMiB)
		}
	}
}

// instanceType builds the capacity and overhead of flavor f as List does for nodeClass.
func instanceType(f kakaocloud.Flavor, nodeClass *kcv1.KCNodeClass) (*cloudprovider.InstanceType, error) {
	settings, err := resolveNodeClass(nodeClass)
	capacity := newCapacity(f, settings)
	return &cloudprovider.InstanceType{Name: f.Name, Capacity: capacity, Overhead: newOverhead(capacity, settings.kubelet)}, err
}

func kubelet(k kcv1.KubeletConfiguration) kcv1.KCNodeClassSpec {
	return kcv1.KCNodeClassSpec{Kubelet: &k}
}

// with returns s with the resources of changes replacing its own, list by list.
func (s shape) with(changes shape) shape {
	merge := func(base, change corev1.ResourceList) corev1.ResourceList {
		merged := base.DeepCopy()
		if merged == nil {
			merged = corev1.ResourceList{}
		}
		maps.Copy(merged, change)
		return merged
	}
	return shape{
		capacity:       merge(s.capacity, changes.capacity),
		kubeReserved:   merge(s.kubeReserved, changes.kubeReserved),
		systemReserved: merge(s.systemReserved, changes.systemReserved),
		eviction:       merge(s.eviction, changes.eviction),
		allocatable:    merge(s.allocatable, changes.allocatable),
	}
}

// resources parses "name=quantity" pairs.
func resources(pairs ...string) corev1.ResourceList {
	list := corev1.ResourceList{}
	for _, pair := range pairs {
		name, quantity, _ := strings.Cut(pair, "=")
		list[corev1.ResourceName(name)] = resource.MustParse(quantity)
	}
	return list
}

func expectResources(t *testing.T, what string, got, want corev1.ResourceList) {
	t.Helper()
	equal := len(got) == len(want)
	for name, w := range want {
		if g, ok := got[name]; !ok || g.Cmp(w) != 0 {
			equal = false
		}
	}
	if !equal {
		t.Errorf("%s = %s, want %s", what, formatResources(got), formatResources(want))
	}
}

func formatResources(list corev1.ResourceList) string {
	var pairs []string
	for _, name := range slices.Sorted(maps.Keys(list)) {
		q := list[name]
		pairs = append(pairs, fmt.Sprintf("%s=%s", name, q.String()))
	}
	return "{" + strings.Join(pairs, " ") + "}"
}

func expectErrorContaining(t *testing.T, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("error = nil, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}
