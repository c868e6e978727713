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
	"cmp"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// Minor reads the minor version of "1.36", "1.36.4", "v1.36.4" or a kubelet's "v1.36.4-kwok":
// 1.36, with no patch.
func Minor(s string) (*version.Version, error) {
	v, err := version.ParseGeneric(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a Kubernetes version", s)
	}
	return version.MajorMinor(v.Major(), v.Minor()), nil
}

// CompareMinor orders minor versions oldest first, 1.9 before 1.10. What does not parse goes
// last, by name, so that a list with a stray entry still sorts the same way every time.
func CompareMinor(a, b string) int {
	x, errX := Minor(a)
	y, errY := Minor(b)
	switch {
	case errX != nil && errY != nil:
		return strings.Compare(a, b)
	case errX != nil:
		return 1
	case errY != nil:
		return -1
	}
	return cmp.Or(cmp.Compare(x.Major(), y.Major()), cmp.Compare(x.Minor(), y.Minor()))
}
