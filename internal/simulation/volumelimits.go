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
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// Volume attach limits, as the kube-scheduler's NodeVolumeLimits plugin enforces them: a
// node's CSINode says, per CSI driver, how many volumes of that driver it can have attached,
// and a pod whose volumes not yet on the node would take a driver past that count cannot go
// there. Only existing nodes have a CSINode; a new NodeClaim takes any number (KakaoCloud
// instance types declare no limit).

// VolumeLimits are the per-driver attach limits of a node's CSINode (its drivers'
// allocatable.count); nil when it has none. A driver without a count is not limited.
func VolumeLimits(csiNode *storagev1.CSINode) map[string]int {
	if csiNode == nil {
		return nil
	}
	var out map[string]int
	for _, driver := range csiNode.Spec.Drivers {
		if driver.Allocatable == nil || driver.Allocatable.Count == nil {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[driver.Name] = int(*driver.Allocatable.Count)
	}
	return out
}

// volumeLimitError is a pod refused by a driver's attach limit.
type volumeLimitError struct {
	driver             string
	limit, used, added int
}

func (e *volumeLimitError) Error() string {
	return fmt.Sprintf("CSI driver %s can attach %d volumes to the node, %d are in use and the pod adds %d", e.driver, e.limit, e.used, e.added)
}

// attachedVolumes is what the pods of an existing node use of the drivers it limits (the
// others are not counted: they never refuse a pod).
func attachedVolumes(n *ExistingNode, podVolumes map[*corev1.Pod]scheduling.VolumeUsage) scheduling.VolumeUsage {
	if len(n.VolumeLimits) == 0 || n.TopologyOnly {
		return nil
	}
	out := scheduling.VolumeUsage{}
	for _, pod := range n.Pods {
		out.Attach(podVolumes[pod], n.VolumeLimits)
	}
	return out
}

// volumesFit returns an error naming the first driver (by name) whose limit the pod's volumes
// that attached does not hold yet would exceed.
func volumesFit(limits map[string]int, attached, pod scheduling.VolumeUsage) error {
	for _, driver := range slices.Sorted(maps.Keys(pod)) {
		limit, limited := limits[driver]
		if !limited {
			continue
		}
		// A volume already attached (another pod of the node uses it) takes no other slot.
		added := pod[driver].Difference(attached[driver]).Len()
		if used := attached[driver].Len(); added > 0 && used+added > limit {
			return &volumeLimitError{driver: driver, limit: limit, used: used, added: added}
		}
	}
	return nil
}
