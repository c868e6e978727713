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
	"fmt"
	"math"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// exponentForm is a quantity written with a decimal exponent, such as 5e9, 1.5E-3 or E5 (which
// ParseQuantity reads as 0); its group is the exponent's digits without leading zeros. 1E (exa)
// and 1Ei (exbi) are suffixes.
var exponentForm = regexp.MustCompile(`^[+-]?[0-9.]*[eE][-+]?0*([0-9]*)$`)

// maxExponentDigits bounds the exponents handed to resource.ParseQuantity: its time grows
// faster than the exponent (a second for 1e-10000000, minutes for 1e-999999999), so one field
// of a KCNodeClass could stall every reconcile that reads it. No resource of a node needs more
// than three digits: a quantity keeps nine decimals, and maxQuantity bounds its value.
const maxExponentDigits = 3

// maxQuantity is the largest quantity whose Value and MilliValue are right (beyond it they wrap
// or are 0), about 9.2e15: 8 PiB of memory, more than any node has.
var maxQuantity = *resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)

// ParseNonNegative reads value, trimmed, as a quantity of a node's resources: from 0 to
// maxQuantity, with an exponent of at most three digits.
func ParseNonNegative(value string) (resource.Quantity, error) {
	value = strings.TrimSpace(value)
	if m := exponentForm.FindStringSubmatch(value); m != nil && len(m[1]) > maxExponentDigits {
		return resource.Quantity{}, fmt.Errorf("%q is not a quantity: its exponent has more than %d digits", value, maxExponentDigits)
	}
	q, err := resource.ParseQuantity(value)
	switch {
	case err != nil:
		return resource.Quantity{}, fmt.Errorf("%q is not a quantity", value)
	case q.Sign() < 0:
		return resource.Quantity{}, fmt.Errorf("%q is negative", value)
	case q.Cmp(maxQuantity) > 0:
		return resource.Quantity{}, fmt.Errorf("%q is larger than any node's resource (at most 9.2e15)", value)
	}
	return q, nil
}
