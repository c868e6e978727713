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
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestEntryServesFromCacheUntilTheTTL(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Unix(0, 0))
	var e entry[int]
	var calls atomic.Int32
	fetch := func(context.Context) (int, error) { return int(calls.Add(1)), nil }
	ctx := context.Background()

	for range 3 {
		if v, _ := e.get(ctx, time.Minute, c.Now, fetch); v != 1 {
			t.Fatalf("get = %d, want the first fetch's 1", v)
		}
	}
	c.Step(time.Minute)
	if v, _ := e.get(ctx, time.Minute, c.Now, fetch); v != 2 {
		t.Errorf("after the TTL get = %d, want a refresh (2)", v)
	}
	e.invalidate()
	if v, _ := e.get(ctx, time.Minute, c.Now, fetch); v != 3 {
		t.Errorf("after invalidate get = %d, want a refresh (3)", v)
	}
}

func TestEntryRunsOneRefreshAtATime(t *testing.T) {
	var e entry[int]
	var calls atomic.Int32
	release := make(chan struct{})
	fetch := func(context.Context) (int, error) {
		calls.Add(1)
		<-release
		return 7, nil
	}
	var wg sync.WaitGroup
	results := make([]int, 20)
	for i := range results {
		wg.Go(func() {
			results[i], _ = e.get(context.Background(), time.Minute, time.Now, fetch)
		})
	}
	// Let every caller arrive before the refresh answers.
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("20 concurrent callers made %d fetches, want 1", n)
	}
	for i, v := range results {
		if v != 7 {
			t.Errorf("caller %d got %d, want 7", i, v)
		}
	}
}

func TestEntryKeepsTheLastGoodValueWhenARefreshFails(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Unix(0, 0))
	var e entry[string]
	ctx := context.Background()
	if _, err := e.get(ctx, time.Second, c.Now, func(context.Context) (string, error) { return "good", nil }); err != nil {
		t.Fatal(err)
	}
	c.Step(time.Hour)
	broken := errors.New("kubernetes engine unavailable")
	if _, err := e.get(ctx, time.Second, c.Now, func(context.Context) (string, error) { return "", broken }); !errors.Is(err, broken) {
		t.Fatalf("failed refresh: err = %v, want it returned", err)
	}
	if v, ok := e.stale(); !ok || v != "good" {
		t.Errorf("stale() = %q, %v; want the last good value", v, ok)
	}
}

func TestEntryWaiterHonoursItsContext(t *testing.T) {
	var e entry[int]
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.get(ctx, time.Minute, time.Now, func(context.Context) (int, error) { <-release; return 1, nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
