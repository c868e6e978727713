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

package uidcache

import (
	"testing"
	"time"
)

func TestCache(t *testing.T) {
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	c := &Cache[string]{TTL: time.Hour}
	if _, ok := c.Get("a", now); ok {
		t.Fatal("an empty cache holds a value")
	}
	c.Set("a", "launched", now)
	if v, ok := c.Get("a", now.Add(time.Hour)); !ok || v != "launched" {
		t.Errorf("within the TTL: %q, %v", v, ok)
	}
	if _, ok := c.Get("a", now.Add(time.Hour+time.Second)); ok {
		t.Error("a value past its TTL is still given")
	}
	c.Update("b", now, func(current string, ok bool) string {
		if ok {
			t.Error("b has no value yet")
		}
		return current + "x"
	})
	if got := c.Update("b", now, func(current string, _ bool) string { return current + "y" }); got != "xy" {
		t.Errorf("updated twice: %q", got)
	}
	// Setting after two TTLs sweeps what expired.
	c.Set("c", "new", now.Add(2*time.Hour+time.Second))
	if len(c.entries) != 1 {
		t.Errorf("%d entries after the sweep, want c alone", len(c.entries))
	}
	c.Delete("c")
	if _, ok := c.Get("c", now.Add(2*time.Hour+time.Second)); ok {
		t.Error("a deleted value is given")
	}
	kept := &Cache[int]{}
	kept.Set("d", 1, now)
	if v, ok := kept.Get("d", now.Add(1000*time.Hour)); !ok || v != 1 {
		t.Error("without a TTL a value stays until deleted")
	}
}
