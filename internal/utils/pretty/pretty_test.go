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

package pretty

import "testing"

func TestSlice(t *testing.T) {
	for _, c := range []struct {
		items []string
		max   int
		want  string
	}{
		{nil, 5, ""},
		{[]string{"a"}, 5, "a"},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d"}, 3, "a, b, c and 1 other(s)"},
	} {
		if got := Slice(c.items, c.max); got != c.want {
			t.Errorf("Slice(%q, %d) = %q, want %q", c.items, c.max, got, c.want)
		}
	}
}
