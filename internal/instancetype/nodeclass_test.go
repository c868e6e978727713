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

package instancetype

import (
	"math"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// FuzzParseEvictionThreshold checks that no value crashes the parser and that a percentage
// never takes more than the whole capacity, however large the volume.
func FuzzParseEvictionThreshold(f *testing.F) {
	for _, seed := range []string{"10%", "7.5%", "100%", "0%", "33.333333333333333%", "150%", "1e1%", "%", "500Mi", "-1Gi", "abc", "1e-99999999", "1e100"} {
		f.Add(seed)
	}
	capacities := []int64{0, 1, 50 << 30, 5120 << 30, math.MaxInt64}
	f.Fuzz(func(t *testing.T, value string) {
		threshold, err := parseEvictionThreshold(value)
		if err != nil {
			return
		}
		for _, capacity := range capacities {
			got := threshold.of(*resource.NewQuantity(capacity, resource.BinarySI))
			if got.Sign() < 0 || (threshold.denominator != 0 && got.Value() > capacity) {
				t.Errorf("%q of %d = %s, want from 0 to the capacity", value, capacity, got.String())
			}
		}
	})
}
