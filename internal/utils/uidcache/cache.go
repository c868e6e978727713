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

	"k8s.io/apimachinery/pkg/types"
)

// Cache holds a value per UID for TTL after it was set. The zero value holds nothing and is
// ready to use; the caller gives the time, from the clock its controller runs on. It is safe
// for concurrent use.
type Cache[T any] struct {
	// TTL is how long a value is kept; 0 keeps it until Delete.
	TTL time.Duration

	mu      sync.Mutex
	entries map[types.UID]entry[T]
	swept   time.Time
}

type entry[T any] struct {
	value T
	at    time.Time
}

// Get returns the UID's value, false when it has none or it expired at now.
func (c *Cache[T]) Get(uid types.UID, now time.Time) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[uid]
	if !ok || c.expired(e, now) {
		var zero T
		return zero, false
	}
	return e.value, true
}

// Set keeps value for the UID from now.
func (c *Cache[T]) Set(uid types.UID, value T, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set(uid, value, now)
}

// Update sets the UID's value to what update makes of the current one (false when there is
// none), and returns it.
func (c *Cache[T]) Update(uid types.UID, now time.Time, update func(current T, ok bool) T) T {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[uid]
	ok = ok && !c.expired(e, now)
	value := update(e.value, ok)
	c.set(uid, value, now)
	return value
}

// Delete forgets the UID.
func (c *Cache[T]) Delete(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, uid)
}

func (c *Cache[T]) set(uid types.UID, value T, now time.Time) {
	if c.entries == nil {
		c.entries = map[types.UID]entry[T]{}
	}
	// Expired values go at most once per TTL: the memory stays bounded by what a TTL sees set.
	if c.TTL > 0 && now.Sub(c.swept) > c.TTL {
		for other, e := range c.entries {
			if c.expired(e, now) {
				delete(c.entries, other)
			}
		}
		c.swept = now
	}
	c.entries[uid] = entry[T]{value: value, at: now}
}

func (c *Cache[T]) expired(e entry[T], now time.Time) bool {
	return c.TTL > 0 && now.Sub(e.at) > c.TTL
}
