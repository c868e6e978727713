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

package instancetype

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// DefaultUnavailableTTL is how long an offering stays unavailable after a launch failed for
// lack of capacity. Capacity frees up as other tenants delete VMs, so the offering is tried
// again after a short while rather than avoided for good.
const DefaultUnavailableTTL = 3 * time.Minute

// UnavailableOfferings remembers the offerings (flavor, zone, capacity type) whose launches
// recently failed for lack of capacity, so that the next scheduling rounds choose elsewhere
// until the entry expires. It is safe for concurrent use.
type UnavailableOfferings struct {
	ttl   time.Duration
	clock clock.PassiveClock

	mu      sync.RWMutex
	entries map[offeringKey]unavailableEntry
	seqNum  uint64
}

type offeringKey struct {
	flavor, zone, capacityType string
}

type unavailableEntry struct {
	reason  string
	expires time.Time
}

// NewUnavailableOfferings returns an empty cache whose entries live for ttl
// (DefaultUnavailableTTL when 0), timed by clk (the real clock when nil).
func NewUnavailableOfferings(ttl time.Duration, clk clock.PassiveClock) *UnavailableOfferings {
	if ttl == 0 {
		ttl = DefaultUnavailableTTL
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &UnavailableOfferings{ttl: ttl, clock: clk, entries: map[offeringKey]unavailableEntry{}}
}

// MarkUnavailable makes an offering unavailable for the cache's TTL from now, replacing an
// earlier mark of the same offering, and records why.
func (u *UnavailableOfferings) MarkUnavailable(flavor, zone, capacityType, reason string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.clock.Now()
	u.removeExpired(now)
	u.entries[offeringKey{flavor, zone, capacityType}] = unavailableEntry{reason: reason, expires: now.Add(u.ttl)}
	u.seqNum++
}

// IsUnavailable reports whether the offering was marked within the TTL.
func (u *UnavailableOfferings) IsUnavailable(flavor, zone, capacityType string) bool {
	_, unavailable := u.Reason(flavor, zone, capacityType)
	return unavailable
}

// Reason returns the reason an offering was marked unavailable; false when it is available.
// Callers use it to explain why a pod found no capacity.
func (u *UnavailableOfferings) Reason(flavor, zone, capacityType string) (string, bool) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	entry, ok := u.entries[offeringKey{flavor, zone, capacityType}]
	if !ok || !u.clock.Now().Before(entry.expires) {
		return "", false
	}
	return entry.reason, true
}

// SeqNum changes whenever the set of unavailable offerings changes: on every mark, and on the
// first call after an entry expired. A caller that caches instance types together with the
// SeqNum they were computed at knows they are stale when it differs.
func (u *UnavailableOfferings) SeqNum() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.removeExpired(u.clock.Now())
	return u.seqNum
}

// removeExpired drops expired entries, which also keeps the map from growing with every
// offering ever marked. The caller holds u.mu.
func (u *UnavailableOfferings) removeExpired(now time.Time) {
	removed := false
	for key, entry := range u.entries {
		if !now.Before(entry.expires) {
			delete(u.entries, key)
			removed = true
		}
	}
	if removed {
		u.seqNum++
	}
}
