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

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
)

func TestDriftMessage(t *testing.T) {
	nodeClaim := &karpv1.NodeClaim{Spec: karpv1.NodeClaimSpec{NodeClassRef: &karpv1.NodeClassReference{Name: "default"}}}
	nodeClaim.Annotations = map[string]string{kcv1.AnnotationKubernetesVersion: "1.35", kcv1.AnnotationSubnetID: "subnet-old"}
	nodeClaim.Status.ImageID = "image-old"
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec:       kcv1.KCNodeClassSpec{Bootstrap: kcv1.Bootstrap{KubernetesVersion: "1.36"}},
		Status: kcv1.KCNodeClassStatus{
			Images:         []kcv1.Image{{ID: "image-new"}},
			Subnets:        []kcv1.Subnet{{ID: "subnet-new"}},
			SecurityGroups: []kcv1.SecurityGroup{{Name: "workers-v2"}},
		},
	}
	for reason, want := range map[cloudprovider.DriftReason]string{
		kakao.DriftKubernetesVersion: "the node was launched for Kubernetes 1.35; KCNodeClass default now asks for 1.36",
		kakao.DriftImage:             "the VM's image image-old is not one of KCNodeClass default's images now (image-new)",
		kakao.DriftSubnet:            "the VM's subnet subnet-old is not one of KCNodeClass default's subnets now (subnet-new)",
		kakao.DriftSecurityGroup:     "the VM's security groups differ from KCNodeClass default's (workers-v2)",
		kakao.DriftNodeClass:         "KCNodeClass default's key pair, root volume, kubelet settings or user data changed",
		"SomethingElse":              "the VM no longer matches KCNodeClass default (SomethingElse)",
	} {
		if got := kakao.DriftMessage(reason, nodeClaim, nodeClass); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", reason, got, want)
		}
	}
}
