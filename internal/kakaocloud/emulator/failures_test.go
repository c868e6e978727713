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

package emulator_test

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

func TestFailNextInstances(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.FailNextInstances(1, "Exceeded maximum number of retries.")
	failing := h.create(h.validCreate("fails-build"))
	healthy := h.create(h.validCreate("builds-fine"))
	if got := h.getInstance(failing); got.Status != kakaocloud.InstanceStatusBuilding {
		t.Fatalf("before BuildDelay: %s", got.Status)
	}
	h.clock.Step(emulator.DefaultBuildDelay)

	got := h.getInstance(failing)
	if got.Status != kakaocloud.InstanceStatusError || got.VMState != "error" {
		t.Errorf("failing instance: status %s, vm_state %s", got.Status, got.VMState)
	}
	if logs := h.actionLogs(failing); len(logs) != 1 || logs[0].Action != "create" || logs[0].Message != "Exceeded maximum number of retries." {
		t.Errorf("action logs %+v", logs)
	}
	if got := h.getInstance(healthy); got.Status != kakaocloud.InstanceStatusActive {
		t.Errorf("second instance: status %s, want active", got.Status)
	}
	if got := h.emulator.Injected(); got[emulator.InjectedBootFailure] != 1 || len(got) != 1 {
		t.Errorf("Injected %v, want one %s", got, emulator.InjectedBootFailure)
	}
	for _, log := range h.actionLogs(healthy) {
		if log.Message != "" {
			t.Errorf("healthy instance has a failure message: %+v", log)
		}
	}

	// An errored instance is deleted like any other.
	h.apiOK(http.MethodDelete, instancesPath+"/"+failing, nil, http.StatusAccepted, nil)
	h.clock.Step(emulator.DefaultDeleteDelay)
	wantError(t, h.api(http.MethodGet, instancesPath+"/"+failing, nil), http.StatusNotFound, "NotFound", "not found")
}

func TestSetInstanceState(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	stopped, failed, building := h.create(h.validCreate("stopped")), h.create(h.validCreate("failed")), ""
	h.clock.Step(emulator.DefaultBuildDelay)
	building = h.create(h.validCreate("building"))

	h.admin(http.MethodPost, "/instance-state", emulator.AdminInstanceState{ID: stopped, Status: kakaocloud.InstanceStatusStopped}, http.StatusOK, nil)
	if got := h.getInstance(stopped); got.Status != kakaocloud.InstanceStatusStopped || got.VMState != "stopped" || got.PowerState != "SHUTDOWN" {
		t.Errorf("stopped: status %s, vm_state %s, power_state %s", got.Status, got.VMState, got.PowerState)
	}
	if logs := h.actionLogs(stopped); logs[len(logs)-1].Action != "stop" {
		t.Errorf("action logs %+v, want a stop last", logs)
	}
	if err := h.emulator.SetInstanceState(failed, kakaocloud.InstanceStatusError); err != nil {
		t.Fatal(err)
	}
	if got := h.getInstance(failed); got.Status != kakaocloud.InstanceStatusError || got.VMState != "error" {
		t.Errorf("failed: status %s, vm_state %s", got.Status, got.VMState)
	}
	wantError(t, h.do(http.MethodPost, emulator.AdminPrefix+"/instance-state", emulator.AdminInstanceState{ID: building, Status: "stopped"}, nil),
		http.StatusBadRequest, "BadRequest", "is building, not active")
	wantError(t, h.do(http.MethodPost, emulator.AdminPrefix+"/instance-state", emulator.AdminInstanceState{ID: building, Status: "paused"}, nil),
		http.StatusBadRequest, "BadRequest", `status "paused" is not stopped or error`)
}

func TestSetCapacity(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.SetCapacity("m2a.large", emulator.ZoneA, 1)
	fits := h.create(h.validCreate("fits-in-a"))
	overflows := h.create(h.validCreate("no-room-in-a"))
	inB := h.validCreate("room-in-b")
	inB.Subnets = []kakaocloud.SubnetAttachment{{ID: h.subnetID("karpenter-subnet-b")}}
	otherZone := h.create(inB)
	h.clock.Step(emulator.DefaultBuildDelay)

	if got := h.getInstance(fits); got.Status != kakaocloud.InstanceStatusActive {
		t.Errorf("within capacity: %s", got.Status)
	}
	if got := h.getInstance(otherZone); got.Status != kakaocloud.InstanceStatusActive {
		t.Errorf("other zone: %s", got.Status)
	}
	if got := h.getInstance(overflows); got.Status != kakaocloud.InstanceStatusError {
		t.Errorf("beyond capacity: %s, want error", got.Status)
	}
	if logs := h.actionLogs(overflows); len(logs) == 0 || logs[0].Message != emulator.NoValidHostMessage {
		t.Errorf("action logs %+v, want %q", logs, emulator.NoValidHostMessage)
	}
	if got := h.emulator.Injected(); got[emulator.InjectedNoValidHost] != 1 || len(got) != 1 {
		t.Errorf("Injected %v, want one %s", got, emulator.InjectedNoValidHost)
	}

	h.emulator.SetCapacity("m2a.large", emulator.ZoneA, -1)
	unlimited := h.create(h.validCreate("unlimited-again"))
	h.clock.Step(emulator.DefaultBuildDelay)
	if got := h.getInstance(unlimited); got.Status != kakaocloud.InstanceStatusActive {
		t.Errorf("after SetCapacity(-1): %s", got.Status)
	}
}

