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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// driftSetup adjusts the NodeClaim and NodePool of a drift case.
type driftSetup func(*karpv1.NodeClaim, *karpv1.NodePool)

const testZone = "kr-central-2-a"

// launchedNodeClaim is a NodeClaim of NodePool default launched as an m2a.large in testZone,
// labelled as its node is.
func launchedNodeClaim() *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{
			karpv1.LabelNodePool: "default", karpv1.LabelTopologyZone: testZone, karpv1.LabelCapacityType: karpv1.CapacityTypeOnDemand,
			corev1.LabelInstanceTypeStable: "m2a.large", kcv1.LabelInstanceFamily: "m2a", kcv1.LabelInstanceCPU: "2",
		}},
		Spec: karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"}},
	}
}

func TestStaticDrift(t *testing.T) {
	stamped := func(hash, version string) driftSetup {
		return func(nodeClaim *karpv1.NodeClaim, _ *karpv1.NodePool) {
			metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, karpv1.NodePoolHashAnnotationKey, hash)
			metav1.SetMetaDataAnnotation(&nodeClaim.ObjectMeta, karpv1.NodePoolHashVersionAnnotationKey, version)
		}
	}
	requires := func(key string, op corev1.NodeSelectorOperator, values ...string) driftSetup {
		return func(_ *karpv1.NodeClaim, np *karpv1.NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
		}
	}
	for _, tc := range []struct {
		name    string
		setup   []driftSetup
		reason  cloudprovider.DriftReason
		message string
	}{
		{name: "same hash", setup: nil},
		{name: "template changed", setup: []driftSetup{stamped("old", "v1")},
			reason: DriftNodePool, message: "NodePool default's template changed since the node was launched (template hash old, now new)"},
		{name: "another hash version is not drift (it is re-stamped)", setup: []driftSetup{stamped("old", "v0")}},
		{name: "an unstamped NodeClaim is not drifted by hash", setup: []driftSetup{stamped("", "")}},
		{name: "requirements still met", setup: []driftSetup{requires(kcv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, "m2a", "c2a")}},
		{name: "a narrower requirement the node meets", setup: []driftSetup{requires(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpGt, "1")}},
		{name: "requirement no longer met", setup: []driftSetup{requires(kcv1.LabelInstanceFamily, corev1.NodeSelectorOpIn, "c2a")},
			reason: DriftRequirements, message: "the node's labels no longer satisfy NodePool default's requirements: key karpenter.kakaocloud.com/instance-family"},
		{name: "zone excluded", setup: []driftSetup{requires(karpv1.LabelTopologyZone, corev1.NodeSelectorOpNotIn, testZone)},
			reason: DriftRequirements, message: "topology.kubernetes.io/zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default", Annotations: map[string]string{
				karpv1.NodePoolHashAnnotationKey: "new", karpv1.NodePoolHashVersionAnnotationKey: "v1",
			}}}
			nodeClaim := launchedNodeClaim()
			nodeClaim.Annotations = map[string]string{karpv1.NodePoolHashAnnotationKey: "new", karpv1.NodePoolHashVersionAnnotationKey: "v1"}
			for _, s := range tc.setup {
				s(nodeClaim, np)
			}
			reason, message := StaticDrift(nodeClaim, np)
			if reason != tc.reason || !strings.Contains(message, tc.message) {
				t.Errorf("StaticDrift = %q, %q; want %q containing %q", reason, message, tc.reason, tc.message)
			}
		})
	}
}
