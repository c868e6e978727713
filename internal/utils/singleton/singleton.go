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

package singleton

import (
	"cmp"
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Every runs pass at once and then every interval until ctx ends, logging a failed pass with
// failure as the message; a pass cut short by the end of ctx is not a failure.
func Every(ctx context.Context, interval time.Duration, failure string, pass func(context.Context) error) error {
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := pass(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.FromContext(ctx).Error(err, failure)
		}
	}, interval)
	return nil
}

// Discarding adapts a pass that also returns what it did (a collection's deleted names, say)
// to Every, which only logs the pass's error.
func Discarding[T any](pass func(context.Context) (T, error)) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := pass(ctx)
		return err
	}
}

// Period is when a leader-only periodic pass runs and what it leaves alone: every Interval,
// sparing what is younger than Grace on Clock. A zero field takes the pass's default.
type Period struct {
	Interval time.Duration
	Grace    time.Duration
	// Clock is the clock for the grace period; the real clock when nil.
	Clock clock.PassiveClock
}

// NeedLeaderElection makes only the leader run the pass.
func (Period) NeedLeaderElection() bool { return true }

// Every runs pass as the package's Every does, every Interval (defaultInterval when zero).
func (p Period) Every(ctx context.Context, defaultInterval time.Duration, failure string, pass func(context.Context) error) error {
	return Every(ctx, cmp.Or(p.Interval, defaultInterval), failure, pass)
}

// InGrace reports whether something that happened at t is still within Grace (defaultGrace
// when zero) of now.
func (p Period) InGrace(t time.Time, defaultGrace time.Duration) bool {
	return cmp.Or[clock.PassiveClock](p.Clock, clock.RealClock{}).Since(t) < cmp.Or(p.Grace, defaultGrace)
}
