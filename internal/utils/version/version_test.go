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

package version

import (
	"slices"
	"testing"
)

func TestMinor(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{in: "1.36", want: "1.36"},
		{in: "1.36.4", want: "1.36"},
		{in: "v1.36.4", want: "1.36"},
		{in: "v1.37.2-kwok", want: "1.37"},
		{in: "v1.35.1+build.7", want: "1.35"},
		{in: "2.0", want: "2.0"},
		{in: "1", err: true},
		{in: "", err: true},
		{in: "one.two", err: true},
		{in: "1.x", err: true},
		{in: "01.36", err: true},
	} {
		got, err := Minor(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("Minor(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && got.String() != tc.want {
			t.Errorf("Minor(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCompareMinor(t *testing.T) {
	versions := []string{"1.10", "zeta", "v1.9.3", "1.36", "alpha", "2.0", "1.9"}
	slices.SortStableFunc(versions, CompareMinor)
	want := []string{"v1.9.3", "1.9", "1.10", "1.36", "2.0", "alpha", "zeta"}
	if !slices.Equal(versions, want) {
		t.Errorf("sorted %v, want %v", versions, want)
	}
	if c := CompareMinor("1.36.1", "v1.36.9"); c != 0 {
		t.Errorf("CompareMinor of two patches of 1.36 = %d, want 0", c)
	}
}
