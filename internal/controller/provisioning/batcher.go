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

package provisioning

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
)

// Batcher groups triggers into batches, so that a burst of pending pods is scheduled
// together: a batch opens with the first trigger and closes once no new trigger came for the
// idle time, or when it has been open for the maximum time. A pod seen again in the open batch
// (it changed again, or its retry came round) does not keep it open, as upstream's batcher
// does not: a pod that changes every second would otherwise hold the batch up to its maximum.
type Batcher struct {
	Idle  time.Duration
	Max   time.Duration
	clock clock.Clock

	mu sync.Mutex
	// open is whether a batch is open; opened is when it opened, last when a new trigger came.
	open         bool
	opened, last time.Time
	// pods are the pods the open batch has been triggered for.
	pods sets.Set[types.UID]
	// wake tells Wait that the batch opened or was extended.
	wake chan struct{}
}

// NewBatcher returns a batcher on clk; zero durations mean 1 s idle and 10 s at most.
func NewBatcher(clk clock.Clock, idle, max time.Duration) *Batcher {
	if idle == 0 {
		idle = time.Second
	}
	if max == 0 {
		max = 10 * time.Second
	}
	return &Batcher{Idle: idle, Max: max, clock: clk, pods: sets.New[types.UID](), wake: make(chan struct{}, 1)}
}

// Trigger says that something other than one pod changed (a node is being deleted, a buffer
// changed, a pass failed): it opens a batch or extends the open one. It never blocks.
func (b *Batcher) Trigger() { b.trigger("") }

// TriggerPod says that the pod needs a node: it opens a batch, or extends the open one unless
// the batch has this pod already. It never blocks.
func (b *Batcher) TriggerPod(uid types.UID) { b.trigger(uid) }

func (b *Batcher) trigger(uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if uid != "" {
		if b.pods.Has(uid) {
			return
		}
		b.pods.Insert(uid)
	}
	now := b.clock.Now()
	if !b.open {
		b.open, b.opened = true, now
	}
	b.last = now
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// due closes the open batch if its time has come (true); otherwise it says how long the open
// batch has left, 0 when none is open.
func (b *Batcher) due() (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return false, 0
	}
	closesAt := b.opened.Add(b.Max)
	if idle := b.last.Add(b.Idle); idle.Before(closesAt) {
		closesAt = idle
	}
	left := closesAt.Sub(b.clock.Now())
	if left > 0 {
		return false, left
	}
	b.open = false
	b.pods = sets.New[types.UID]()
	// A wake-up already sent belongs to the batch that closes.
	select {
	case <-b.wake:
	default:
	}
	return true, 0
}

// Wait blocks until a batch closes; false when ctx ended first. The batch's triggers are
// forgotten as it closes: whatever triggers next opens the next batch.
func (b *Batcher) Wait(ctx context.Context) bool {
	for {
		closed, left := b.due()
		if closed {
			return true
		}
		// The end is worked out again from the batch's times whenever the timer fires or a
		// trigger wakes the loop: a trigger that moves it resets no timer of its own.
		var timer clock.Timer
		var timeout <-chan time.Time
		if left > 0 {
			timer = b.clock.NewTimer(left)
			timeout = timer.C()
		}
		select {
		case <-ctx.Done():
		case <-b.wake:
		case <-timeout:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return false
		}
	}
}
