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

	corev1 "k8s.io/api/core/v1"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/volumetopology"
)

// Waiting is a pod left out of a pass because its volumes cannot be placed yet, and why.
type Waiting struct {
	Pod *corev1.Pod
	Why string
}

// volumeTopology returns the pods whose volumes can be placed, with where their volumes keep
// them, and the pods whose claims do not exist yet, with why.
func (p *Provisioner) volumeTopology(ctx context.Context, pods []*corev1.Pod) ([]*corev1.Pod, map[*corev1.Pod]scheduling.Requirements, []Waiting, error) {
	volumes, err := volumetopology.Load(ctx, p.Client)
	if err != nil {
		return nil, nil, nil, err
	}
	out := make([]*corev1.Pod, 0, len(pods))
	reqs := map[*corev1.Pod]scheduling.Requirements{}
	var waiting []Waiting
	for _, pod := range pods {
		r, why := volumes.Requirements(pod)
		if why != "" {
			waiting = append(waiting, Waiting{Pod: pod, Why: why})
			continue
		}
		if len(r) > 0 {
			reqs[pod] = r
		}
		out = append(out, pod)
	}
	return out, reqs, waiting, nil
}
