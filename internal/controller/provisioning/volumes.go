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
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

// Waiting is a pod left out of a pass because its volumes cannot be placed yet, and why.
type Waiting struct {
	Pod *corev1.Pod
	Why string
}

// volumes adds to the pass's input what the pods' volumes decide (WithVolumes), read from
// the cache, and returns the pods left out with why.
func (p *Provisioner) volumes(ctx context.Context, input *scheduling.Input) ([]Waiting, error) {
	volumes, err := volumetopology.Load(ctx, p.Client)
	if err != nil {
		return nil, fmt.Errorf("reading the pods' volumes: %w", err)
	}
	return WithVolumes(input, volumes), nil
}

// WithVolumes adds to a provisioning pass's input what the pods' volumes decide: where they
// keep each pod to place (VolumeRequirements), and the CSI volumes of those pods and of the
// pods of the existing nodes with attach limits (PodVolumes), which the limits count. The
// pods whose claims or volumes do not exist yet are taken out of the input and returned with
// why: the kube-scheduler cannot place them either.
func WithVolumes(input *scheduling.Input, volumes *volumetopology.Volumes) []Waiting {
	var whys map[*corev1.Pod]string
	input.VolumeRequirements, input.PodVolumes, whys = volumes.Of(input.Pods)
	placeable := make([]*corev1.Pod, 0, len(input.Pods))
	var waiting []Waiting
	for _, pod := range input.Pods {
		if why, ok := whys[pod]; ok {
			waiting = append(waiting, Waiting{Pod: pod, Why: why})
			continue
		}
		placeable = append(placeable, pod)
	}
	input.Pods = placeable
	for _, node := range input.ExistingNodes {
		// Only a node with limits counts what its pods use.
		if len(node.VolumeLimits) > 0 && !node.TopologyOnly {
			volumes.AddCSIVolumes(input.PodVolumes, node.Pods)
		}
	}
	return waiting
}
