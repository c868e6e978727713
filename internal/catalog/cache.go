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

package catalog

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// fetchTimeout bounds one refresh. A refresh runs detached from the caller that started it,
// because every caller waiting on the same refresh shares its result.
const fetchTimeout = time.Minute

// entry caches one value for a time-to-live and lets a single refresh run at a time: callers
// that arrive during a refresh wait for its result instead of calling KakaoCloud again.
type entry[T any] struct {
	mu        sync.Mutex
	value     T
	fetchedAt time.Time
	valid     bool
	inflight  *refresh[T]
}

type refresh[T any] struct {
	done  chan struct{}
	value T
	err   error
}

// get returns the cached value while it is younger than ttl, else the result of a refresh.
// A failed refresh keeps the old value cached (callers decide whether a stale value is good
// enough through stale()).
func (e *entry[T]) get(ctx context.Context, ttl time.Duration, now func() time.Time, fetch func(context.Context) (T, error)) (T, error) {
	e.mu.Lock()
	// A clock that went back (a fake one a suite resets, or a host's) makes an entry stale
	// rather than fresh for longer than its TTL.
	if age := now().Sub(e.fetchedAt); e.valid && age >= 0 && age < ttl {
		v := e.value
		e.mu.Unlock()
		return v, nil
	}
	r := e.inflight
	if r == nil {
		r = &refresh[T]{done: make(chan struct{})}
		e.inflight = r
		go e.run(context.WithoutCancel(ctx), r, now, fetch)
	}
	e.mu.Unlock()

	select {
	case <-r.done:
		return r.value, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("waiting for the refresh in flight: %w", context.Cause(ctx))
	}
}

func (e *entry[T]) run(ctx context.Context, r *refresh[T], now func() time.Time, fetch func(context.Context) (T, error)) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	r.value, r.err = fetch(ctx)
	e.mu.Lock()
	if r.err == nil {
		e.value, e.fetchedAt, e.valid = r.value, now(), true
	}
	e.inflight = nil
	e.mu.Unlock()
	close(r.done)
}

// stale returns the last value fetched successfully, however old, and whether there is one.
func (e *entry[T]) stale() (T, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.value, e.valid
}

// invalidate makes the next get refresh.
func (e *entry[T]) invalidate() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.valid = false
}

// keyed is a set of entries by key, created on first use.
type keyed[T any] struct {
	mu      sync.Mutex
	entries map[string]*entry[T]
}

func (k *keyed[T]) entry(key string) *entry[T] {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.entries == nil {
		k.entries = map[string]*entry[T]{}
	}
	e, ok := k.entries[key]
	if !ok {
		e = &entry[T]{}
		k.entries[key] = e
	}
	return e
}

func (k *keyed[T]) invalidate() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, e := range k.entries {
		e.invalidate()
	}
}