func TestFaultByCount(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{
		Status: http.StatusServiceUnavailable, Code: "ServiceBusy", Message: "try later", Count: 2, RetryAfter: 1500 * time.Millisecond,
	})
	create := kakaocloud.CreateInstanceRequest{Instance: h.validCreate("faulted-create")}
	for i := range 2 {
		resp := h.api(http.MethodPost, instancesPath, create)
		wantError(t, resp, http.StatusServiceUnavailable, "ServiceBusy", "try later")
		if got := resp.header.Get("Retry-After"); got != "2" {
			t.Errorf("call %d: Retry-After %q, want 2 (seconds, rounded up)", i, got)
		}
	}
	if got := h.emulator.Instances(); len(got) != 0 {
		t.Fatalf("faulted creates created %d instances", len(got))
	}
	h.apiOK(http.MethodPost, instancesPath, create, http.StatusAccepted, nil)
	if got := h.emulator.CallCount(emulator.OpCreateInstance); got != 3 {
		t.Errorf("CallCount %d, want 3 (faulted calls count)", got)
	}
	// Other operations were never faulted.
	h.apiOK(http.MethodGet, instancesPath, nil, http.StatusOK, nil)
}

func TestFaultUntilCleared(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.InjectFault(emulator.OpListSubnets, emulator.Fault{})
	for range 3 {
		resp := h.api(http.MethodGet, "/vpc"+kakaocloud.PathSubnets, nil)
		wantError(t, resp, http.StatusInternalServerError, "InternalServerError", "injected fault on vpc.ListSubnets")
		if resp.header.Get("Retry-After") != "" {
			t.Error("Retry-After without RetryAfter")
		}
	}
	h.emulator.ClearFaults()
	h.apiOK(http.MethodGet, "/vpc"+kakaocloud.PathSubnets, nil, http.StatusOK, nil)
}

func TestFaultOnIAMUsesKeystoneShape(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.InjectFault(emulator.OpIssueToken, emulator.Fault{Status: http.StatusTooManyRequests, Count: 1})
	resp := h.do(http.MethodPost, tokensPath, tokenRequest(emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey), nil)
	var body kakaocloud.ErrorResponse
	resp.decode(t, &body)
	if resp.status != http.StatusTooManyRequests || body.Error.Code != "429" || body.Error.Title != "Too Many Requests" {
		t.Errorf("status %d, body %s", resp.status, resp.body)
	}
	if h.issueToken(emulator.DefaultAccessKeyID, emulator.DefaultSecretAccessKey) == "" {
		t.Error("no token after the fault was used up")
	}
}

// faultPattern lists which of n calls of flavors failed under a seeded fractional fault.
func faultPattern(t *testing.T, seed uint64, n int) []bool {
	h := newHarness(t, emulator.Options{Seed: seed})
	h.emulator.InjectFault(emulator.OpListFlavors, emulator.Fault{Status: http.StatusTooManyRequests, Fraction: 0.3})
	pattern := make([]bool, n)
	for i := range pattern {
		resp := h.api(http.MethodGet, "/bcs"+kakaocloud.PathFlavors, nil)
		switch resp.status {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			pattern[i] = true
		default:
			t.Fatalf("status %d", resp.status)
		}
	}
	return pattern
}

func TestFaultByFraction(t *testing.T) {
	first := faultPattern(t, 42, 200)
	failures := 0
	for _, failed := range first {
		if failed {
			failures++
		}
	}
	if failures < 30 || failures > 90 {
		t.Errorf("%d of 200 calls failed with fraction 0.3", failures)
	}
	second := faultPattern(t, 42, 200)
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("call %d: the same seed gave a different outcome", i)
		}
	}
}

