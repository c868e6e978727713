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

package resources

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParseNonNegative(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    string
		wantErr string
	}{
		{value: "500Mi", want: "500Mi"},
		{value: " 1.5 ", want: "1500m"},
		{value: "0", want: "0"},
		{value: "5e9", want: "5G"},
		{value: "1e-999", want: "1n"},
		{value: "1e-0000000000009", want: "1n"},
		{value: "8Pi", want: "8Pi"},
		{value: "9e15", want: "9P"},
		{value: "9223372036854775807m", want: "9223372036854775807m"},
		{value: "9223372036854775808m", wantErr: `"9223372036854775808m" is larger than any node's resource (at most 9.2e15)`},
		{value: "1e-99999999", wantErr: `"1e-99999999" is not a quantity: its exponent has more than 3 digits`},
		{value: "E01000200000", wantErr: `"E01000200000" is not a quantity: its exponent has more than 3 digits`},
		{value: "1E+1000", wantErr: `"1E+1000" is not a quantity: its exponent has more than 3 digits`},
		{value: "1e100", wantErr: `"1e100" is larger than any node's resource (at most 9.2e15)`},
		{value: "1E", wantErr: `"1E" is larger than any node's resource (at most 9.2e15)`},
		{value: "-1Gi", wantErr: `"-1Gi" is negative`},
		{value: "abc", wantErr: `"abc" is not a quantity`},
		{value: "1 Gi", wantErr: `"1 Gi" is not a quantity`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			q, err := ParseNonNegative(tc.value)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ParseNonNegative(%q) = %s, %v; want the error %s", tc.value, q.String(), err, tc.wantErr)
				}
				return
			}
			if err != nil || q.Cmp(resource.MustParse(tc.want)) != 0 {
				t.Fatalf("ParseNonNegative(%q) = %s, %v; want %s", tc.value, q.String(), err, tc.want)
			}
			if q.Value() < 0 || q.MilliValue() < 0 {
				t.Fatalf("ParseNonNegative(%q) = %s, whose value wraps: %d, %dm", tc.value, q.String(), q.Value(), q.MilliValue())
			}
		})
	}
}
