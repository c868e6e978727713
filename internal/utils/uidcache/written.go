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
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Written remembers the resourceVersion a controller last wrote each object at, so that a
// reconcile handed a cached copy older than that can be told apart. The cache serves the copy
// from before the write until the write's watch event arrives: a pass on the older copy would
// only redo the last one's writes, each refused with Conflict by the API server, and read the
// object again to retry them. The zero value is ready to use.
type Written struct {
	once     sync.Once
	versions Cache[string]
}

// writtenMemory is how long a write is remembered: far longer than a cache should trail the
// API server, and short, because versions that go back (etcd restored from a backup) would
// hold every pass of an object until then. A copy still older after it is reconciled as any
// other.
const writtenMemory = time.Minute

// behindRecheck is when a pass left alone is tried again. The write's watch event starts a pass
// too, unless a controller's predicates let it through only for some changes; and what
// started this one (its node, its NodePool) may be nowhere in that event.
const behindRecheck = time.Second

// Pass runs a reconcile's pass on obj, unless obj is Behind: then it returns at once, to be
// tried again after behindRecheck, when the cache has the last write. What the pass wrote obj
// at (its writes leave the API server's answer in obj) is recorded.
func (w *Written) Pass(obj metav1.Object, now func() time.Time, pass func() (reconcile.Result, error)) (reconcile.Result, error) {
	if w.Behind(obj, now()) {
		return reconcile.Result{RequeueAfter: behindRecheck}, nil
	}
	read := obj.GetResourceVersion()
	res, err := pass()
	if obj.GetResourceVersion() != read {
		w.Record(obj, now())
	}
	return res, err
}

// Record remembers obj's resourceVersion, as a write answered it, unless a later one is
// remembered already.
func (w *Written) Record(obj metav1.Object, now time.Time) {
	w.cache().Update(obj.GetUID(), now, func(current string, ok bool) string {
		if ok && older(obj.GetResourceVersion(), current) {
			return current
		}
		return obj.GetResourceVersion()
	})
}

// Behind reports whether obj is older than what was last written of it. Versions that cannot
// be compared (an API server that does not write them as increasing integers) are never
// behind.
func (w *Written) Behind(obj metav1.Object, now time.Time) bool {
	written, ok := w.cache().Get(obj.GetUID(), now)
	return ok && older(obj.GetResourceVersion(), written)
}

func (w *Written) cache() *Cache[string] {
	w.once.Do(func() { w.versions.TTL = writtenMemory })
	return &w.versions
}

func older(a, b string) bool {
	order, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && order < 0
}
