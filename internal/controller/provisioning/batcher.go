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
	"time"
)

// Batcher groups triggers into batches: a batch opens with the first trigger and closes once
// no trigger came for the idle time, or when it has been open for the maximum time, so that a
// burst of pending pods is scheduled together.
type Batcher struct {
	Idle    time.Duration
	Max     time.Duration
	trigger chan struct{}
}

// NewBatcher returns a batcher; zero durations mean 1 s idle and 10 s at most.
func NewBatcher(idle, max time.Duration) *Batcher {
	if idle == 0 {
		idle = time.Second
	}
	if max == 0 {
		max = 10 * time.Second
	}
	return &Batcher{Idle: idle, Max: max, trigger: make(chan struct{}, 1)}
}

// Trigger says there is something to schedule. It never blocks.
func (b *Batcher) Trigger() {
	select {
	case b.trigger <- struct{}{}:
	default:
	}
}

// Wait blocks until a batch closes; false when ctx ended first.
func (b *Batcher) Wait(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-b.trigger:
	}
	idle := time.NewTimer(b.Idle)
	defer idle.Stop()
	max := time.NewTimer(b.Max)
	defer max.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-b.trigger:
			idle.Reset(b.Idle)
		case <-idle.C:
			return true
		case <-max.C:
			return true
		}
	}
}
