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

package kubelet_test

import (
	"context"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator/kubelet"
)

type staticFlavors []kakaocloud.Flavor

func (f staticFlavors) Flavors(context.Context) ([]kakaocloud.Flavor, error) { return f, nil }

// vmOf is the VM the emulator makes of a flavor, booted from an image of the flavor's
// architecture with a root volume of rootGiB.
func vmOf(f kakaocloud.Flavor, rootGiB int) kakaocloud.Instance {
	return kakaocloud.Instance{
		ID: vmID, Name: "default-x7k2p", Hostname: "host-10-0-0-5", Status: kakaocloud.InstanceStatusActive,
		AvailabilityZone: emulator.ZoneA, InstanceType: f.InstanceType,
		Flavor: kakaocloud.InstanceFlavor{
			ID: f.ID, Name: f.Name, VCPUs: f.VCPUs, MemoryMB: f.MemoryMB, InstanceFamily: f.InstanceFamily,
			HWType: f.HWType, HWCount: f.HWCount,
		},
		Image:           kakaocloud.InstanceImage{ID: "image", OSArchitecture: f.Architecture},
		Addresses:       []kakaocloud.InstanceAddress{{PrivateIP: "10.0.0.5"}},
		AttachedVolumes: []kakaocloud.AttachedVolume{{ID: "root", Size: rootGiB, IsRoot: true}},
	}
}

// The node a VM's kubelet registers reports the capacity and allocatable Karpenter expected
// of its instance type, for every flavor of the catalog and the kubelet settings a
// KCNodeClass can give.
func TestNodeReportsWhatTheInstanceTypePromised(t *testing.T) {
	settings := map[string]struct {
		kubelet *kcv1.KubeletConfiguration
		rootGiB int32
	}{
		"defaults":        {},
		"max pods":        {kubelet: &kcv1.KubeletConfiguration{MaxPods: ptr.To[int32](58)}},
		"pods per core":   {kubelet: &kcv1.KubeletConfiguration{PodsPerCore: ptr.To[int32](3)}},
		"root volume":     {rootGiB: 200},
		"eviction shares": {kubelet: &kcv1.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "7.5%", "nodefs.available": "15%", "pid.available": "5%"}}},
		"reserved": {kubelet: &kcv1.KubeletConfiguration{
			KubeReserved:   map[string]string{"cpu": "250m", "pid": "100"},
			SystemReserved: map[string]string{"memory": "300Mi", "ephemeral-storage": "2Gi"},
			EvictionHard:   map[string]string{"memory.available": "500Mi"},
		}},
		// Values the CRD refuses, on an object that bypassed it: the model leaves them out and
		// the join script with it, so both hold back the defaults.
		"invalid values": {kubelet: &kcv1.KubeletConfiguration{
			KubeReserved: map[string]string{"cpu": "lots"},
			EvictionHard: map[string]string{"memory.available": "150%", "nodefs.available": "20%"},
		}},
	}
	flavors := emulator.DefaultCatalog().Flavors
	provider := instancetype.NewProvider(staticFlavors(flavors), nil, nil)
	for name, s := range settings {
		t.Run(name, func(t *testing.T) {
			nodeClass := &kcv1.KCNodeClass{Spec: kcv1.KCNodeClassSpec{Kubelet: s.kubelet, RootVolume: kcv1.RootVolume{SizeGiB: s.rootGiB}}}
			types, err := provider.List(context.Background(), nodeClass)
			if types == nil {
				t.Fatal(err)
			}
			rootGiB := 50
			if s.rootGiB > 0 {
				rootGiB = int(s.rootGiB)
			}
			for i, it := range types {
				labels := map[string]string{karpv1.LabelNodePool: "default"}
				maps.Copy(labels, it.Labels)
				script := joinScript(t, labels, []corev1.Taint{karpv1.UnregisteredNoExecuteTaint}, nodeClass, it)
				flags, _, err := kubelet.ParseUserData(script, vmID)
				if err != nil {
					t.Fatal(err)
				}
				var flavor kakaocloud.Flavor
				for _, f := range flavors {
					if f.Name == it.Name {
						flavor = f
					}
				}
				node, err := kubelet.NewNode(vmOf(flavor, rootGiB), flags, kubelet.NodeInfo{})
				if err != nil {
					t.Fatal(err)
				}
				if !equality.Semantic.DeepEqual(node.Status.Capacity, it.Capacity) {
					t.Errorf("%s: capacity %v, instance type %v", it.Name, node.Status.Capacity, it.Capacity)
				}
				if !equality.Semantic.DeepEqual(node.Status.Allocatable, it.Allocatable()) {
					t.Errorf("%s: allocatable %v, instance type %v", it.Name, node.Status.Allocatable, it.Allocatable())
				}
				for _, key := range []string{corev1.LabelInstanceTypeStable, corev1.LabelArchStable, corev1.LabelOSStable, kcv1.LabelInstanceFamily} {
					if node.Labels[key] != it.Labels[key] {
						t.Errorf("%s: label %s=%q, instance type %q", it.Name, key, node.Labels[key], it.Labels[key])
					}
				}
				if i > 3 && testing.Short() {
					break
				}
			}
		})
	}
}

