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
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestBatchWindow: when a batch closes, given what triggered it and when.
func TestBatchWindow(t *testing.T) {
	type step struct {
		after time.Duration // the clock moves on by this much first
		pod   string        // then this pod triggers ("" for none, "*" for a trigger of no pod)
		// want is whether the batch has closed, and else how long it has left.
		closed bool
		left   time.Duration
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{name: "a lone pod's batch closes after the idle time", steps: []step{
			{pod: "a", left: time.Second},
			{after: 999 * time.Millisecond, left: time.Millisecond},
			{after: time.Millisecond, closed: true},
		}},
		{name: "another pod within the idle time extends it", steps: []step{
			{pod: "a", left: time.Second},
			{after: 900 * time.Millisecond, pod: "b", left: time.Second},
			{after: 900 * time.Millisecond, left: 100 * time.Millisecond},
			{after: 100 * time.Millisecond, closed: true},
		}},
		{name: "the same pod again does not", steps: []step{
			{pod: "a", left: time.Second},
			{after: 600 * time.Millisecond, pod: "a", left: 400 * time.Millisecond},
			{after: 400 * time.Millisecond, closed: true},
		}},
		{name: "a trigger of no pod in particular always does", steps: []step{
			{pod: "*", left: time.Second},
			{after: 600 * time.Millisecond, pod: "*", left: time.Second},
			{after: time.Second, closed: true},
		}},
		{name: "new pods keep it open up to the maximum", steps: append(func() []step {
			// A new pod every 0.9 s: the idle time never passes; at 9.9 s the maximum is 0.1 s away.
			out := []step{{pod: "p0", left: time.Second}}
			for i := 1; i <= 11; i++ {
				out = append(out, step{after: 900 * time.Millisecond, pod: fmt.Sprintf("p%d", i), left: min(time.Second, 10*time.Second-time.Duration(i)*900*time.Millisecond)})
			}
			return out
		}(), step{after: 100 * time.Millisecond, closed: true})},
		{name: "the next batch starts afresh: the same pod opens it", steps: []step{
			{pod: "a", left: time.Second},
			{after: time.Second, closed: true},
			{after: time.Minute, left: 0},
			{pod: "a", left: time.Second},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC))
			b := NewBatcher(clk, time.Second, 10*time.Second)
			for i, s := range c.steps {
				clk.Step(s.after)
				switch s.pod {
				case "":
				case "*":
					b.Trigger()
				default:
					b.TriggerPod(types.UID(s.pod))
				}
				if closed, left := b.due(); closed != s.closed || left != s.left {
					t.Fatalf("step %d: closed %v, %v left; want closed %v, %v left", i, closed, left, s.closed, s.left)
				}
			}
		})
	}
}

// TestBatcherWait: Wait returns once the clock reaches the batch's end, and false when its
// context ends first.
func TestBatcherWait(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC))
	b := NewBatcher(clk, time.Second, 10*time.Second)
	done := make(chan bool)
	go func() { done <- b.Wait(t.Context()) }()
	b.TriggerPod("a")
	// Wait has armed its timer for the batch's end.
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(time.Second)
	if !<-done {
		t.Fatal("Wait returned false for a batch that closed")
	}

	ctx, cancel := context.WithCancel(t.Context())
	go func() { done <- b.Wait(ctx) }()
	cancel()
	if <-done {
		t.Fatal("Wait returned true with its context ended and no batch open")
	}
}
