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
	"hash/fnv"
	"strconv"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// Fingerprint summarises what consolidation decides from: the nodes, what they run, the
// NodePools' disruption settings and what their budgets allow now, and the
// PodDisruptionBudgets. When it has not changed since a consolidation pass that found nothing,
// the next pass would find nothing either. What changes with time alone is in it: a budget's
// schedule opening, a karpenter.sh/do-not-disrupt duration running out.
func (s *Snapshot) Fingerprint() uint64 {
	h := fnv.New64a()
	w := func(parts ...string) {
		for _, p := range parts {
			_, _ = h.Write([]byte(p))
			_, _ = h.Write([]byte{0})
		}
	}
	for _, name := range s.poolNames {
		np := s.pools[name].np
		w(name, strconv.FormatInt(np.Generation, 10), strconv.FormatBool(s.pools[name].launchable))
		for _, reason := range []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonUnderutilized} {
			w(strconv.Itoa(s.budget(name, reason).allowed()))
		}
	}
	for _, n := range s.nodes {
		w(n.Name(), n.NodeClaim.Labels[karpv1.LabelInstanceType], strconv.FormatBool(n.markedForDisruption()), strconv.FormatBool(n.nominated))
		for _, t := range []string{karpv1.ConditionTypeInitialized, karpv1.ConditionTypeConsolidatable, karpv1.ConditionTypeDrifted} {
			w(string(conditionStatus(n.NodeClaim, t)))
		}
		if n.price != 0 {
			w(strconv.FormatFloat(n.price, 'g', -1, 64))
		}
		for _, pod := range n.Pods {
			protected, _, _ := podutil.DoNotDisrupt(pod, s.now)
			w(string(pod.UID), pod.Annotations[karpv1.DoNotDisruptAnnotationKey], strconv.FormatBool(protected))
		}
	}
	for _, pod := range s.pending {
		w(string(pod.UID))
	}
	for _, ns := range sortedKeys(s.pdbs) {
		for _, p := range s.pdbs[ns] {
			w(ns, p.pdb.Name, strconv.Itoa(int(p.pdb.Status.DisruptionsAllowed)))
		}
	}
	return h.Sum64()
}