func TestFaultByFractionWithCount(t *testing.T) {
	h := newHarness(t, emulator.Options{Seed: 7})
	h.emulator.InjectFault(emulator.OpListImages, emulator.Fault{Fraction: 0.5, Count: 3})
	failures := 0
	for range 100 {
		if h.api(http.MethodGet, "/image"+kakaocloud.PathImages, nil).status != http.StatusOK {
			failures++
		}
	}
	if failures != 3 {
		t.Errorf("%d failures, want Count=3", failures)
	}
}

func TestInjectFaultPanicsOnMistakes(t *testing.T) {
	e := emulator.New(emulator.Options{})
	tests := map[string]func(){
		"unknown operation":     func() { e.InjectFault("bcs.Reboot", emulator.Fault{}) },
		"success status":        func() { e.InjectFault(emulator.OpGetFlavor, emulator.Fault{Status: 200}) },
		"fraction above 1":      func() { e.InjectFault(emulator.OpGetFlavor, emulator.Fault{Fraction: 1.5}) },
		"latency on an unknown": func() { e.SetLatency("nope", time.Second) },
	}
	for name, call := range tests {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			call()
		})
	}
}

func TestLatency(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.SetLatency(emulator.OpListVersions, 150*time.Millisecond)
	start := time.Now()
	h.apiOK(http.MethodGet, "/kubernetes-engine"+kakaocloud.PathVersions, nil, http.StatusOK, nil)
	if elapsed := time.Since(start); elapsed < 150*time.Millisecond {
		t.Errorf("answered after %v, want at least 150ms", elapsed)
	}
	h.emulator.SetLatency(emulator.OpListVersions, 0)
	start = time.Now()
	h.apiOK(http.MethodGet, "/kubernetes-engine"+kakaocloud.PathVersions, nil, http.StatusOK, nil)
	if elapsed := time.Since(start); elapsed > 100*time.Millisecond {
		t.Errorf("answered after %v with the latency removed", elapsed)
	}
}

func TestLatencyHonoursCancellation(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.SetLatency(emulator.OpCreateInstance, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := h.send(ctx, http.MethodPost, instancesPath, kakaocloud.CreateInstanceRequest{Instance: h.validCreate("never-made")},
		map[string]string{kakaocloud.HeaderAuthToken: h.token})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the client's deadline", err)
	}
	// Close waits for every handler to return: it returns quickly only if the delayed
	// handler stopped when its client went away.
	start := time.Now()
	h.server.Close()
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("the delayed handler ran on for %v after its client left", elapsed)
	}
	if got := h.emulator.Instances(); len(got) != 0 {
		t.Errorf("an abandoned create created %d instances", len(got))
	}
}

func TestOnInstanceActive(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	var mu sync.Mutex
	activations := map[string]int{}
	h.emulator.OnInstanceActive(func(in kakaocloud.Instance) {
		if in.Status != kakaocloud.InstanceStatusActive {
			t.Errorf("hook saw status %s", in.Status)
		}
		// Hooks run outside the lock, so they may call the emulator.
		_ = h.emulator.Instances()
		mu.Lock()
		defer mu.Unlock()
		activations[in.ID]++
	})
	secondCalls := 0
	h.emulator.OnInstanceActive(func(kakaocloud.Instance) {
		mu.Lock()
		defer mu.Unlock()
		secondCalls++
	})

	h.emulator.FailNextInstances(1, "")
	failing := h.create(h.validCreate("never-active"))
	first := h.create(h.validCreate("active-one"))
	secondID := h.create(h.validCreate("active-two"))
	h.clock.Step(emulator.DefaultBuildDelay)

	// Many concurrent readers all apply transitions; each instance still activates once.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			h.api(http.MethodGet, instancesPath, nil)
			h.emulator.Instances()
		})
	}
	wg.Wait()
	h.getInstance(first)

	mu.Lock()
	defer mu.Unlock()
	if activations[first] != 1 || activations[secondID] != 1 || activations[failing] != 0 || len(activations) != 2 {
		t.Errorf("activations %v; want one for each active instance and none for %s", activations, failing)
	}
	if secondCalls != 2 {
		t.Errorf("second hook called %d times, want 2", secondCalls)
	}
}

