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

package conformance

import (
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
)

// TestDiverseWorkloadAgreesWithKubeScheduler judges provisioning on upstream Karpenter's
// benchmark workload, the one `make bench` and `make bench-upstream` time, on an empty
// cluster. Its spread selectors count pods that do not own the spread (plain pods and pods of
// other constraints carry the same label), which the drawn workloads never do.
func TestDiverseWorkloadAgreesWithKubeScheduler(t *testing.T) {
	ctx := t.Context()
	var total tally
	for seed := *firstSeed; seed < *firstSeed+uint64(*seeds); seed++ {
		w := &world{seed: seed, rng: rand.New(rand.NewPCG(seed, seed)), instanceTypes: workload.UpstreamInstanceTypes()}
		nodePool := workload.UpstreamNodePool()
		nodePool.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: "Ready"}}
		w.nodePools = []*karpv1.NodePool{nodePool}
		w.namespaces = []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"kubernetes.io/metadata.name": "default"}}}}
		for _, pod := range workload.DiversePods(2*(*pods), seed) {
			w.pods = append(w.pods, pending(pod))
		}
		w.provisionJudged(ctx, t, &total)
	}
	total.report(t, "diverse workload")
}
