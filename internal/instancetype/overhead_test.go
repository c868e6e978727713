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
	"context"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// The kubelet is told what the model holds back, every hard eviction signal included.
func TestReservations(t *testing.T) {
	defaults := map[string]string{
		"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%",
	}
	with := func(signals map[string]string) map[string]string {
		out := maps.Clone(defaults)
		maps.Copy(out, signals)
		return out
	}
	tests := []struct {
		name    string
		kubelet *kcv1.KubeletConfiguration
		want    KubeletReservations
	}{
		{
			name: "defaults",
			want: KubeletReservations{MaxPods: 110, KubeReserved: m2aXLargeDefaults.kubeReserved, SystemReserved: corev1.ResourceList{}, EvictionHard: defaults},
		},
		{
			name:    "pods per core caps max pods, and the per-pod memory follows",
			kubelet: &kcv1.KubeletConfiguration{MaxPods: ptr.To[int32](58), PodsPerCore: ptr.To[int32](4)},
			want: KubeletReservations{
				MaxPods:        16,
				KubeReserved:   resources("cpu=80m", "memory=431Mi", "ephemeral-storage=1Gi"),
				SystemReserved: corev1.ResourceList{}, EvictionHard: defaults,
			},
		},
		{
			name: "the node class's values in place of the defaults",
			kubelet: &kcv1.KubeletConfiguration{
				KubeReserved:   map[string]string{"cpu": "250m", "pid": "100"},
				SystemReserved: map[string]string{"memory": "300Mi"},
				EvictionHard:   map[string]string{"memory.available": " 5% ", "imagefs.available": "20%"},
			},
			want: KubeletReservations{
				MaxPods:        110,
				KubeReserved:   resources("cpu=250m", "memory=1465Mi", "ephemeral-storage=1Gi", "pid=100"),
				SystemReserved: resources("memory=300Mi"),
				EvictionHard:   with(map[string]string{"memory.available": "5%", "imagefs.available": "20%"}),
			},
		},
		{
			name: "invalid values left out, as in the model",
			kubelet: &kcv1.KubeletConfiguration{
				KubeReserved: map[string]string{"cpu": "lots"},
				EvictionHard: map[string]string{"memory.available": "150%", "memory.free": "1Gi", "nodefs.available": "20%"},
			},
			want: KubeletReservations{
				MaxPods: 110, KubeReserved: m2aXLargeDefaults.kubeReserved, SystemReserved: corev1.ResourceList{},
				EvictionHard: with(map[string]string{"nodefs.available": "20%"}),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := &kcv1.KCNodeClass{Spec: kcv1.KCNodeClassSpec{Kubelet: tc.kubelet}}
			types, _ := NewProvider(staticFlavors{m2aXLarge}, nil, nil).List(context.Background(), nodeClass)
			if len(types) != 1 {
				t.Fatalf("instance types %v", types)
			}
			got := Reservations(nodeClass, types[0])
			if got.MaxPods != tc.want.MaxPods || !maps.Equal(got.EvictionHard, tc.want.EvictionHard) ||
				!equality.Semantic.DeepEqual(got.KubeReserved, tc.want.KubeReserved) ||
				!equality.Semantic.DeepEqual(got.SystemReserved, tc.want.SystemReserved) {
				t.Errorf("Reservations = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

type staticFlavors []kakaocloud.Flavor

func (f staticFlavors) Flavors(context.Context) ([]kakaocloud.Flavor, error) { return f, nil }
