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
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

const onDemand = karpv1.CapacityTypeOnDemand

func TestUnavailableOfferingsExpire(t *testing.T) {
	tests := []struct {
		name        string
		ttl         time.Duration
		elapsed     time.Duration
		unavailable bool
	}{
		{name: "default TTL, just marked", elapsed: 0, unavailable: true},
		{name: "default TTL, before expiry", elapsed: DefaultUnavailableTTL - time.Second, unavailable: true},
		{name: "default TTL, at expiry", elapsed: DefaultUnavailableTTL, unavailable: false},
		{name: "custom TTL, before expiry", ttl: time.Minute, elapsed: 59 * time.Second, unavailable: true},
		{name: "custom TTL, after expiry", ttl: time.Minute, elapsed: 61 * time.Second, unavailable: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			offerings := NewUnavailableOfferings(tt.ttl, clock)
			offerings.MarkUnavailable("m2a.xlarge", "kr-central-2-a", onDemand, "no valid host")
			clock.Step(tt.elapsed)
			if got := offerings.IsUnavailable("m2a.xlarge", "kr-central-2-a", onDemand); got != tt.unavailable {
				t.Errorf("IsUnavailable = %t, want %t", got, tt.unavailable)
			}
			reason, ok := offerings.Reason("m2a.xlarge", "kr-central-2-a", onDemand)
			if ok != tt.unavailable || (ok && reason != "no valid host") {
				t.Errorf("Reason = %q, %t; want %q, %t", reason, ok, "no valid host", tt.unavailable)
			}
		})
	}
}

func TestUnavailableOfferingsAreKeyedByFlavorZoneAndCapacityType(t *testing.T) {
	offerings := NewUnavailableOfferings(0, newFakeClock())
	offerings.MarkUnavailable("m2a.xlarge", "kr-central-2-a", onDemand, "no valid host")
	for _, other := range []struct{ flavor, zone, capacityType string }{
		{"m2a.large", "kr-central-2-a", onDemand},
		{"m2a.xlarge", "kr-central-2-b", onDemand},
		{"m2a.xlarge", "kr-central-2-a", karpv1.CapacityTypeSpot},
	} {
		if offerings.IsUnavailable(other.flavor, other.zone, other.capacityType) {
			t.Errorf("%v is unavailable, want only m2a.xlarge in kr-central-2-a on-demand", other)
		}
	}
}

func TestUnavailableOfferingsSeqNum(t *testing.T) {
	clock := newFakeClock()
	offerings := NewUnavailableOfferings(time.Minute, clock)
	seen := map[uint64]string{offerings.SeqNum(): "new"}
	expectNew := func(step string) {
		t.Helper()
		seq := offerings.SeqNum()
		if earlier, ok := seen[seq]; ok {
			t.Errorf("SeqNum after %s = %d, the same as after %s", step, seq, earlier)
		}
		seen[seq] = step
	}
	offerings.MarkUnavailable("m2a.xlarge", "kr-central-2-a", onDemand, "no valid host")
	expectNew("first mark")
	offerings.MarkUnavailable("m2a.xlarge", "kr-central-2-a", onDemand, "no valid host")
	expectNew("second mark of the same offering")

	clock.Step(30 * time.Second)
	before := offerings.SeqNum()
	if offerings.SeqNum() != before {
		t.Errorf("SeqNum changed without a mark or an expiry")
	}
	clock.Step(31 * time.Second)
	expectNew("expiry")
}

func TestUnavailableOfferingsConcurrentUse(t *testing.T) {
	offerings := NewUnavailableOfferings(time.Millisecond, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				offerings.MarkUnavailable("m2a.xlarge", "kr-central-2-a", onDemand, "no valid host")
				offerings.IsUnavailable("m2a.xlarge", "kr-central-2-a", onDemand)
				offerings.SeqNum()
			}
		})
	}
	wg.Wait()
	if offerings.SeqNum() < 8*200 {
		t.Errorf("SeqNum = %d after %d marks, want at least as many", offerings.SeqNum(), 8*200)
	}
}

// newFakeClock returns a clock a test steps by hand.
func newFakeClock() *clocktesting.FakeClock {
	return clocktesting.NewFakeClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
}