func TestNewNode(t *testing.T) {
	flavor, _ := emulator.DefaultCatalog().FlavorByName("m2a.xlarge")
	flags := kubelet.Flags{
		ProviderID: kcv1.ProviderIDPrefix + vmID,
		NodeLabels: map[string]string{"team": "checkout", corev1.LabelHostname: "ignored"},
		Taints:     []corev1.Taint{karpv1.UnregisteredNoExecuteTaint},
	}
	vm := vmOf(flavor, 50)
	vm.Image.OSArchitecture = "aarch64"
	node, err := kubelet.NewNode(vm, flags, kubelet.NodeInfo{KubeletVersion: "v1.36.4", OSImage: "Ubuntu 24.04"})
	if err != nil {
		t.Fatal(err)
	}
	if node.Name != "host-10-0-0-5" || node.Spec.ProviderID != flags.ProviderID {
		t.Errorf("node %s, provider id %s", node.Name, node.Spec.ProviderID)
	}
	want := map[string]string{"team": "checkout", corev1.LabelHostname: "host-10-0-0-5", corev1.LabelOSStable: "linux", corev1.LabelArchStable: "arm64"}
	if !equality.Semantic.DeepEqual(node.Labels, want) {
		t.Errorf("labels %v, want %v", node.Labels, want)
	}
	if node.Annotations[kubelet.KwokNodeAnnotation] != kubelet.KwokNodeAnnotationValue {
		t.Errorf("annotations %v: kwok does not manage the node", node.Annotations)
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0] != karpv1.UnregisteredNoExecuteTaint {
		t.Errorf("taints %v", node.Spec.Taints)
	}
	// A kubelet told nothing reserves nothing: m2a.xlarge's 15155Mi the guest sees (16 GiB less
	// 7.5 %) and 50Gi of root volume, less only the default eviction thresholds, 100Mi and 10 %.
	wantAllocatable := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("15055Mi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("45Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	if !equality.Semantic.DeepEqual(node.Status.Allocatable, wantAllocatable) {
		t.Errorf("allocatable %v, want %v", node.Status.Allocatable, wantAllocatable)
	}
	info := node.Status.NodeInfo
	if info.KubeletVersion != "v1.36.4" || info.Architecture != "arm64" || info.OperatingSystem != "linux" || info.SystemUUID != vmID {
		t.Errorf("node info %+v", info)
	}
	if len(node.Status.Addresses) != 2 || node.Status.Addresses[0].Address != "10.0.0.5" {
		t.Errorf("addresses %v", node.Status.Addresses)
	}

	gpu, _ := emulator.DefaultCatalog().FlavorByName("gn1i.8xlarge")
	node, err = kubelet.NewNode(vmOf(gpu, 50), flags, kubelet.NodeInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if q := node.Status.Allocatable[kubelet.ResourceNvidiaGPU]; q.Value() != 4 {
		t.Errorf("GPUs allocatable %v", q)
	}

	flags.HostnameOverride = "Worker-1"
	if node, _ := kubelet.NewNode(vm, flags, kubelet.NodeInfo{}); node.Name != "worker-1" {
		t.Errorf("--hostname-override: node %s", node.Name)
	}
	flags.EvictionHard = map[string]string{"memory.available": "lots"}
	if _, err := kubelet.NewNode(vm, flags, kubelet.NodeInfo{}); err == nil {
		t.Error("a kubelet with an invalid --eviction-hard started")
	}
}
