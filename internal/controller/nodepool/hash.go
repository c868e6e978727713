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

package nodepool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// HashVersion changes when Hash's inputs change, so that NodeClaims stamped the old way are
// re-stamped instead of all drifting at once.
const HashVersion = "v1"

// Hash summarises the parts of a NodePool's template that are fixed on a node when it is
// launched: labels, annotations, taints, startup taints, the node class, expireAfter and
// terminationGracePeriod. A NodeClaim whose stamp differs from its NodePool's has drifted.
// Requirements and budgets are left out: requirements are checked against the node's labels
// instead (a narrower requirement the node still meets is no drift), and budgets do not
// shape nodes.
func Hash(np *karpv1.NodePool) string {
	t := np.Spec.Template
	hashed := struct {
		Labels                 map[string]string          `json:"labels,omitempty"`
		Annotations            map[string]string          `json:"annotations,omitempty"`
		Taints                 []corev1.Taint             `json:"taints,omitempty"`
		StartupTaints          []corev1.Taint             `json:"startupTaints,omitempty"`
		NodeClassRef           *karpv1.NodeClassReference `json:"nodeClassRef,omitempty"`
		ExpireAfter            string                     `json:"expireAfter"`
		TerminationGracePeriod string                     `json:"terminationGracePeriod,omitempty"`
	}{
		Labels:        t.Labels,
		Annotations:   t.Annotations,
		Taints:        sortedTaints(t.Spec.Taints),
		StartupTaints: sortedTaints(t.Spec.StartupTaints),
		NodeClassRef:  t.Spec.NodeClassRef,
		ExpireAfter:   karpv1.Never,
	}
	if d := t.Spec.ExpireAfter.Duration; d != nil {
		hashed.ExpireAfter = d.String()
	}
	if g := t.Spec.TerminationGracePeriod; g != nil {
		hashed.TerminationGracePeriod = g.Duration.String()
	}
	// encoding/json writes struct fields in order and map keys sorted: a stable encoding.
	raw, err := json.Marshal(hashed)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// sortedTaints orders taints so that their order in the manifest does not matter.
func sortedTaints(taints []corev1.Taint) []corev1.Taint {
	out := slices.Clone(taints)
	slices.SortFunc(out, func(a, b corev1.Taint) int {
		return strings.Compare(a.Key+"\x00"+string(a.Effect)+"\x00"+a.Value, b.Key+"\x00"+string(b.Effect)+"\x00"+b.Value)
	})
	for i := range out {
		out[i].TimeAdded = nil
	}
	return out
}
