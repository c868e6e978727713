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

package disruption

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// podVolumes says where the pods' persistent volumes keep them (SnapshotInput's
// VolumeRequirements), and which CSI volumes they use (PodVolumes: which nodes' attach limits
// count), from the volumes of the pods that have claims; nothing is read when no pod has one.
// A pod whose claim does not exist yet is not kept anywhere by it.
func (c *Controller) podVolumes(ctx context.Context, pods []*corev1.Pod) (map[*corev1.Pod]scheduling.Requirements, map[*corev1.Pod]scheduling.VolumeUsage, error) {
	withClaims := slices.DeleteFunc(slices.Clone(pods), func(pod *corev1.Pod) bool {
		return !slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil || v.Ephemeral != nil })
	})
	if len(withClaims) == 0 {
		return map[*corev1.Pod]scheduling.Requirements{}, map[*corev1.Pod]scheduling.VolumeUsage{}, nil
	}
	volumes, err := volumetopology.Load(ctx, c.Client)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the pods' volumes: %w", err)
	}
	reqs, used, _ := volumes.Of(withClaims)
	return reqs, used, nil
}
