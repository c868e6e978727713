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

package emulator

import (
	"fmt"
	"maps"
	"time"
)

// Fault makes calls of an operation fail. By default a faulted call has no effect and gets an
// error answer: a faulted create creates nothing. Commit and Drop model the failures that
// hurt most on a real cloud, where the gateway loses the answer of a call the service
// carried out.
type Fault struct {
	// Status is the HTTP status, 400 to 599; 0 means 500.
	Status int
	// Code is the wire error code; empty means the status text without spaces
	// ("TooManyRequests"). IAM answers in Keystone's shape, whose code is the status.
	Code string
	// Message is the error message; empty means one naming the operation.
	Message string
	// Count is how many calls fail before the fault clears itself; 0 means every call until
	// ClearFaults.
	Count int
	// Fraction, when above 0, is the probability that a call fails (drawn from the seeded
	// generator, see Options.Seed); Count then limits the failures, not the calls.
	Fraction float64
	// RetryAfter, when positive, is sent as a Retry-After header in whole seconds, rounded up.
	RetryAfter time.Duration
	// Commit serves the call before failing it: a committed create makes its VM, a committed
	// delete starts the deletion, and the caller still gets the error (or no answer, with
	// Drop). A call that would have failed anyway gets its own error.
	Commit bool
	// Drop sends no answer at all: the connection is closed, and the caller cannot tell
	// whether the call was carried out (it was when Commit is set too).
	Drop bool
}

func (f Fault) validate() error {
	switch {
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("status %d is not an error status (400 to 599)", f.Status)
	case f.Count < 0:
		return fmt.Errorf("count %d is negative", f.Count)
	case f.Fraction < 0 || f.Fraction > 1:
		return fmt.Errorf("fraction %v is not between 0 and 1", f.Fraction)
	case f.RetryAfter < 0:
		return fmt.Errorf("retry-after %v is negative", f.RetryAfter)
	}
	return nil
}

// activeFault is an injected fault and how many failures it has left.
type activeFault struct {
	Fault
	// remaining is the number of failures left; 0 means no limit.
	remaining int
}

// InjectFault makes calls of op fail as f says, replacing an earlier fault of op. It panics
// if op is not one of the Op* names or f is out of range: both are mistakes in a test.
func (e *Emulator) InjectFault(op string, f Fault) {
	if !isOperation(op) {
		panic(fmt.Sprintf("emulator: InjectFault: unknown operation %q", op))
	}
	if err := f.validate(); err != nil {
		panic(fmt.Sprintf("emulator: InjectFault(%s): %v", op, err))
	}
	if f.Status == 0 {
		f.Status = 500
	}
	if f.Code == "" {
		f.Code = statusCode(f.Status)
	}
	if f.Message == "" {
		f.Message = fmt.Sprintf("injected fault on %s", op)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults[op] = &activeFault{Fault: f, remaining: f.Count}
}

// ClearFaults removes every injected fault.
func (e *Emulator) ClearFaults() {
	e.mu.Lock()
	defer e.mu.Unlock()
	clear(e.faults)
}

// takenFault is how one call fails: the error to answer, and whether to serve the call first
// and whether to answer at all.
type takenFault struct {
	err          *apiError
	commit, drop bool
}

// takeFault decides whether this call of op fails, and if so uses up one failure of its fault
// and returns how; nil means the call is served normally.
func (e *Emulator) takeFault(op string) *takenFault {
	e.mu.Lock()
	defer e.mu.Unlock()
	fault, ok := e.faults[op]
	if !ok || (fault.Fraction > 0 && e.rng.Float64() >= fault.Fraction) {
		return nil
	}
	if fault.remaining > 0 {
		fault.remaining--
		if fault.remaining == 0 {
			delete(e.faults, op)
		}
	}
	e.injected[injectedKind(op, fault.Fault)]++
	return &takenFault{
		err:    &apiError{status: fault.Status, code: fault.Code, message: fault.Message, retryAfter: fault.RetryAfter},
		commit: fault.Commit,
		drop:   fault.Drop,
	}
}

// Kinds of injected failures that are not faults of an operation, as Injected counts them.
const (
	// InjectedBootFailure is an instance that FailNextInstances sent to error.
	InjectedBootFailure = "instance build failed"
	// InjectedNoValidHost is an instance sent to error because SetCapacity's count was used up.
	InjectedNoValidHost = "instance build found no capacity"
)

// injectedKind names a fault taken on op as Injected counts it: the operation and status,
// and whether the call was carried out and whether its answer was lost.
func injectedKind(op string, f Fault) string {
	kind := fmt.Sprintf("%s %d", op, f.Status)
	if f.Commit {
		kind += " committed"
	}
	if f.Drop {
		kind += " unanswered"
	}
	return kind
}

// SetListLag makes instances appear in ListInstances only once they are d old by the
// emulator's clock, as a cloud whose listings are served from an index that trails its
// writes; GetInstance finds them at once. d <= 0 removes the lag.
func (e *Emulator) SetListLag(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.listLag = max(d, 0)
}

// SetLatency delays every call of op by d of real time before it is served; a call whose
// client goes away meanwhile is dropped unserved. d <= 0 removes the delay. It panics if op
// is not one of the Op* names.
func (e *Emulator) SetLatency(op string, d time.Duration) {
	if !isOperation(op) {
		panic(fmt.Sprintf("emulator: SetLatency: unknown operation %q", op))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if d <= 0 {
		delete(e.latencies, op)
		return
	}
	e.latencies[op] = d
}

// CallCount returns how many calls of op the emulator received since the last
// ResetCallCounts, faulted and unauthenticated ones included.
func (e *Emulator) CallCount(op string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[op]
}

// CreatedCount returns how many VMs the emulator has made, the deleted ones included, and
// those whose create answered with a committed fault.
func (e *Emulator) CreatedCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.created
}

// Injected returns how many failures the emulator injected since the last ResetCallCounts,
// by kind: "<operation> <status>" for a faulted call (with " committed" when it was carried out
// and " unanswered" when its answer was dropped), and InjectedBootFailure and
// InjectedNoValidHost for instances sent to error.
func (e *Emulator) Injected() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return maps.Clone(e.injected)
}

// ResetCallCounts sets every call count, and every count of injected failures, to zero.
func (e *Emulator) ResetCallCounts() {
	e.mu.Lock()
	defer e.mu.Unlock()
	clear(e.calls)
	clear(e.injected)
}

func (e *Emulator) callCounts() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return maps.Clone(e.calls)
}
