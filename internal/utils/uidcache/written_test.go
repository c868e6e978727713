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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestWritten(t *testing.T) {
	at := func(uid, version string) *metav1.ObjectMeta {
		return &metav1.ObjectMeta{UID: types.UID(uid), ResourceVersion: version}
	}
	now := time.Unix(1_000_000, 0)
	var w Written
	if w.Behind(at("a", "5"), now) {
		t.Fatal("an object never written is behind")
	}
	w.Record(at("a", "10"), now)
	for _, tc := range []struct {
		version string
		behind  bool
	}{
		{"9", true}, {"10", false}, {"11", false}, {"100", false},
		// Versions that are not increasing integers are not compared.
		{"", false}, {"abc", false}, {"09", false},
	} {
		if got := w.Behind(at("a", tc.version), now); got != tc.behind {
			t.Errorf("written at 10, a copy at %q: behind %v, want %v", tc.version, got, tc.behind)
		}
	}
	if w.Behind(at("b", "1"), now) {
		t.Error("another object is behind a's write")
	}
	// A write answered later but at an older version (it raced a newer one) is not remembered
	// over the newer.
	w.Record(at("a", "8"), now)
	if !w.Behind(at("a", "9"), now) {
		t.Error("an older write made a copy at 9 current")
	}
	w.Record(at("a", "12"), now)
	if !w.Behind(at("a", "11"), now) {
		t.Error("the later write at 12 was not remembered")
	}
	if w.Behind(at("a", "11"), now.Add(writtenMemory+time.Second)) {
		t.Error("a write is remembered past writtenMemory")
	}
}

func TestWrittenPass(t *testing.T) {
	now := func() time.Time { return time.Unix(1_000_000, 0) }
	var w Written
	obj := &metav1.ObjectMeta{UID: "a", ResourceVersion: "10"}
	stale := obj.DeepCopy()
	// A pass that writes: obj holds the API server's answer.
	res, err := w.Pass(obj, now, func() (reconcile.Result, error) {
		obj.ResourceVersion = "12"
		return reconcile.Result{RequeueAfter: time.Second}, nil
	})
	if err != nil || res.RequeueAfter != time.Second {
		t.Fatalf("the pass's result was not returned: %v, %v", res, err)
	}
	ran := false
	res, err = w.Pass(stale, now, func() (reconcile.Result, error) { ran = true; return reconcile.Result{}, nil })
	if ran || err != nil || res.RequeueAfter != behindRecheck {
		t.Errorf("a pass ran on a copy at 10 after a write at 12, or is not tried again (ran %v, %v, %v)", ran, res, err)
	}
	current := &metav1.ObjectMeta{UID: "a", ResourceVersion: "12"}
	if _, err := w.Pass(current, now, func() (reconcile.Result, error) { ran = true; return reconcile.Result{}, nil }); err != nil || !ran {
		t.Errorf("no pass ran on the copy the last write made (%v)", err)
	}
}
