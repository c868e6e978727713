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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

func nodeClass(name, version string) kcv1.KCNodeClass {
	nodeClass := kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	nodeClass.Spec.Bootstrap.KubernetesVersion = version
	return nodeClass
}

func nodeClaim(name, nodeClassName, version string) karpv1.NodeClaim {
	nodeClaim := karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}}
	nodeClaim.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: kcv1.GroupVersion.Group, Kind: "KCNodeClass", Name: nodeClassName}
	if version != "" {
		nodeClaim.Annotations = map[string]string{kcv1.AnnotationKubernetesVersion: version}
	}
	return nodeClaim
}

func TestComputeUpgradeable(t *testing.T) {
	for _, tc := range []struct {
		name        string
		nodeClasses []kcv1.KCNodeClass
		nodeClaims  []karpv1.NodeClaim
		minimum     string
		want        Upgradeable
	}{{
		name:    "nothing to hold",
		minimum: "1.34",
		want:    Upgradeable{metav1.ConditionTrue, ReasonUpgradeable, "every KCNodeClass and its nodes are on Kubernetes 1.34 or later"},
	}, {
		name:        "every KCNodeClass and node supported",
		nodeClasses: []kcv1.KCNodeClass{nodeClass("a", "1.34"), nodeClass("b", "1.36")},
		nodeClaims:  []karpv1.NodeClaim{nodeClaim("a-1", "a", "1.34"), nodeClaim("b-1", "b", "1.36")},
		minimum:     "1.34",
		want:        Upgradeable{metav1.ConditionTrue, ReasonUpgradeable, "every KCNodeClass and its nodes are on Kubernetes 1.34 or later"},
	}, {
		name:        "KCNodeClasses older than the next release supports are named, sorted",
		nodeClasses: []kcv1.KCNodeClass{nodeClass("zeta", "1.33"), nodeClass("ok", "1.35"), nodeClass("alpha", "1.34")},
		minimum:     "1.35",
		want: Upgradeable{metav1.ConditionFalse, ReasonVersionUnsupportedByNextRelease,
			"KCNodeClasses on a Kubernetes version the next release no longer supports (it supports 1.35 and later): alpha (1.34), zeta (1.33); move them to a supported version first"},
	}, {
		name:        "minor 1.100 is not older than 1.99",
		nodeClasses: []kcv1.KCNodeClass{nodeClass("a", "1.100")},
		minimum:     "1.99",
		want:        Upgradeable{metav1.ConditionTrue, ReasonUpgradeable, "every KCNodeClass and its nodes are on Kubernetes 1.99 or later"},
	}, {
		name:        "nodes still on the old version after a change hold the upgrade",
		nodeClasses: []kcv1.KCNodeClass{nodeClass("a", "1.36"), nodeClass("b", "1.36")},
		nodeClaims: []karpv1.NodeClaim{
			nodeClaim("a-1", "a", "1.35"), nodeClaim("a-2", "a", "1.35"), nodeClaim("a-3", "a", "1.34"), nodeClaim("a-4", "a", "1.36"),
			nodeClaim("b-1", "b", "1.36"),
		},
		minimum: "1.34",
		want: Upgradeable{metav1.ConditionFalse, ReasonNodesBeingReplaced,
			"nodes are still being replaced after a Kubernetes version change: a (1 node on 1.34, 2 nodes on 1.35; it asks for 1.36)"},
	}, {
		name:        "both: the unsupported reason leads, the replacements follow",
		nodeClasses: []kcv1.KCNodeClass{nodeClass("old", "1.33"), nodeClass("moving", "1.36")},
		nodeClaims:  []karpv1.NodeClaim{nodeClaim("m-1", "moving", "1.35")},
		minimum:     "1.34",
		want: Upgradeable{metav1.ConditionFalse, ReasonVersionUnsupportedByNextRelease,
			"KCNodeClasses on a Kubernetes version the next release no longer supports (it supports 1.34 and later): old (1.33); move them to a supported version first; " +
				"nodes still being replaced: moving (1 node on 1.35; it asks for 1.36)"},
	}, {
		name:        "NodeClaims of another KCNodeClass, or not yet launched (no version), do not count",
		nodeClasses: []kcv1.KCNodeClass{nodeClass("a", "1.36")},
		nodeClaims:  []karpv1.NodeClaim{nodeClaim("x-1", "x", "1.34"), nodeClaim("a-1", "a", "")},
		minimum:     "1.34",
		want:        Upgradeable{metav1.ConditionTrue, ReasonUpgradeable, "every KCNodeClass and its nodes are on Kubernetes 1.34 or later"},
	}, {
		name:        "a minimum that is not a version holds nothing and says so",
		nodeClasses: []kcv1.KCNodeClass{nodeClass("a", "1.30")},
		minimum:     "latest",
		want: Upgradeable{metav1.ConditionTrue, ReasonInvalidMinimum,
			`the next release's minimum Kubernetes version "latest" is not a version: nothing is checked against it`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ComputeUpgradeable(tc.nodeClasses, tc.nodeClaims, tc.minimum); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
