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

package instance_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// laggingEnv is a cloud that lists new VMs only after lag, on a fake clock the provider shares.
func laggingEnv(t *testing.T, lag time.Duration) (*env, *clocktesting.FakeClock) {
	t.Helper()
	clock := clocktesting.NewFakeClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	e := newEnvWith(t, http.DefaultTransport,
		emulator.Options{Clock: clock, ListLag: lag, BuildDelay: time.Second, DeleteDelay: time.Second},
		instance.Options{Clock: clock, LookupWindow: time.Minute})
	return e, clock
}

// attempts is the NodeClaim's launch-attempt record, as the cloud provider keeps it on the
// NodeClaim.
type attempts struct{ last time.Time }

func (a *attempts) request(e *env, nodeClaim string) instance.LaunchRequest {
	req := e.request(nodeClaim)
	req.LastAttempt = a.last
	req.RecordAttempt = func(_ context.Context, at time.Time) error { a.last = at; return nil }
	return req
}

// A create whose answer is lost while KakaoCloud does not list its VM yet: the launches that
// follow look for the VM and create nothing until it shows up, then adopt it.
func TestLostCreateWhileTheListLagsWaitsForTheVM(t *testing.T) {
	e, clock := laggingEnv(t, 30*time.Second)
	ctx := context.Background()
	e.emu.InjectFault(emulator.OpCreateInstance, emulator.Fault{Commit: true, Drop: true, Count: 1})
	record := &attempts{}

	_, err := e.provider.Launch(ctx, record.request(e, "default-lag"))
	var pending *instance.CreatePendingError
	if !errors.As(err, &pending) || !pending.Until.Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("first launch: %v, want a CreatePendingError until the lookup window ends", err)
	}
	if record.last.IsZero() {
		t.Fatal("the attempt was not recorded before the create")
	}
	for range 5 {
		clock.Step(5 * time.Second)
		if _, err := e.provider.Launch(ctx, record.request(e, "default-lag")); !errors.As(err, &pending) {
			t.Fatalf("launch inside the window: %v, want CreatePendingError", err)
		}
	}
	clock.Step(5 * time.Second) // 30 s: the VM is listed
	got, err := e.provider.Launch(ctx, record.request(e, "default-lag"))
	if err != nil || !got.Adopted {
		t.Fatalf("launch once listed: %+v, %v; want the VM of the lost create adopted", got, err)
	}
	if n := e.emu.CallCount(emulator.OpCreateInstance); n != 1 {
		t.Errorf("creates = %d, want 1", n)
	}
	if vms := e.vmsNamed("default-lag"); len(vms) != 1 {
		t.Errorf("VMs = %d, want exactly 1", len(vms))
	}
}

// A restart loses everything in memory; the recorded attempt alone keeps the launch from
// creating again.
func TestRecordedAttemptSurvivesARestart(t *testing.T) {
	e, clock := laggingEnv(t, 30*time.Second)
	ctx := context.Background()
	record := &attempts{}
	first, err := e.provider.Launch(ctx, record.request(e, "default-crashed"))
	if err != nil {
		t.Fatal(err)
	}
	// The controller crashed before recording the VM on the NodeClaim; it restarts at once.
	restarted := instance.NewProvider(e.client, e.keyring, "karpenter-demo", instance.Options{Clock: clock, LookupWindow: time.Minute})
	var pending *instance.CreatePendingError
	if _, err := restarted.Launch(ctx, record.request(e, "default-crashed")); !errors.As(err, &pending) {
		t.Fatalf("launch after the restart: %v, want CreatePendingError while the VM is not listed", err)
	}
	clock.Step(30 * time.Second)
	got, err := restarted.Launch(ctx, record.request(e, "default-crashed"))
	if err != nil || got.Instance.ID != first.Instance.ID {
		t.Fatalf("launch once listed: %+v, %v; want %s adopted", got, err, first.Instance.ID)
	}
}

