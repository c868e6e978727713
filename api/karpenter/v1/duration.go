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

package v1

import (
	"encoding/json"
	"slices"
	"time"
)

// Never is the value of a NillableDuration that never elapses.
const Never = "Never"

// NillableDuration is a duration that may also be "Never" (Duration == nil). It keeps the text
// it was read from so that writing an object back does not rewrite "720h" as "720h0m0s".
type NillableDuration struct {
	*time.Duration

	raw []byte `hash:"ignore"`
}

// MustParseNillableDuration parses a duration or "Never" and panics on bad input; for
// defaults and tests.
func MustParseNillableDuration(s string) NillableDuration {
	var d NillableDuration
	if err := json.Unmarshal([]byte(`"`+s+`"`), &d); err != nil {
		panic(err)
	}
	return d
}

// UnmarshalJSON accepts a Go duration string or "Never".
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d.raw = slices.Clone(b)
	if s == Never {
		d.Duration = nil
		return nil
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = &parsed
	return nil
}

// MarshalJSON writes the text the value was read from, or "Never" for a nil duration.
func (d NillableDuration) MarshalJSON() ([]byte, error) {
	if d.raw != nil {
		return d.raw, nil
	}
	if d.Duration == nil {
		return json.Marshal(Never)
	}
	return json.Marshal(d.Duration.String())
}

// ToUnstructured lets the unstructured converter (server-side apply, patches) see a string.
func (d NillableDuration) ToUnstructured() any {
	if d.raw != nil {
		var s string
		if err := json.Unmarshal(d.raw, &s); err == nil {
			return s
		}
	}
	if d.Duration == nil {
		return Never
	}
	return d.Duration.String()
}

// DeepCopyInto copies the duration and the text it was read from.
func (d *NillableDuration) DeepCopyInto(out *NillableDuration) {
	*out = NillableDuration{raw: slices.Clone(d.raw)}
	if d.Duration != nil {
		v := *d.Duration
		out.Duration = &v
	}
}

// DeepCopy returns a copy of the duration.
func (d *NillableDuration) DeepCopy() *NillableDuration {
	if d == nil {
		return nil
	}
	out := new(NillableDuration)
	d.DeepCopyInto(out)
	return out
}
