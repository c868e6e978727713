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
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// volumeRequirements says where the pods' persistent volumes keep them. Pods without claims,
// and pods whose claims do not exist yet, are left out.
func (c *Controller) volumeRequirements(ctx context.Context, pods []*corev1.Pod) (map[*corev1.Pod]scheduling.Requirements, error) {
	out := map[*corev1.Pod]scheduling.Requirements{}
	var volumes *volumetopology.Volumes
	for _, pod := range pods {
		if !slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil || v.Ephemeral != nil }) {
			continue
		}
		if volumes == nil {
			var err error
			if volumes, err = volumetopology.Load(ctx, c.Client); err != nil {
				return nil, err
			}
		}
		if reqs, waiting := volumes.Requirements(pod); waiting == "" && len(reqs) > 0 {
			out[pod] = reqs
		}
	}
	return out, nil
}
