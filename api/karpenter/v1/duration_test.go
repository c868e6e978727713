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
	"testing"
	"time"
)

func TestNillableDurationRoundTrip(t *testing.T) {
	cases := []struct {
		in      string
		want    *time.Duration
		written string
	}{
		{in: `"720h"`, want: new(720 * time.Hour), written: `"720h"`},
		{in: `"1h30m"`, want: new(90 * time.Minute), written: `"1h30m"`},
		{in: `"Never"`, want: nil, written: `"Never"`},
	}
	for _, c := range cases {
		var d NillableDuration
		if err := json.Unmarshal([]byte(c.in), &d); err != nil {
			t.Fatalf("unmarshal %s: %v", c.in, err)
		}
		if (d.Duration == nil) != (c.want == nil) || (d.Duration != nil && *d.Duration != *c.want) {
			t.Errorf("unmarshal %s = %v, want %v", c.in, d.Duration, c.want)
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("marshal %s: %v", c.in, err)
		}
		if string(out) != c.written {
			t.Errorf("marshal %s = %s, want %s", c.in, out, c.written)
		}
		if copied := d.DeepCopy(); copied.Duration == d.Duration && d.Duration != nil {
			t.Errorf("DeepCopy of %s shares the duration pointer", c.in)
		}
	}
}

func TestNillableDurationRejectsGarbage(t *testing.T) {
	for _, in := range []string{`"30d"`, `"soon"`, `42`} {
		var d NillableDuration
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("unmarshal %s: want an error", in)
		}
	}
}

func TestNillableDurationWithoutTextWritesGoDuration(t *testing.T) {
	d := NillableDuration{Duration: new(2 * time.Minute)}
	out, err := json.Marshal(d)
	if err != nil || string(out) != `"2m0s"` {
		t.Errorf("marshal = %s, %v; want \"2m0s\"", out, err)
	}
	if out, _ := json.Marshal(NillableDuration{}); string(out) != `"Never"` {
		t.Errorf("marshal of nil duration = %s, want \"Never\"", out)
	}
}

// FuzzNillableDuration reads arbitrary JSON as a NillableDuration: what it accepts writes back
// to text that reads as the same value, and what is written is a JSON string.
func FuzzNillableDuration(f *testing.F) {
	for _, seed := range []string{`"720h"`, `"Never"`, `"1h30m"`, `"-5s"`, `"0"`, `"9999999999h"`, `"never"`, `null`, `5`, `"\u0000"`, `"1e3s"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d NillableDuration
		if err := json.Unmarshal(data, &d); err != nil {
			return
		}
		written, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("%q read, but not written: %v", data, err)
		}
		var s string
		if err := json.Unmarshal(written, &s); err != nil {
			t.Fatalf("%q is written as %s, which is not a JSON string", data, written)
		}
		var again NillableDuration
		if err := json.Unmarshal(written, &again); err != nil {
			t.Fatalf("%q is written as %s, which does not read back: %v", data, written, err)
		}
		if (d.Duration == nil) != (again.Duration == nil) || (d.Duration != nil && *d.Duration != *again.Duration) {
			t.Fatalf("%q reads as %v, but its written form %s as %v", data, d.Duration, written, again.Duration)
		}
	})
}