// A lag longer than the window makes a second VM; every later launch adopts the older one, so
// that garbage collection knows which one is extra.
func TestLagBeyondTheWindowAdoptsTheOldestVM(t *testing.T) {
	e, clock := laggingEnv(t, 90*time.Second)
	ctx := context.Background()
	e.emu.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusGatewayTimeout, Commit: true, Count: 1})
	record := &attempts{}
	if _, err := e.provider.Launch(ctx, record.request(e, "default-slow")); !errors.As(err, new(*instance.CreatePendingError)) {
		t.Fatalf("first launch: %v", err)
	}
	clock.Step(time.Minute)
	second, err := e.provider.Launch(ctx, record.request(e, "default-slow"))
	if err != nil || second.Adopted {
		t.Fatalf("launch after the window: %+v, %v; want a new VM", second, err)
	}
	clock.Step(2 * time.Minute) // both listed now
	third, err := e.provider.Launch(ctx, record.request(e, "default-slow"))
	if err != nil || !third.Adopted || third.Instance.ID == second.Instance.ID {
		t.Fatalf("launch with both listed: %+v, %v; want the older VM, not %s", third, err, second.Instance.ID)
	}
}

// A create refused outright leaves no doubt: the record is cleared, and the next launch does
// not wait.
func TestRefusedCreateClearsTheAttempt(t *testing.T) {
	e, _ := laggingEnv(t, 30*time.Second)
	e.emu.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Message: "instance.key_name: no such key pair", Count: 1})
	record := &attempts{}
	if _, err := e.provider.Launch(context.Background(), record.request(e, "default-refused")); err == nil || errors.As(err, new(*instance.CreatePendingError)) {
		t.Fatalf("refused create: %v, want the refusal", err)
	}
	if !record.last.IsZero() {
		t.Errorf("attempt still recorded at %v after a refused create", record.last)
	}
	if _, err := e.provider.Launch(context.Background(), record.request(e, "default-refused")); err != nil {
		t.Fatalf("next launch: %v", err)
	}
}

// A NodeClaim name that is not a valid VM name is rewritten; its VM still proves itself from
// its own name and description, so List (garbage collection) finds it and Delete accepts it.
func TestRewrittenNamesVerify(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	ctx := context.Background()
	const nodeClaim = "team.a-pool-x7k2p"
	launched, err := e.provider.Launch(ctx, e.request(nodeClaim))
	if err != nil {
		t.Fatal(err)
	}
	if launched.Instance.Name == nodeClaim {
		t.Fatalf("VM name %q was not rewritten", launched.Instance.Name)
	}
	owned, err := e.provider.List(ctx)
	if err != nil || len(owned) != 1 || owned[0].Instance.ID != launched.Instance.ID {
		t.Fatalf("List = %+v, %v; want the rewritten VM", owned, err)
	}
	if err := e.provider.Delete(ctx, launched.Instance.ID, owned[0].Instance.Name); err != nil {
		t.Fatalf("Delete by the VM's own name: %v", err)
	}
}

// A marker written before markers were bound to the VM name (signed for the NodeClaim's own
// name) still lets the NodeClaim adopt and delete its VM.
func TestMarkersSignedForTheNodeClaimNameStillVerify(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	ctx := context.Background()
	const nodeClaim = "team.b-pool-q4r8s"
	name := instance.VMName(nodeClaim)
	legacy, err := e.keyring.Sign(signing.Subject{VMName: name, ClusterID: "karpenter-demo", NodeClaim: nodeClaim})
	if err != nil {
		t.Fatal(err)
	}
	c := e.cands[0]
	created, err := e.client.CreateInstance(ctx, createFor(name, legacy, c))
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.provider.Launch(ctx, e.request(nodeClaim))
	if err != nil || !got.Adopted || got.Instance.ID != created.ID {
		t.Fatalf("Launch = %+v, %v; want the legacy-marked VM adopted", got, err)
	}
	if err := e.provider.Delete(ctx, created.ID, nodeClaim); err != nil {
		t.Fatalf("Delete: %v", err)
	}
}

// createFor is a create of a VM by hand with the given name and description.
func createFor(name, description string, c instance.Candidate) kakaocloud.CreateInstance {
	return kakaocloud.CreateInstance{
		Name: name, Description: description, ImageID: c.ImageID, FlavorID: c.FlavorID,
		Subnets: []kakaocloud.SubnetAttachment{{ID: c.SubnetID}}, SecurityGroups: []kakaocloud.SecurityGroupRef{{Name: "default"}},
		Volumes: []kakaocloud.VolumeSpec{kakaocloud.BootVolume(50, "")},
	}
}
