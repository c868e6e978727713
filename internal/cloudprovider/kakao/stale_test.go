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

package kakao_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// A KCNodeClass whose spec changed since its Ready condition was computed (right after a
// version change) must not launch with the old status: the launch waits and is retried,
// without the NodeClaim being refused as if the node class were broken.
func TestCreateWaitsForAStatusOfTheCurrentGeneration(t *testing.T) {
	stale := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 2},
		Spec:       kcv1.KCNodeClassSpec{Bootstrap: kcv1.Bootstrap{KubernetesVersion: "1.36"}},
		Status: kcv1.KCNodeClassStatus{Conditions: []metav1.Condition{{
			Type: kcv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: "Ready", ObservedGeneration: 1,
			LastTransitionTime: metav1.Now(),
		}}},
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(stale).WithStatusSubresource(stale).Build()
	provider, _ := kakao.Assemble(kakao.Components{Kube: kube, ClusterName: "karpenter-demo"})
	claim := &karpv1.NodeClaim{Spec: karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"}}}

	_, err := provider.Create(t.Context(), claim)
	if err == nil || cloudprovider.IsNodeClassNotReady(err) || !strings.Contains(err.Error(), "status is still for generation 1") {
		t.Fatalf("err = %v, want a retriable error about the stale status", err)
	}
}
