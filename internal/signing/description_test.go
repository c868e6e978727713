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

package signing

import (
	"strings"
	"testing"
)

// checkDescription guards Sign against a future marker format that KakaoCloud would reject;
// today's markers always pass it, so its rules are tested here directly.
func TestCheckDescription(t *testing.T) {
	for _, tc := range []struct {
		name        string
		description string
		want        string // error substring; empty means accepted
	}{
		{name: "every allowed ASCII character", description: `azAZ09 .,!?()[]{}:;"'@#%&*+=_/\|<>~-`},
		{name: "Hangul", description: "카펜터 노드"},
		{name: "100 Hangul characters", description: strings.Repeat("한", 100)},
		{name: "101 characters", description: strings.Repeat("a", 101), want: "101 characters, at most 100 allowed"},
		{name: "newline", description: "a\nb", want: `character '\n' is not allowed`},
		{name: "dollar", description: "$5", want: `character '$' is not allowed`},
		{name: "backquote", description: "`x`", want: "character '`' is not allowed"},
		{name: "accented letter", description: "café", want: `character 'é' is not allowed`},
		{name: "emoji", description: "node 🚀", want: `is not allowed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkDescription(tc.description)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("rejected %q: %v", tc.description, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("checkDescription(%q) = %v, want an error saying %q", tc.description, err, tc.want)
			}
		})
	}
}
