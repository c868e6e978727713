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

package v1_test

import (
	"testing"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Importing the KakaoCloud API registers its label keys as well-known, which makes them usable
// in NodePool requirements and restricts the rest of its domain.
func TestProviderLabelsAreWellKnown(t *testing.T) {
	for _, key := range []string{
		kcv1.LabelInstanceFamily, kcv1.LabelInstanceSize, kcv1.LabelInstanceCPU,
		kcv1.LabelInstanceMemory, kcv1.LabelInstanceGPUCount, kcv1.LabelInstanceGPUName,
	} {
		if !karpv1.WellKnownLabels.Has(key) {
			t.Errorf("%s is not a well-known label", key)
		}
		if karpv1.IsRestrictedLabel(key) {
			t.Errorf("%s is restricted, want allowed", key)
		}
	}
}

func TestIsRestrictedLabel(t *testing.T) {
	cases := map[string]bool{
		"karpenter.kakaocloud.com/instance-generation": true,
		"karpenter.sh/nodepool":                        true,
		"karpenter.sh/initialized":                     true,
		"karpenter.sh/capacity-type":                   false,
		"kubernetes.io/hostname":                       true,
		"kubernetes.io/arch":                           false,
		"kubernetes.io/custom":                         false,
		"topology.kubernetes.io/zone":                  false,
		"topology.kubernetes.io/rack":                  false,
		"node.kubernetes.io/instance-type":             false,
		"node.kubernetes.io/role":                      false,
		"node-restriction.kubernetes.io/team":          false,
		"example.k8s.io/thing":                         false,
		"kops.k8s.io/instancegroup":                    false,
		"team":                                         false,
		"example.com/team":                             false,
	}
	for key, want := range cases {
		if got := karpv1.IsRestrictedLabel(key); got != want {
			t.Errorf("IsRestrictedLabel(%q) = %v, want %v", key, got, want)
		}
	}
}
