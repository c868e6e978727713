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
	"testing"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
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
		{"the NodeClaims could not be listed: the last counts stay", observation{signingKeysErr: errors.New("cache not started")}, earlier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := &kcv1.KCNodeClass{Status: kcv1.KCNodeClassStatus{SigningKeys: earlier}}
			if got := computeStatus(nodeClass, tc.obs).SigningKeys; !slices.Equal(got, tc.want) {
				t.Errorf("SigningKeys %v, want %v", got, tc.want)
			}
		})
	}
}