func TestStartFiresHooksWithoutRequests(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	activated := make(chan string, 1)
	h.emulator.OnInstanceActive(func(in kakaocloud.Instance) { activated <- in.ID })
	ctx := t.Context()
	h.emulator.Start(ctx)

	id := h.create(h.validCreate("background"))
	h.clock.Step(emulator.DefaultBuildDelay)
	select {
	case got := <-activated:
		if got != id {
			t.Errorf("hook for %s, want %s", got, id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Start did not activate the instance")
	}
}

// A committed fault carries the call out and still fails its answer: the caller cannot tell a
// create that made a VM from one that did not.
func TestCommittedFault(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	h.emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadGateway, Count: 1, Commit: true})
	create := kakaocloud.CreateInstanceRequest{Instance: h.validCreate("committed-create")}
	wantError(t, h.api(http.MethodPost, instancesPath, create), http.StatusBadGateway, "BadGateway", "injected fault")
	instances := h.emulator.Instances()
	if len(instances) != 1 || instances[0].Name != "committed-create" {
		t.Fatalf("after a committed faulted create: %+v, want the one VM", instances)
	}

	// A committed delete starts the deletion behind its error.
	h.emulator.InjectFault(emulator.OpDeleteInstance, emulator.Fault{Status: http.StatusInternalServerError, Count: 1, Commit: true})
	wantError(t, h.api(http.MethodDelete, instancesPath+"/"+instances[0].ID, nil), http.StatusInternalServerError, "InternalServerError", "injected fault")
	if got := h.getInstance(instances[0].ID); got.Status != kakaocloud.InstanceStatusDeleting {
		t.Errorf("after a committed faulted delete: status %s, want deleting", got.Status)
	}
	wantInjected := map[string]int{emulator.OpCreateInstance + " 502 committed": 1, emulator.OpDeleteInstance + " 500 committed": 1}
	if got := h.emulator.Injected(); !maps.Equal(got, wantInjected) {
		t.Errorf("Injected %v, want %v", got, wantInjected)
	}

	// A call that fails on its own merits gets its own error, not the fault's.
	h.emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadGateway, Count: 1, Commit: true})
	invalid := h.validCreate("x")
	wantError(t, h.api(http.MethodPost, instancesPath, kakaocloud.CreateInstanceRequest{Instance: invalid}), http.StatusBadRequest, "BadRequest", "name")
}

// A dropped answer closes the connection: the client sees a transport error, and with Commit
// the VM exists all the same.
func TestDroppedAnswer(t *testing.T) {
	h := newHarness(t, emulator.Options{})
	header := map[string]string{kakaocloud.HeaderAuthToken: h.token, "Accept": "application/json"}
	create := kakaocloud.CreateInstanceRequest{Instance: h.validCreate("lost-before")}

	h.emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Drop: true, Count: 1})
	if resp, err := h.send(context.Background(), http.MethodPost, instancesPath, create, header); err == nil {
		t.Fatalf("dropped create answered %d", resp.status)
	}
	if got := h.emulator.Instances(); len(got) != 0 {
		t.Fatalf("a dropped create without Commit made %d VMs", len(got))
	}

	h.emulator.InjectFault(emulator.OpCreateInstance, emulator.Fault{Drop: true, Commit: true, Count: 1})
	create.Instance.Name = "lost-after"
	if resp, err := h.send(context.Background(), http.MethodPost, instancesPath, create, header); err == nil {
		t.Fatalf("dropped committed create answered %d", resp.status)
	}
	if got := h.emulator.Instances(); len(got) != 1 || got[0].Name != "lost-after" {
		t.Fatalf("a dropped committed create: %+v, want the one VM", got)
	}
}

// With a list lag a new VM is found by its id at once and by listings only once it is old
// enough, on the emulator's clock.
func TestListLag(t *testing.T) {
	h := newHarness(t, emulator.Options{ListLag: 30 * time.Second})
	id := h.create(h.validCreate("lagging"))
	listed := func() []kakaocloud.Instance {
		var out kakaocloud.ListInstancesResponse
		h.apiOK(http.MethodGet, instancesPath+"?name=lagging", nil, http.StatusOK, &out)
		return out.Instances
	}
	if got := listed(); len(got) != 0 {
		t.Fatalf("listed at once: %+v", got)
	}
	if got := h.getInstance(id); got.ID != id {
		t.Fatalf("GET by id: %+v", got)
	}
	h.clock.Step(29 * time.Second)
	if got := listed(); len(got) != 0 {
		t.Fatalf("listed after 29s of a 30s lag: %+v", got)
	}
	h.clock.Step(time.Second)
	if got := listed(); len(got) != 1 || got[0].ID != id {
		t.Fatalf("after the lag: %+v", got)
	}

	h.emulator.SetListLag(0)
	h.create(h.validCreate("no-lag"))
	var out kakaocloud.ListInstancesResponse
	h.apiOK(http.MethodGet, instancesPath+"?name=no-lag", nil, http.StatusOK, &out)
	if len(out.Instances) != 1 {
		t.Errorf("without a lag: %+v", out.Instances)
	}
}
