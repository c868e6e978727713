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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

type env struct {
	emu      *emulator.Emulator
	client   *kakaocloud.Client
	provider *instance.Provider
	keyring  *signing.Keyring
	cands    []instance.Candidate
}

func key(b byte) []byte { return []byte(strings.Repeat(string(rune('a'+b)), 32)) }

func newEnv(t *testing.T, transport http.RoundTripper) *env {
	t.Helper()
	return newEnvWith(t, transport, emulator.Options{BuildDelay: time.Nanosecond, DeleteDelay: time.Nanosecond}, instance.Options{})
}

// newEnvWith is newEnv with the emulator's and the provider's options, for a shared fake clock.
func newEnvWith(t *testing.T, transport http.RoundTripper, opts emulator.Options, instanceOpts instance.Options) *env {
	t.Helper()
	emu := emulator.New(opts)
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	client, err := kakaocloud.New(kakaocloud.Config{
		Endpoints:   emu.Endpoints(srv.URL),
		Credentials: kakaocloud.StaticCredentials{AccessKeyID: "emulator-access-key", SecretAccessKey: "emulator-secret"},
		Retry:       kakaocloud.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
		HTTPClient:  &http.Client{Transport: transport},
	})
	if err != nil {
		t.Fatal(err)
	}
	keyring, err := signing.NewKeyring("k1", map[string][]byte{"k1": key(0)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{emu: emu, client: client, keyring: keyring, provider: instance.NewProvider(client, keyring, "karpenter-demo", instanceOpts)}
	e.cands = e.candidates(t, "m2a.large", "c2a.xlarge")
	return e
}

func (e *env) candidates(t *testing.T, flavors ...string) []instance.Candidate {
	t.Helper()
	ctx := context.Background()
	subnet, err := e.client.ListSubnets(ctx, kakaocloud.SubnetFilter{Name: "karpenter-subnet-a"})
	if err != nil || len(subnet) != 1 {
		t.Fatalf("subnet: %v %v", subnet, err)
	}
	images, err := e.client.ListNodeImages(ctx, kakaocloud.NodeImageFilter{KubernetesVersion: "1.36"})
	if err != nil || len(images) == 0 {
		t.Fatalf("images: %v %v", images, err)
	}
	var out []instance.Candidate
	for _, name := range flavors {
		f, err := e.client.ListFlavors(ctx, kakaocloud.FlavorFilter{Name: name})
		if err != nil || len(f) != 1 {
			t.Fatalf("flavor %s: %v %v", name, f, err)
		}
		out = append(out, instance.Candidate{FlavorID: f[0].ID, FlavorName: name, Zone: "kr-central-2-a", SubnetID: subnet[0].ID, ImageID: images[0].ID, UserData: "#!/bin/bash\necho join\n"})
	}
	return out
}

func (e *env) request(nodeClaim string) instance.LaunchRequest {
	return instance.LaunchRequest{
		NodeClaim: nodeClaim, Candidates: e.cands, SecurityGroups: []string{"karpenter-workers"},
		RootVolumeGiB: 50,
	}
}

func (e *env) vmsNamed(name string) []kakaocloud.Instance {
	var out []kakaocloud.Instance
	for _, i := range e.emu.Instances() {
		if i.Name == name && i.Status != kakaocloud.InstanceStatusDeleting {
			out = append(out, i)
		}
	}
	return out
}

func TestLaunchSignsTheVM(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	got, err := e.provider.Launch(context.Background(), e.request("default-abcde"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Adopted || got.Instance.Name != "default-abcde" || got.Candidate.FlavorName != "m2a.large" {
		t.Errorf("Launch = %+v, want a new m2a.large VM named after the NodeClaim", got)
	}
	if _, err := e.keyring.Verify(got.Instance.Description, signing.Subject{VMName: "default-abcde", ClusterID: "karpenter-demo", NodeClaim: "default-abcde"}); err != nil {
		t.Errorf("the VM's description %q does not verify: %v", got.Instance.Description, err)
	}
}

// createBodies keeps the body of every VM create that leaves the client.
type createBodies struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *createBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, kakaocloud.PathInstances) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.bodies = append(c.bodies, body)
		c.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// The boot volume goes as the official Terraform provider sends it: the image only at the top
// level, and a volume type only when the node class names one.
func TestBootVolumeAsTheOfficialProviderSendsIt(t *testing.T) {
	for _, tt := range []struct {
		typeID     string
		wantVolume string
	}{
		{"", `{"size":50,"is_delete_on_termination":true}`},
		{"gp2", `{"size":50,"type_id":"gp2","is_delete_on_termination":true}`},
	} {
		t.Run("type "+tt.typeID, func(t *testing.T) {
			sent := &createBodies{}
			e := newEnv(t, sent)
			req := e.request("default-boot")
			req.RootVolumeType = tt.typeID
			if _, err := e.provider.Launch(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if len(sent.bodies) != 1 {
				t.Fatalf("%d creates sent, want 1", len(sent.bodies))
			}
			var body struct {
				Instance struct {
					ImageID string            `json:"image_id"`
					Volumes []json.RawMessage `json:"volumes"`
				} `json:"instance"`
			}
			if err := json.Unmarshal(sent.bodies[0], &body); err != nil {
				t.Fatal(err)
			}
			if body.Instance.ImageID != e.cands[0].ImageID || len(body.Instance.Volumes) != 1 || string(body.Instance.Volumes[0]) != tt.wantVolume {
				t.Errorf("image_id %q, volumes %s; want %q and [%s]", body.Instance.ImageID, body.Instance.Volumes, e.cands[0].ImageID, tt.wantVolume)
			}
		})
	}
}

// TestRetryAfterCrashAdopts is the crash between creating the VM and recording it on the
// NodeClaim: the second launch for the same NodeClaim must find the first VM.
func TestRetryAfterCrashAdopts(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	ctx := context.Background()
	first, err := e.provider.Launch(ctx, e.request("default-crash"))
	if err != nil {
		t.Fatal(err)
	}
	// The controller restarts with a fresh provider: nothing is remembered in memory.
	restarted := instance.NewProvider(e.client, e.keyring, "karpenter-demo", instance.Options{})
	second, err := restarted.Launch(ctx, e.request("default-crash"))
	if err != nil {
		t.Fatal(err)
	}
	if !second.Adopted || second.Instance.ID != first.Instance.ID {
		t.Errorf("second launch = %+v, want the first VM %s adopted", second, first.Instance.ID)
	}
	if n := e.emu.CallCount(emulator.OpCreateInstance); n != 1 {
		t.Errorf("creates = %d, want 1", n)
	}
	if vms := e.vmsNamed("default-crash"); len(vms) != 1 {
		t.Errorf("VMs named default-crash = %d, want exactly 1", len(vms))
	}
}

// dropCreateAnswer lets the first VM create through and loses its answer, as a connection
// reset after the server acted would.
type dropCreateAnswer struct{ dropped atomic.Bool }

func (d *dropCreateAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/api/v1/instances") && d.dropped.CompareAndSwap(false, true) {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return nil, errors.New("connection reset by peer")
	}
	return resp, err
}

func TestLostCreateAnswerAdoptsInsteadOfCreatingAgain(t *testing.T) {
	e := newEnv(t, &dropCreateAnswer{})
	got, err := e.provider.Launch(context.Background(), e.request("default-lost"))
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if !got.Adopted {
		t.Errorf("Launch = %+v, want the VM the lost create made, adopted", got)
	}
	if n := e.emu.CallCount(emulator.OpCreateInstance); n != 1 {
		t.Errorf("creates = %d, want 1", n)
	}
	if vms := e.vmsNamed("default-lost"); len(vms) != 1 {
		t.Errorf("VMs named default-lost = %d, want exactly 1", len(vms))
	}
}

func TestForeignVMOfTheSameNameIsNeverAdopted(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	ctx := context.Background()
	// Someone made a VM with the NodeClaim's name by hand.
	req := e.request("default-twin")
	if _, err := e.client.CreateInstance(ctx, kakaocloud.CreateInstance{
		Name: "default-twin", Description: "made by hand", ImageID: e.cands[0].ImageID, FlavorID: e.cands[0].FlavorID,
		Subnets: []kakaocloud.SubnetAttachment{{ID: e.cands[0].SubnetID}}, SecurityGroups: []kakaocloud.SecurityGroupRef{{Name: "default"}},
		Volumes: []kakaocloud.VolumeSpec{kakaocloud.BootVolume(50, "")},
	}); err != nil {
		t.Fatal(err)
	}
	got, err := e.provider.Launch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Adopted || got.Instance.Description == "made by hand" {
		t.Errorf("Launch adopted the hand-made VM: %+v", got)
	}
	if vms := e.vmsNamed("default-twin"); len(vms) != 2 {
		t.Errorf("VMs named default-twin = %d, want 2 (the hand-made one and ours)", len(vms))
	}
}

// TestTamperedVMIsNeverDeleted edits a VM's description, as an operator might by mistake:
// the controller must refuse to delete it and must not list it as its own.
func TestTamperedVMIsNeverDeleted(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	ctx := context.Background()
	launched, err := e.provider.Launch(ctx, e.request("default-tamper"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tampered := range []string{
		"edited by an operator",
		// A well-formed marker of this cluster with a forged signature.
		"karpenter v1 c=karpenter-demo k=k1 s=AAAAAAAAAAAAAAAAAAAAAA",
	} {
		if _, err := e.client.UpdateInstance(ctx, launched.Instance.ID, kakaocloud.UpdateInstance{Description: &tampered}); err != nil {
			t.Fatal(err)
		}
		err := e.provider.Delete(ctx, launched.Instance.ID, "default-tamper")
		if !errors.Is(err, instance.ErrNotOwned) {
			t.Errorf("Delete of a VM described %q: %v, want ErrNotOwned", tampered, err)
		}
		if n := e.emu.CallCount(emulator.OpDeleteInstance); n != 0 {
			t.Fatalf("delete calls = %d, want 0", n)
		}
		owned, err := e.provider.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(owned) != 0 {
			t.Errorf("List = %+v, want the tampered VM left out", owned)
		}
	}
	// Renamed VMs fail too: the name is signed.
	renamed := "default-renamed"
	restored := launched.Instance.Description
	if _, err := e.client.UpdateInstance(ctx, launched.Instance.ID, kakaocloud.UpdateInstance{Name: &renamed, Description: &restored}); err != nil {
		t.Fatal(err)
	}
	if err := e.provider.Delete(ctx, launched.Instance.ID, "default-tamper"); !errors.Is(err, instance.ErrNotOwned) {
		t.Errorf("Delete of a renamed VM: %v, want ErrNotOwned", err)
	}
	// A VM is not deleted on behalf of another NodeClaim either.
	other, err := e.provider.Launch(ctx, e.request("default-other"))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.provider.Delete(ctx, other.Instance.ID, "default-tamper"); !errors.Is(err, instance.ErrNotOwned) {
		t.Errorf("Delete for the wrong NodeClaim: %v, want ErrNotOwned", err)
	}
	if vms := e.emu.Instances(); len(vms) != 2 {
		t.Errorf("VMs = %d, want both still there", len(vms))
	}
}

func TestDeleteOwnedVM(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	ctx := context.Background()
	launched, err := e.provider.Launch(ctx, e.request("default-bye"))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.provider.Delete(ctx, launched.Instance.ID, "default-bye"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // the emulator's 1 ns delete delay, measured on its real clock
	if err := e.provider.Delete(ctx, launched.Instance.ID, "default-bye"); !errors.Is(err, kakaocloud.ErrNotFound) {
		t.Errorf("Delete of a VM gone: %v, want ErrNotFound", err)
	}
}

func TestCapacityErrorsFallBackToTheNextCandidate(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	e.emu.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusBadRequest, Code: "BadRequest", Message: "Insufficient capacity for m2a.large", Count: 1})
	var skipped []string
	req := e.request("default-ice")
	req.OnInsufficientCapacity = func(c instance.Candidate, _ error) { skipped = append(skipped, c.FlavorName+"/"+c.Zone) }
	got, err := e.provider.Launch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Candidate.FlavorName != "c2a.xlarge" || len(skipped) != 1 || skipped[0] != "m2a.large/kr-central-2-a" {
		t.Errorf("launched %s, skipped %v; want c2a.xlarge after m2a.large/kr-central-2-a", got.Candidate.FlavorName, skipped)
	}

	e.emu.InjectFault(emulator.OpCreateInstance, emulator.Fault{Status: http.StatusForbidden, Code: "Forbidden", Message: "Quota exceeded for cores", Count: 2})
	_, err = e.provider.Launch(context.Background(), e.request("default-ice-2"))
	var ice *instance.InsufficientCapacityError
	if !errors.As(err, &ice) || !strings.Contains(err.Error(), "c2a.xlarge in kr-central-2-a") {
		t.Errorf("every candidate out of capacity: %v, want InsufficientCapacityError naming each", err)
	}
}

func TestListCountsVMsPerSigningKey(t *testing.T) {
	e := newEnv(t, http.DefaultTransport)
	ctx := context.Background()
	if _, err := e.provider.Launch(ctx, e.request("default-old")); err != nil {
		t.Fatal(err)
	}
	// Rotate: add k2 and make it active, keeping k1 for the VMs it signed.
	rotated, err := signing.NewKeyring("k2", map[string][]byte{"k1": key(0), "k2": key(1)})
	if err != nil {
		t.Fatal(err)
	}
	p := instance.NewProvider(e.client, rotated, "karpenter-demo", instance.Options{})
	if _, err := p.Launch(ctx, e.request("default-new")); err != nil {
		t.Fatal(err)
	}
	// Another cluster's VM in the same project is not ours.
	otherCluster := instance.NewProvider(e.client, rotated, "other-cluster", instance.Options{})
	if _, err := otherCluster.Launch(ctx, e.request("other-vm")); err != nil {
		t.Fatal(err)
	}
	owned, err := p.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, o := range owned {
		keys[o.Instance.Name] = o.KeyID
	}
	if len(keys) != 2 || keys["default-old"] != "k1" || keys["default-new"] != "k2" {
		t.Errorf("owned VMs and keys = %v, want default-old by k1 and default-new by k2", keys)
	}
	expectKeyCount(t, "k1", 1)
	expectKeyCount(t, "k2", 1)

	// k1 removed while a VM still depends on it: that VM is no longer owned, and k1's count
	// says it still exists rather than reading as safe to remove.
	withoutK1, err := signing.NewKeyring("k2", map[string][]byte{"k2": key(1)})
	if err != nil {
		t.Fatal(err)
	}
	owned, err = instance.NewProvider(e.client, withoutK1, "karpenter-demo", instance.Options{}).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(owned) != 1 || owned[0].Instance.Name != "default-new" {
		t.Errorf("owned VMs = %v, want only default-new", owned)
	}
	expectKeyCount(t, "k1", 1)
	expectKeyCount(t, "k2", 1)
}

// expectKeyCount checks the karpenter_kakaocloud_instances_by_signing_key series of keyID.
func expectKeyCount(t *testing.T, keyID string, want float64) {
	t.Helper()
	if got := test.MetricValue("karpenter_kakaocloud_instances_by_signing_key", map[string]string{"key_id": keyID}); got != want {
		t.Errorf("VMs signed by %s = %v, want %v", keyID, got, want)
	}
}

func TestVMName(t *testing.T) {
	cases := map[string]string{
		"default-abcde":         "default-abcde",
		"checkout-x7k2p":        "checkout-x7k2p",
		"team.a-x7k2p":          "team-a-x7k2p-",
		"pool--double-x7k2p":    "pool-double-x7k2p-",
		strings.Repeat("a", 70): strings.Repeat("a", 54) + "-",
		"abc":                   "abc-",
	}
	seen := map[string]bool{}
	for in, prefix := range cases {
		got := instance.VMName(in)
		if !strings.HasPrefix(got, prefix) || len(got) > 63 || len(got) < 4 {
			t.Errorf("VMName(%q) = %q, want a 4-63 character name starting %q", in, got, prefix)
		}
		if seen[got] {
			t.Errorf("VMName(%q) = %q collides", in, got)
		}
		seen[got] = true
	}
	if instance.VMName("team.a-x7k2p") == instance.VMName("team-a-x7k2p") {
		t.Error("a rewritten name collides with a valid one")
	}
}
