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

package kakao

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// requirementsSelector turns NodeClaim requirements into a node selector the Kubernetes
// helpers can match. Gte and Lte become Gt and Lt on the neighbouring integer.
func requirementsSelector(reqs []karpv1.NodeSelectorRequirementWithMinValues) (*nodeaffinity.NodeSelector, error) {
	term := corev1.NodeSelectorTerm{}
	for _, r := range reqs {
		nsr := r.NodeSelectorRequirement()
		switch r.Operator {
		case karpv1.NodeSelectorOpGte, karpv1.NodeSelectorOpLte:
			if len(r.Values) != 1 {
				return nil, fmt.Errorf("requirement %s %s needs one integer value", r.Key, r.Operator)
			}
			n, err := strconv.Atoi(r.Values[0])
			if err != nil {
				return nil, fmt.Errorf("requirement %s %s %q: %w", r.Key, r.Operator, r.Values[0], err)
			}
			if r.Operator == karpv1.NodeSelectorOpGte {
				nsr.Operator, nsr.Values = corev1.NodeSelectorOpGt, []string{strconv.Itoa(n - 1)}
			} else {
				nsr.Operator, nsr.Values = corev1.NodeSelectorOpLt, []string{strconv.Itoa(n + 1)}
			}
		}
		term.MatchExpressions = append(term.MatchExpressions, nsr)
	}
	selector, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}})
	if err != nil {
		return nil, fmt.Errorf("reading the requirements as a node selector: %w", err)
	}
	return selector, nil
}

// matches reports whether a node with these labels satisfies the selector.
func matches(selector *nodeaffinity.NodeSelector, labels map[string]string) bool {
	node := &corev1.Node{}
	node.Labels = labels
	return selector.Match(node)
}
