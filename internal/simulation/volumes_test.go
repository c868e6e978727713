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

package simulation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

// TestWithVolumes: a node's CSINode gives it its attach limit, and the input carries the CSI
// volumes of the pods to place and of the pods that already hold the node's slots; a pod
// whose claim does not exist waits.
func TestWithVolumes(t *testing.T) {
	const driver = "block.csi.example.com"
	withClaim := func(pod *corev1.Pod, claim string) *corev1.Pod {
		pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
		return pod
	}
	claim := func(name string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: new("block")}}
	}
	running := withClaim(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "running", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-a"}}, "running-data")
	pending := withClaim(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Namespace: "default"}}, "pending-data")
	waiting := withClaim(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "waiting", Namespace: "default"}}, "not-created-yet")
	cluster := &state.Cluster{
		Nodes: []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}},
		Pods:  []*corev1.Pod{running, pending, waiting},
		CSINodes: map[string]*storagev1.CSINode{"node-a": {ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: driver, NodeID: "node-a", Allocatable: &storagev1.VolumeNodeResources{Count: new(int32(1))}}}}}},
	}
	volumes, err := volumetopology.Load(t.Context(), fake.NewClientBuilder().WithObjects(
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "block"}, Provisioner: driver}, claim("running-data"), claim("pending-data")).Build())
	if err != nil {
		t.Fatal(err)
	}
	in := ClusterInput(cluster, []*corev1.Pod{pending, waiting}, nil)
	left := WithVolumes(&in, volumes)
	if len(in.ExistingNodes) != 1 || in.ExistingNodes[0].VolumeLimits[driver] != 1 {
		t.Fatalf("existing nodes %v, want node-a with its CSINode's limit of 1", in.ExistingNodes)
	}
	if len(in.Pods) != 1 || in.Pods[0] != pending || len(left) != 1 || left[0].Pod != waiting {
		t.Errorf("pods to place %v, waiting %v: want pending placed and waiting told it waits", in.Pods, left)
	}
	for _, pod := range []*corev1.Pod{running, pending} {
		if in.PodVolumes[pod][driver].Len() != 1 {
			t.Errorf("volumes of %s = %v, want its claim counted for %s", pod.Name, in.PodVolumes[pod], driver)
		}
	}
}
