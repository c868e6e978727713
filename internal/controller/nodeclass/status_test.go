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

package nodeclass

import (
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

func TestSigningKeysStatus(t *testing.T) {
	earlier := []kcv1.SigningKeyUse{{KeyID: "k0", NodeClaims: 3}}
	for _, tc := range []struct {
		name string
		obs  observation
		want []kcv1.SigningKeyUse
	}{
		{"counted, by key id", observation{signingKeys: map[string]int32{"k2": 1, "k1": 2}},
			[]kcv1.SigningKeyUse{{KeyID: "k1", NodeClaims: 2}, {KeyID: "k2", NodeClaims: 1}}},
		{"no NodeClaim launched", observation{signingKeys: map[string]int32{}}, nil},
		{"the NodeClaims could not be listed: the last counts stay", observation{nodeClaimsErr: errors.New("cache not started")}, earlier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := &kcv1.KCNodeClass{Status: kcv1.KCNodeClassStatus{SigningKeys: earlier}}
			if got := computeStatus(nodeClass, tc.obs).SigningKeys; !slices.Equal(got, tc.want) {
				t.Errorf("SigningKeys %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNodesOnControlPlaneVersion(t *testing.T) {
	cluster := func(minor string) *kakaocloud.Cluster {
		return &kakaocloud.Cluster{Version: kakaocloud.KubernetesVersion{MinorVersion: minor}, Status: kakaocloud.ClusterStatus{Phase: kakaocloud.ClusterPhaseProvisioned}}
	}
	earlier := []kcv1.NodeVersionCount{{Version: "1.35", NodeClaims: 2}}
	for _, tc := range []struct {
		name         string
		worker       string
		obs          observation
		wantVersions []kcv1.NodeVersionCount
		wantStatus   metav1.ConditionStatus
		wantReason   string
		wantMessage  string
	}{
		{"every node on the control plane's minor", "1.36", observation{cluster: cluster("1.36"), nodeVersions: map[string]int32{"1.36": 3}},
			[]kcv1.NodeVersionCount{{Version: "1.36", NodeClaims: 3}}, metav1.ConditionTrue, kcv1.ReasonAllNodesOnControlPlaneVersion,
			"all 3 nodes are on 1.36"},
		{"no nodes", "1.36", observation{cluster: cluster("1.36"), nodeVersions: map[string]int32{}},
			nil, metav1.ConditionTrue, kcv1.ReasonAllNodesOnControlPlaneVersion, "all 0 nodes"},
		{"nodes one minor behind while the worker version is still behind too", "1.35",
			observation{cluster: cluster("1.36"), nodeVersions: map[string]int32{"1.36": 1, "1.35": 2, "1.9": 1}},
			[]kcv1.NodeVersionCount{{Version: "1.9", NodeClaims: 1}, {Version: "1.35", NodeClaims: 2}, {Version: "1.36", NodeClaims: 1}},
			metav1.ConditionFalse, kcv1.ReasonNodesOffControlPlaneVersion,
			"3 of 4 nodes are not on 1.36, the control plane's minor version (1 on 1.9, 2 on 1.35), and Kubernetes Engine refuses a control-plane upgrade until they are: set spec.bootstrap.kubernetesVersion to 1.36 (it is 1.35)"},
		{"the worker version is the control plane's and old nodes are drifting", "1.36",
			observation{cluster: cluster("1.36"), nodeVersions: map[string]int32{"1.35": 1}},
			[]kcv1.NodeVersionCount{{Version: "1.35", NodeClaims: 1}}, metav1.ConditionFalse, kcv1.ReasonNodesOffControlPlaneVersion,
			"they are replaced as they drift"},
		{"the NodeClaims cannot be listed: the counts stay, the condition is unknown", "1.36",
			observation{cluster: cluster("1.36"), nodeClaimsErr: errors.New("cache not started")},
			earlier, metav1.ConditionUnknown, kcv1.ReasonNodeVersionsUnknown, "cache not started"},
		{"the control plane's version is not known", "1.36", observation{clusterErr: errors.New("503"), nodeVersions: map[string]int32{"1.36": 1}},
			[]kcv1.NodeVersionCount{{Version: "1.36", NodeClaims: 1}}, metav1.ConditionUnknown, kcv1.ReasonClusterUnavailable, "not known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := &kcv1.KCNodeClass{
				Spec:   kcv1.KCNodeClassSpec{Bootstrap: kcv1.Bootstrap{KubernetesVersion: tc.worker}},
				Status: kcv1.KCNodeClassStatus{NodeVersions: earlier},
			}
			status := computeStatus(nodeClass, tc.obs)
			if !slices.Equal(status.NodeVersions, tc.wantVersions) {
				t.Errorf("NodeVersions %v, want %v", status.NodeVersions, tc.wantVersions)
			}
			c := meta.FindStatusCondition(status.Conditions, kcv1.ConditionTypeNodesOnControlPlaneVersion)
			if c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason || !strings.Contains(c.Message, tc.wantMessage) {
				t.Fatalf("condition %+v, want %s %s containing %q", c, tc.wantStatus, tc.wantReason, tc.wantMessage)
			}
			if ready := meta.FindStatusCondition(status.Conditions, kcv1.ConditionTypeReady); ready != nil && strings.Contains(ready.Message, kcv1.ConditionTypeNodesOnControlPlaneVersion) {
				t.Errorf("Ready depends on NodesOnControlPlaneVersion: %+v", ready)
			}
		})
	}
}

func TestNodeClaimVersion(t *testing.T) {
	launched := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{kcv1.AnnotationKubernetesVersion: "1.35"}}}
	node := func(kubelet string) *corev1.Node {
		return &corev1.Node{Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubelet}}}
	}
	for _, tc := range []struct {
		name      string
		nodeClaim *karpv1.NodeClaim
		node      *corev1.Node
		want      string
	}{
		{"a registered node: its kubelet's minor", launched, node("v1.34.7"), "1.34"},
		{"a node that reports no version yet: the launch's", launched, node(""), "1.35"},
		{"launched, no node yet: the launch's", launched, nil, "1.35"},
		{"not launched yet: the node class's", &karpv1.NodeClaim{}, nil, "1.36"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeClaimVersion(tc.nodeClaim, tc.node, "1.36"); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
