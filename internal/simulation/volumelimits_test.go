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
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

const (
	blockDriver = "block.csi.example.com"
	fileDriver  = "file.csi.example.com"
)

// uses is the CSI volume usage of volumes of one driver.
func uses(driver string, volumes ...string) scheduling.VolumeUsage {
	return scheduling.VolumeUsage{driver: sets.New(volumes...)}
}

// limitedNode is a roomy registered node whose CSINode lets it attach limit volumes of
// blockDriver, running pods.
func limitedNode(limit int, pods ...*corev1.Pod) ExistingNode {
	return ExistingNode{
		ID: destination.NodeNamed("node-a"), Labels: map[string]string{corev1.LabelHostname: "node-a"},
		Allocatable:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi")},
		VolumeLimits: map[string]int{blockDriver: limit},
		Pods:         pods,
	}
}

// TestVolumeLimitsRefuseANewVolumeOnAFullDriver: a node whose block driver holds its limit of
// two volumes takes no pod with a third volume of that driver, but takes a pod that shares one
// of the two (attached once) or whose volume is of another driver.
func TestVolumeLimitsRefuseANewVolumeOnAFullDriver(t *testing.T) {
	running := []*corev1.Pod{pod("100m", "128Mi"), pod("100m", "128Mi")}
	for _, tc := range []struct {
		name    string
		volumes scheduling.VolumeUsage
		refused bool
	}{
		{name: "a third volume of the full driver", volumes: uses(blockDriver, "vol-c"), refused: true},
		{name: "a volume the node already has", volumes: uses(blockDriver, "vol-a")},
		{name: "a volume of a driver the node does not limit", volumes: uses(fileDriver, "share-1")},
		{name: "no volumes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pending := pod("100m", "128Mi")
			s := newScheduler(Input{
				Pods:          []*corev1.Pod{pending},
				ExistingNodes: []ExistingNode{limitedNode(2, running...)},
				PodVolumes: map[*corev1.Pod]scheduling.VolumeUsage{
					running[0]: uses(blockDriver, "vol-a"), running[1]: uses(blockDriver, "vol-b"), pending: tc.volumes,
				},
			})
			_, err := s.existing[0].canAdd(s.pods[0], nil)
			var limitErr *volumeLimitError
			if refused := errors.As(err, &limitErr); refused != tc.refused {
				t.Fatalf("canAdd = %v, want refused by the attach limit: %t", err, tc.refused)
			}
			if tc.refused && !strings.Contains(err.Error(), "CSI driver "+blockDriver+" can attach 2 volumes to the node, 2 are in use and the pod adds 1") {
				t.Errorf("refusal %q does not say which driver and how many", err)
			}
		})
	}
}

// TestVolumeLimitsCountPodsPlacedInTheRun: two pods each with a new block volume and a node
// with one free slot for it: the first placed takes the slot, the second must go to a new
// NodeClaim (which declares no limit), not onto the node too.
func TestVolumeLimitsCountPodsPlacedInTheRun(t *testing.T) {
	running := pod("100m", "128Mi")
	first, second := pod("1", "1Gi"), pod("1", "1Gi")
	in := Input{
		Pods:          []*corev1.Pod{first, second},
		NodePools:     []NodePoolInput{poolInput(nodePool("default", 0))},
		ExistingNodes: []ExistingNode{limitedNode(2, running)},
		PodVolumes: map[*corev1.Pod]scheduling.VolumeUsage{
			running: uses(blockDriver, "vol-a"), first: uses(blockDriver, "vol-b"), second: uses(blockDriver, "vol-c"),
		},
	}
	res := Schedule(in)
	expectation{nodeClaims: 1, podsPer: []int{1}, existing: map[string]int{"node-a": 1}}.check(t, in, res)
}

// TestVolumeLimitsOfCSINode: the limits are the drivers' allocatable counts; a driver without
// one, or a node without a CSINode, is not limited.
func TestVolumeLimitsOfCSINode(t *testing.T) {
	count := int32(3)
	csiNode := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
		{Name: blockDriver, NodeID: "node-a", Allocatable: &storagev1.VolumeNodeResources{Count: &count}},
		{Name: fileDriver, NodeID: "node-a"},
	}}}
	if got := VolumeLimits(csiNode); len(got) != 1 || got[blockDriver] != 3 {
		t.Errorf("VolumeLimits = %v, want %s: 3 only", got, blockDriver)
	}
	if got := VolumeLimits(nil); got != nil {
		t.Errorf("VolumeLimits(nil) = %v, want none", got)
	}
}
