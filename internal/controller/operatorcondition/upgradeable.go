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

package operatorcondition

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Reasons of the Upgradeable condition.
const (
	// ReasonVersionUnsupportedByNextRelease: a KCNodeClass asks for a Kubernetes minor older
	// than the next release supports.
	ReasonVersionUnsupportedByNextRelease = "KubernetesVersionUnsupportedByNextRelease"
	// ReasonNodesBeingReplaced: a KCNodeClass's version changed and NodeClaims of the old
	// version are still there (drifted, or being replaced).
	ReasonNodesBeingReplaced = "NodesBeingReplaced"
	// ReasonUpgradeable: every KCNodeClass and all of its nodes are on a version the next
	// release supports.
	ReasonUpgradeable = "Upgradeable"
	// ReasonInvalidMinimum: the configured minimum is not a version; nothing is blocked on it.
	ReasonInvalidMinimum = "InvalidNextReleaseMinimum"
)

// Upgradeable is what the operator tells OLM about upgrading it to the next release.
type Upgradeable struct {
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

// ComputeUpgradeable decides Upgradeable from every KCNodeClass and NodeClaim: False while a
// KCNodeClass's kubernetesVersion is older than nextReleaseMinimum (the oldest minor the
// next release supports), or while NodeClaims of a KCNodeClass are still on another version
// than the one it now asks for (SPEC S24: an upgrade waits until the roll by drift is
// finished). The message names the KCNodeClasses, sorted, so that it only changes when they do.
func ComputeUpgradeable(nodeClasses []kcv1.KCNodeClass, nodeClaims []karpv1.NodeClaim, nextReleaseMinimum string) Upgradeable {
	minimum, err := version.ParseGeneric(nextReleaseMinimum)
	if err != nil {
		return Upgradeable{Status: metav1.ConditionTrue, Reason: ReasonInvalidMinimum,
			Message: fmt.Sprintf("the next release's minimum Kubernetes version %q is not a version: nothing is checked against it", nextReleaseMinimum)}
	}
	var unsupported, replacing []string
	for i := range nodeClasses {
		nodeClass := &nodeClasses[i]
		want := nodeClass.Spec.Bootstrap.KubernetesVersion
		if v, err := version.ParseGeneric(want); err == nil && v.LessThan(minimum) {
			unsupported = append(unsupported, fmt.Sprintf("%s (%s)", nodeClass.Name, want))
		}
		behind := map[string]int{}
		for j := range nodeClaims {
			nodeClaim := &nodeClaims[j]
			if nodeClaim.Spec.NodeClassRef == nil || nodeClaim.Spec.NodeClassRef.Name != nodeClass.Name {
				continue
			}
			if have, ok := nodeClaim.Annotations[kcv1.AnnotationKubernetesVersion]; ok && have != want {
				behind[have]++
			}
		}
		if len(behind) > 0 {
			replacing = append(replacing, fmt.Sprintf("%s (%s; it asks for %s)", nodeClass.Name, counts(behind), want))
		}
	}
	sort.Strings(unsupported)
	sort.Strings(replacing)
	switch {
	case len(unsupported) > 0:
		message := fmt.Sprintf("KCNodeClasses on a Kubernetes version the next release no longer supports (it supports %s and later): %s; "+
			"move them to a supported version first", nextReleaseMinimum, strings.Join(unsupported, ", "))
		if len(replacing) > 0 {
			message += "; nodes still being replaced: " + strings.Join(replacing, ", ")
		}
		return Upgradeable{Status: metav1.ConditionFalse, Reason: ReasonVersionUnsupportedByNextRelease, Message: message}
	case len(replacing) > 0:
		return Upgradeable{Status: metav1.ConditionFalse, Reason: ReasonNodesBeingReplaced,
			Message: "nodes are still being replaced after a Kubernetes version change: " + strings.Join(replacing, ", ")}
	}
	return Upgradeable{Status: metav1.ConditionTrue, Reason: ReasonUpgradeable,
		Message: fmt.Sprintf("every KCNodeClass and its nodes are on Kubernetes %s or later", nextReleaseMinimum)}
}

// counts writes {1.34: 2, 1.35: 1} as "2 nodes on 1.34, 1 node on 1.35".
func counts(byVersion map[string]int) string {
	versions := make([]string, 0, len(byVersion))
	for v := range byVersion {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	parts := make([]string, len(versions))
	for i, v := range versions {
		noun := "nodes"
		if byVersion[v] == 1 {
			noun = "node"
		}
		parts[i] = fmt.Sprintf("%d %s on %s", byVersion[v], noun, v)
	}
	return strings.Join(parts, ", ")
}
