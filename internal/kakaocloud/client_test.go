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

package kakaocloud_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	dto "github.com/prometheus/client_model/go"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

const (
	accessKeyID = "emulator-access-key"
	secretKey   = "emulator-secret"
)

// newFakeClock returns a clock a test steps by hand.
func newFakeClock() *clocktesting.FakeClock {
	return clocktesting.NewFakeClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
}

type env struct {
	emu    *emulator.Emulator
	server *httptest.Server
	clock  *clocktesting.FakeClock
}

// newEnv serves a fresh emulator over HTTP on loopback.
func newEnv(t *testing.T) *env {
	t.Helper()
	clock := newFakeClock()
	emu := emulator.New(emulator.Options{
		Clock:       clock,
		BuildDelay:  10 * time.Second,
		DeleteDelay: 5 * time.Second,
	})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	return &env{emu: emu, server: srv, clock: clock}
}

// client returns a client of the emulator with fast retries; mutate adjusts its config.
func (e *env) client(t *testing.T, mutate ...func(*kakaocloud.Config)) *kakaocloud.Client {
	t.Helper()
	cfg := kakaocloud.Config{
		Endpoints:   e.emu.Endpoints(e.server.URL),
		Credentials: kakaocloud.StaticCredentials{AccessKeyID: accessKeyID, SecretAccessKey: secretKey},
		Retry:       kakaocloud.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
		Clock:       e.clock,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := kakaocloud.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// must fails the test on an error; used as must(call())(t).
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestCatalogReads(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()

	flavors := must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{}))(t)
	if len(flavors) != 24 {
		t.Errorf("ListFlavors: %d flavors, want 24 (m2a, c2a, r2a in 7 sizes and gn1i in 3)", len(flavors))
	}
	m2a := must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{InstanceFamily: "m2a"}))(t)
	if len(m2a) != 7 {
		t.Errorf("ListFlavors(m2a): %d flavors, want 7", len(m2a))
	}
	large := must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{Name: "m2a.large"}))(t)
	if len(large) != 1 || large[0].VCPUs != 2 || large[0].MemoryMB != 8192 {
		t.Fatalf("ListFlavors(m2a.large) = %+v, want one flavor with 2 vCPU and 8192 MiB", large)
	}
	if got := must(c.GetFlavor(ctx, large[0].ID))(t); got.Name != "m2a.large" || len(got.Zones) != 3 {
		t.Errorf("GetFlavor = %+v, want m2a.large in 3 zones", got)
	}
	gpu := must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{InstanceFamily: "gn1i"}))(t)
	for _, f := range gpu {
		if f.HWName != "t4" || f.HWCount == 0 || len(f.Zones) != 1 {
			t.Errorf("GPU flavor %s = %+v, want T4 GPUs in one zone", f.Name, f)
		}
	}

	subnets := must(c.ListSubnets(ctx, kakaocloud.SubnetFilter{}))(t)
	if len(subnets) != 3 {
		t.Errorf("ListSubnets: %d, want 3", len(subnets))
	}
	byName := must(c.ListSubnets(ctx, kakaocloud.SubnetFilter{Name: "karpenter-subnet-b"}))(t)
	if len(byName) != 1 || byName[0].AvailabilityZone != "kr-central-2-b" {
		t.Fatalf("ListSubnets(karpenter-subnet-b) = %+v", byName)
	}
	if got := must(c.GetSubnet(ctx, byName[0].ID))(t); got.Name != "karpenter-subnet-b" {
		t.Errorf("GetSubnet = %+v", got)
	}

	sgs := must(c.ListSecurityGroups(ctx, kakaocloud.SecurityGroupFilter{Name: "karpenter-workers"}))(t)
	if len(sgs) != 1 {
		t.Fatalf("ListSecurityGroups(karpenter-workers) = %+v", sgs)
	}
	if got := must(c.GetSecurityGroup(ctx, sgs[0].ID))(t); got.Name != "karpenter-workers" {
		t.Errorf("GetSecurityGroup = %+v", got)
	}

	cluster := must(c.GetCluster(ctx, "karpenter-demo"))(t)
	if cluster.Version.MinorVersion != "1.36" || cluster.Status.Phase != kakaocloud.ClusterPhaseProvisioned || cluster.ControlPlaneEndpoint.Host == "" {
		t.Errorf("GetCluster = %+v, want control plane 1.36, Provisioned, with an endpoint", cluster)
	}
	if clusters := must(c.ListClusters(ctx))(t); len(clusters) != 1 {
		t.Errorf("ListClusters: %d, want 1", len(clusters))
	}
	versions := must(c.ListVersions(ctx))(t)
	deprecated := map[string]bool{}
	for _, v := range versions {
		deprecated[v.MinorVersion] = v.IsDeprecated
	}
	if len(versions) != 4 || !deprecated["1.33"] || deprecated["1.36"] {
		t.Errorf("ListVersions = %+v, want 1.33 (deprecated) .. 1.36", versions)
	}

	images := must(c.ListNodeImages(ctx, kakaocloud.NodeImageFilter{KubernetesVersion: "1.36", InstanceType: "vm"}))(t)
	if len(images) != 3 {
		t.Errorf("ListNodeImages(1.36) = %d images, want 3 (x86_64, aarch64, GPU)", len(images))
	}
	gpuOnly := true
	gpuImages := must(c.ListNodeImages(ctx, kakaocloud.NodeImageFilter{KubernetesVersion: "1.36", GPU: &gpuOnly}))(t)
	if len(gpuImages) != 1 || !gpuImages[0].IsGPUType {
		t.Errorf("ListNodeImages(1.36, GPU) = %+v, want one GPU image", gpuImages)
	}
	if none := must(c.ListNodeImages(ctx, kakaocloud.NodeImageFilter{KubernetesVersion: "1.33"}))(t); len(none) != 0 {
		t.Errorf("ListNodeImages(1.33) = %+v, want none", none)
	}
	if got := must(c.GetImage(ctx, images[0].ID))(t); got.ID != images[0].ID {
		t.Errorf("GetImage(%s) = %+v", images[0].ID, got)
	}
	if all := must(c.ListImages(ctx, kakaocloud.ImageFilter{}))(t); len(all) < 9 {
		t.Errorf("ListImages: %d images, want the 9 worker images and more", len(all))
	}
}

func TestPaginationReadsEveryPage(t *testing.T) {
	e := newEnv(t)
	c := e.client(t, func(cfg *kakaocloud.Config) { cfg.PageSize = 5 })
	flavors := must(c.ListFlavors(context.Background(), kakaocloud.FlavorFilter{}))(t)
	if len(flavors) != 24 {
		t.Fatalf("ListFlavors: %d flavors, want 24", len(flavors))
	}
	seen := map[string]bool{}
	for _, f := range flavors {
		if seen[f.ID] {
			t.Errorf("flavor %s listed twice", f.Name)
		}
		seen[f.ID] = true
	}
	if calls := e.emu.CallCount("bcs.ListFlavors"); calls != 5 {
		t.Errorf("ListFlavors made %d page calls, want 5 (24 flavors, 5 per page)", calls)
	}
}

func createRequest(t *testing.T, c *kakaocloud.Client, name string) kakaocloud.CreateInstance {
	t.Helper()
	ctx := context.Background()
	flavor := must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{Name: "m2a.large"}))(t)[0]
	subnet := must(c.ListSubnets(ctx, kakaocloud.SubnetFilter{Name: "karpenter-subnet-a"}))(t)[0]
	image := must(c.ListNodeImages(ctx, kakaocloud.NodeImageFilter{KubernetesVersion: "1.36"}))(t)[0]
	return kakaocloud.CreateInstance{
		Name:             name,
		Description:      "karpenter test",
		ImageID:          image.ID,
		FlavorID:         flavor.ID,
		AvailabilityZone: subnet.AvailabilityZone,
		Subnets:          []kakaocloud.SubnetAttachment{{ID: subnet.ID}},
		Volumes:          []kakaocloud.VolumeSpec{kakaocloud.BootVolume(50, "")},
		SecurityGroups:   []kakaocloud.SecurityGroupRef{{Name: "karpenter-workers"}},
	}
}

func TestInstanceLifecycle(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()

	created := must(c.CreateInstance(ctx, createRequest(t, c, "default-abcde")))(t)
	got := must(c.GetInstance(ctx, created.ID))(t)
	if got.Name != "default-abcde" || got.Status != kakaocloud.InstanceStatusBuilding || got.Description != "karpenter test" {
		t.Errorf("GetInstance after create = %+v, want default-abcde building", got)
	}
	e.clock.Step(11 * time.Second)
	if got := must(c.GetInstance(ctx, created.ID))(t); got.Status != kakaocloud.InstanceStatusActive {
		t.Errorf("status after the build delay = %s, want active", got.Status)
	}

	renamed := "karpenter changed"
	if got := must(c.UpdateInstance(ctx, created.ID, kakaocloud.UpdateInstance{Description: &renamed}))(t); got.Description != renamed {
		t.Errorf("UpdateInstance description = %q, want %q", got.Description, renamed)
	}

	if err := c.DeleteInstance(ctx, created.ID); err != nil {
		t.Fatalf("DeleteInstance: %v", err)
	}
	if got := must(c.GetInstance(ctx, created.ID))(t); got.Status != kakaocloud.InstanceStatusDeleting {
		t.Errorf("status after delete = %s, want deleting", got.Status)
	}
	e.clock.Step(6 * time.Second)
	if _, err := c.GetInstance(ctx, created.ID); !errors.Is(err, kakaocloud.ErrNotFound) {
		t.Errorf("GetInstance of a deleted VM: %v, want ErrNotFound", err)
	}
	// Deleting what is already gone is not an error: retries and restarts depend on it.
	if err := c.DeleteInstance(ctx, created.ID); err != nil {
		t.Errorf("DeleteInstance of a VM already gone: %v, want nil", err)
	}
	another := must(c.CreateInstance(ctx, createRequest(t, c, "default-fghij")))(t)
	logs := must(c.ListInstanceActionLogs(ctx, another.ID))(t)
	if len(logs) == 0 || logs[0].Action != "create" {
		t.Errorf("ListInstanceActionLogs = %+v, want a create entry", logs)
	}
}

func TestFindInstancesByNameMatchesExactly(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()
	// KakaoCloud allows duplicate names and filters by substring.
	for _, name := range []string{"pool-a1", "pool-a1", "pool-a10", "xpool-a1"} {
		must(c.CreateInstance(ctx, createRequest(t, c, name)))(t)
	}
	if substring := must(c.ListInstances(ctx, kakaocloud.InstanceFilter{Name: "pool-a1"}))(t); len(substring) != 4 {
		t.Errorf("ListInstances(name=pool-a1) = %d, want the server's 4 substring matches", len(substring))
	}
	exact := must(c.FindInstancesByName(ctx, "pool-a1"))(t)
	if len(exact) != 2 {
		t.Fatalf("FindInstancesByName(pool-a1) = %d, want 2", len(exact))
	}
	for _, i := range exact {
		if i.Name != "pool-a1" {
			t.Errorf("FindInstancesByName returned %s", i.Name)
		}
	}
	if none := must(c.FindInstancesByName(ctx, "pool"))(t); len(none) != 0 {
		t.Errorf("FindInstancesByName(pool) = %d, want 0", len(none))
	}
}

func TestTokenIsReusedAndRenewedBeforeExpiry(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()
	for range 3 {
		must(c.ListVersions(ctx))(t)
	}
	if n := e.emu.CallCount("iam.IssueToken"); n != 1 {
		t.Fatalf("3 calls issued %d tokens, want 1", n)
	}
	// The emulator's tokens live 12 h; at 11 h 56 m the client renews ahead of expiry.
	e.clock.Step(11*time.Hour + 56*time.Minute)
	must(c.ListVersions(ctx))(t)
	if n := e.emu.CallCount("iam.IssueToken"); n != 2 {
		t.Errorf("a call 4 minutes before expiry issued %d tokens in all, want 2", n)
	}
}

func TestRevokedTokenIsReissuedOnce(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()
	must(c.ListVersions(ctx))(t)
	e.emu.ExpireTokens()
	must(c.ListVersions(ctx))(t)
	if n := e.emu.CallCount("iam.IssueToken"); n != 2 {
		t.Errorf("tokens issued = %d, want 2", n)
	}
	if n := e.emu.CallCount("ke.ListVersions"); n != 3 {
		t.Errorf("ListVersions calls = %d, want 3 (ok, 401, ok)", n)
	}
}

func TestWrongCredentialsFailWithoutLeakingTheSecret(t *testing.T) {
	e := newEnv(t)
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Credentials = kakaocloud.StaticCredentials{AccessKeyID: accessKeyID, SecretAccessKey: "wrong-secret-value"}
	})
	_, err := c.ListVersions(context.Background())
	if !errors.Is(err, kakaocloud.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	if !strings.Contains(err.Error(), accessKeyID) || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("error %q must name the access key and never the secret", err)
	}
	if n := e.emu.CallCount("iam.IssueToken"); n != 1 {
		t.Errorf("token issues = %d, want 1: a refused key is not retried", n)
	}
}

func TestServerErrorsAreRetriedUpToTheLimit(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()

	e.emu.InjectFault("bcs.ListFlavors", emulator.Fault{Status: http.StatusServiceUnavailable, Count: 3})
	if _, err := c.ListFlavors(ctx, kakaocloud.FlavorFilter{Name: "m2a.large"}); err != nil {
		t.Fatalf("3 failures then success: %v", err)
	}
	if n := e.emu.CallCount("bcs.ListFlavors"); n != 4 {
		t.Errorf("calls = %d, want 4", n)
	}

	e.emu.ResetCallCounts()
	e.emu.InjectFault("bcs.GetFlavor", emulator.Fault{Status: http.StatusInternalServerError, Count: 10})
	_, err := c.GetFlavor(ctx, "does-not-matter")
	if !errors.Is(err, kakaocloud.ErrServer) {
		t.Fatalf("err = %v, want ErrServer", err)
	}
	if n := e.emu.CallCount("bcs.GetFlavor"); n != 4 {
		t.Errorf("calls = %d, want MaxAttempts (4)", n)
	}
}

func TestCreateIsNotRetriedBlindly(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()
	req := createRequest(t, c, "default-retry")

	// A 500 may come after the VM was made: the caller must look it up, not the client retry.
	e.emu.InjectFault("bcs.CreateInstance", emulator.Fault{Status: http.StatusInternalServerError, Count: 1})
	if _, err := c.CreateInstance(ctx, req); !errors.Is(err, kakaocloud.ErrServer) {
		t.Fatalf("err = %v, want ErrServer", err)
	}
	if n := e.emu.CallCount("bcs.CreateInstance"); n != 1 {
		t.Errorf("create calls after a 500 = %d, want 1", n)
	}

	// A 429 is refused before anything happens: retrying it is safe.
	e.emu.InjectFault("bcs.CreateInstance", emulator.Fault{Status: http.StatusTooManyRequests, Count: 2})
	must(c.CreateInstance(ctx, req))(t)
	if n := e.emu.CallCount("bcs.CreateInstance"); n != 4 {
		t.Errorf("create calls = %d, want 4 (500, 429, 429, created)", n)
	}
	if vms := must(c.FindInstancesByName(ctx, "default-retry"))(t); len(vms) != 1 {
		t.Errorf("VMs named default-retry = %d, want exactly 1", len(vms))
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	e.emu.InjectFault("ke.ListVersions", emulator.Fault{Status: http.StatusTooManyRequests, Count: 1, RetryAfter: time.Second})
	start := time.Now()
	must(c.ListVersions(context.Background()))(t)
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, want at least the 1 s the server asked for", waited)
	}
}

func TestContextCancellation(t *testing.T) {
	e := newEnv(t)
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Retry = kakaocloud.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Minute, MaxDelay: time.Minute}
	})
	must(c.ListVersions(context.Background()))(t) // get a token first

	// Cancelled while the server is slow.
	e.emu.SetLatency("ke.GetCluster", 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.GetCluster(ctx, "karpenter-demo"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow call: err = %v, want context.DeadlineExceeded", err)
	}

	// A backoff longer than the caller's deadline leaves: the failure is the caller's to
	// retry (or, when the draw was short, the wait is cut by the deadline).
	e.emu.InjectFault("ke.ListVersions", emulator.Fault{Status: http.StatusServiceUnavailable, Count: 5})
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	start := time.Now()
	if _, err := c.ListVersions(ctx2); !errors.Is(err, kakaocloud.ErrServer) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("backoff: err = %v, want the 503 or context.DeadlineExceeded", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("backoff: the call took %v, past its caller's deadline of 100 ms", waited)
	}
	if n := e.emu.CallCount("ke.ListVersions"); n != 2 {
		t.Errorf("ListVersions calls = %d, want 2 (one ok, one failure, then no retry within the deadline)", n)
	}
}

func TestRetryAfterLongerThanTheCallIsTheCallersToWait(t *testing.T) {
	e := newEnv(t)
	c := e.client(t, func(cfg *kakaocloud.Config) { cfg.Retry.MaxAttempts = 5 })
	ctx := context.Background()
	must(c.ListVersions(ctx))(t) // a token first
	e.emu.ResetCallCounts()

	// Five minutes asked: the call fails at once with the wait capped, and sends nothing more.
	e.emu.InjectFault("bcs.CreateInstance", emulator.Fault{Status: http.StatusTooManyRequests, RetryAfter: 5 * time.Minute})
	start := time.Now()
	_, err := c.CreateInstance(ctx, createRequest(t, c, "throttled"))
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("a throttled create held its caller for %v", waited)
	}
	if !errors.Is(err, kakaocloud.ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	if got := kakaocloud.RetryAfterOf(err); got != kakaocloud.DefaultMaxRetryAfter {
		t.Errorf("RetryAfterOf = %v, want the server's 5m capped at %v", got, kakaocloud.DefaultMaxRetryAfter)
	}
	if n := e.emu.CallCount("bcs.CreateInstance"); n != 1 {
		t.Errorf("create calls = %d, want 1: a wait past the call's deadline is not slept in it", n)
	}
	if vms := must(c.FindInstancesByName(ctx, "throttled"))(t); len(vms) != 0 {
		t.Errorf("VMs named throttled = %d, want none: a 429 creates nothing", len(vms))
	}

	// A short wait that fits in the call is taken in it, up to the cap.
	e.emu.ClearFaults()
	c2 := e.client(t, func(cfg *kakaocloud.Config) { cfg.MaxRetryAfter = 300 * time.Millisecond })
	e.emu.InjectFault("ke.ListVersions", emulator.Fault{Status: http.StatusTooManyRequests, Count: 1, RetryAfter: time.Hour})
	start = time.Now()
	must(c2.ListVersions(ctx))(t)
	if waited := time.Since(start); waited < 300*time.Millisecond || waited > 5*time.Second {
		t.Errorf("retried after %v, want the hour asked for capped at 300ms", waited)
	}
}

func TestCallTimeoutBoundsAnUnansweredCall(t *testing.T) {
	e := newEnv(t)
	c := e.client(t, func(cfg *kakaocloud.Config) { cfg.CallTimeout = 200 * time.Millisecond })
	ctx := context.Background()
	must(c.ListVersions(ctx))(t) // a token first

	// KakaoCloud never answers (within the test): the call costs its deadline, not more.
	e.emu.SetLatency("bcs.ListInstances", time.Minute)
	start := time.Now()
	_, err := c.ListInstances(ctx, kakaocloud.InstanceFilter{})
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("an unanswered call held its caller for %v, want about its 200ms deadline", waited)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within the call timeout of 200ms") {
		t.Errorf("err = %v, want the call timeout named", err)
	}
	// No answer is not a refusal: a create that timed out may have made its VM.
	if kakaocloud.KindOf(err) != "" {
		t.Errorf("KindOf = %q, want none: nothing answered", kakaocloud.KindOf(err))
	}
}

func TestRateLimitIsPerServiceAndSendsNothingItCannotFit(t *testing.T) {
	e := newEnv(t)
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.RateLimit = kakaocloud.RateLimit{QPS: 2, Burst: 1}
		cfg.CallTimeout = 200 * time.Millisecond
	})
	ctx := context.Background()
	must(c.GetCluster(ctx, "karpenter-demo"))(t) // a token first (IAM's own bucket), then one of kubernetes-engine's
	e.emu.ResetCallCounts()

	// The bucket is empty for half a second, longer than the call's deadline: refused unsent.
	_, err := c.GetCluster(ctx, "karpenter-demo")
	if !errors.Is(err, kakaocloud.ErrRateLimited) || kakaocloud.KindOf(err) != kakaocloud.ErrRateLimited {
		t.Fatalf("err = %v, want the client's own ErrRateLimited", err)
	}
	if n := e.emu.CallCount("ke.GetCluster"); n != 0 {
		t.Errorf("GetCluster calls = %d, want 0: the client sent what its rate limit held", n)
	}
	// Another service has a bucket of its own.
	must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{}))(t)
	// Once the bucket refills, the call goes.
	time.Sleep(600 * time.Millisecond)
	must(c.GetCluster(ctx, "karpenter-demo"))(t)
}

func TestErrorsAreMappedToKinds(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	ctx := context.Background()

	if _, err := c.GetInstance(ctx, "00000000-0000-0000-0000-000000000000"); !errors.Is(err, kakaocloud.ErrNotFound) {
		t.Errorf("unknown instance: %v, want ErrNotFound", err)
	}
	bad := createRequest(t, c, "bad--name")
	_, err := c.CreateInstance(ctx, bad)
	if !errors.Is(err, kakaocloud.ErrBadRequest) || !strings.Contains(err.Error(), "name") {
		t.Errorf("bad name: %v, want ErrBadRequest naming the field", err)
	}
	cases := []struct {
		fault emulator.Fault
		want  kakaocloud.Kind
	}{
		{emulator.Fault{Status: http.StatusForbidden, Code: "QuotaExceeded", Message: "Quota exceeded for cores"}, kakaocloud.ErrQuotaExceeded},
		{emulator.Fault{Status: http.StatusConflict, Code: "Conflict", Message: "instance is in an invalid state"}, kakaocloud.ErrConflict},
		{emulator.Fault{Status: http.StatusBadRequest, Code: "BadRequest", Message: "Insufficient capacity for flavor"}, kakaocloud.ErrInsufficientCapacity},
		{emulator.Fault{Status: http.StatusForbidden, Code: "Forbidden", Message: "not allowed"}, kakaocloud.ErrForbidden},
		// The status decides before the text: a right missing is no shortage of capacity, and a
		// server error that mentions quota may still have created the VM.
		{emulator.Fault{Status: http.StatusForbidden, Code: "Forbidden", Message: "Insufficient privileges to create an instance"}, kakaocloud.ErrForbidden},
		{emulator.Fault{Status: http.StatusInternalServerError, Code: "InternalServerError", Message: "quota service timed out"}, kakaocloud.ErrServer},
	}
	for _, tc := range cases {
		tc.fault.Count = 1
		e.emu.InjectFault("bcs.CreateInstance", tc.fault)
		_, err := c.CreateInstance(ctx, createRequest(t, c, "default-kinds"))
		if !errors.Is(err, tc.want) {
			t.Errorf("%d %s: err = %v, want %s", tc.fault.Status, tc.fault.Message, err, tc.want)
		}
		var apiErr *kakaocloud.APIError
		if !errors.As(err, &apiErr) || apiErr.Message != tc.fault.Message || apiErr.Operation != "CreateInstance" {
			t.Errorf("APIError = %+v, want the server's message and the operation", apiErr)
		}
	}
}

// countingTransport counts the requests that leave the client.
type countingTransport struct {
	mu    sync.Mutex
	count map[string]int
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.count[r.Method]++
	t.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func TestTransportFailures(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	req := createRequest(t, c, "default-unreachable")
	must(c.ListVersions(context.Background()))(t) // a token for the calls below

	// Point the VM service at a port nobody listens on.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	transport := &countingTransport{count: map[string]int{}}
	endpoints := e.emu.Endpoints(e.server.URL)
	endpoints[kakaocloud.ServiceBCS] = dead.URL + "/bcs"
	c = e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Endpoints = endpoints
		cfg.HTTPClient = &http.Client{Transport: transport}
	})
	if _, err := c.GetInstance(context.Background(), "x"); err == nil || kakaocloud.KindOf(err) != "" {
		t.Errorf("unreachable GetInstance: %v, want a transport error", err)
	}
	if _, err := c.CreateInstance(context.Background(), req); err == nil {
		t.Error("unreachable CreateInstance: want an error")
	}
	if transport.count[http.MethodGet] != 4 || transport.count[http.MethodPost] != 2 {
		t.Errorf("requests sent = %v, want GET 4 (retried) and POST 2 (one token issue, one create: never retried)", transport.count)
	}
}

func TestMetricsCountRequests(t *testing.T) {
	e := newEnv(t)
	c := e.client(t)
	before := requestCount(t, "kubernetes-engine", "ListVersions", "503")
	e.emu.InjectFault("ke.ListVersions", emulator.Fault{Status: http.StatusServiceUnavailable, Count: 2})
	must(c.ListVersions(context.Background()))(t)
	if got := requestCount(t, "kubernetes-engine", "ListVersions", "503") - before; got != 2 {
		t.Errorf("karpenter_kakaocloud_api_requests_total{code=503} grew by %v, want 2", got)
	}
	if got := requestCount(t, "kubernetes-engine", "ListVersions", "200"); got < 1 {
		t.Errorf("karpenter_kakaocloud_api_requests_total{code=200} = %v, want at least 1", got)
	}
}

func requestCount(t *testing.T, service, operation, code string) float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "karpenter_kakaocloud_api_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if labels(m)["service"] == service && labels(m)["operation"] == operation && labels(m)["code"] == code {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// recordingTransport keeps every request that leaves the client.
type recordingTransport struct {
	mu       sync.Mutex
	requests []*http.Request
}

func (t *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.requests = append(t.requests, r.Clone(r.Context()))
	t.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// Every request says which models it follows and who sends it, as the official SDK's do; a
// body's type only goes with a body; listings read oldest first.
func TestRequestsCarryTheSDKsHeaders(t *testing.T) {
	e := newEnv(t)
	recorder := &recordingTransport{}
	c := e.client(t, func(cfg *kakaocloud.Config) { cfg.HTTPClient = &http.Client{Transport: recorder} })
	ctx := context.Background()
	must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{}))(t)
	must(c.CreateInstance(ctx, createRequest(t, c, "default-headers")))(t)

	var listed, created bool
	for _, r := range recorder.requests {
		if r.Header.Get(kakaocloud.HeaderAPIVersion) != kakaocloud.APIVersion || r.Header.Get("User-Agent") != kakaocloud.UserAgent {
			t.Errorf("%s %s: %s %q, User-Agent %q", r.Method, r.URL.Path, kakaocloud.HeaderAPIVersion, r.Header.Get(kakaocloud.HeaderAPIVersion), r.Header.Get("User-Agent"))
		}
		if hasBody := r.Method == http.MethodPost || r.Method == http.MethodPut; (r.Header.Get("Content-Type") != "") != hasBody {
			t.Errorf("%s %s: Content-Type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, kakaocloud.PathFlavors):
			listed = true
			if q := r.URL.Query(); q.Get("sort_keys") != "created_at" || q.Get("sort_dirs") != "asc" {
				t.Errorf("listing %s sorted by %q %q, want created_at asc", r.URL.Path, q.Get("sort_keys"), q.Get("sort_dirs"))
			}
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, kakaocloud.PathInstances):
			created = true
		}
	}
	if !listed || !created {
		t.Errorf("requests seen: listed %v, created %v", listed, created)
	}
}

// With only IAM and the configuration service given, the client asks the configuration
// service for the other endpoints once, as KakaoCloud's own tools do, and reaches them; an
// override always wins, and a client with every endpoint given never asks.
func TestEndpointsResolvedByTheConfigurationService(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	all := e.emu.Endpoints(e.server.URL)
	c := e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Endpoints = map[string]string{kakaocloud.ServiceIAM: all[kakaocloud.ServiceIAM], kakaocloud.ServiceConfig: all[kakaocloud.ServiceConfig]}
	})
	must(c.ListFlavors(ctx, kakaocloud.FlavorFilter{}))(t)
	must(c.ListSubnets(ctx, kakaocloud.SubnetFilter{}))(t)
	if n := e.emu.CallCount(emulator.OpResolveEndpoints); n != 1 {
		t.Errorf("endpoint resolutions = %d, want 1 (then kept)", n)
	}
	resolved := must(c.ResolveEndpoints(ctx))(t)
	for _, service := range kakaocloud.Services {
		if resolved[service] != all[service] {
			t.Errorf("%s: %q, want the emulator's %q", service, resolved[service], all[service])
		}
	}

	overridden := "http://127.0.0.1:1/bcs"
	c = e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Endpoints = map[string]string{
			kakaocloud.ServiceIAM: all[kakaocloud.ServiceIAM], kakaocloud.ServiceConfig: all[kakaocloud.ServiceConfig], kakaocloud.ServiceBCS: overridden,
		}
	})
	if got := must(c.ResolveEndpoints(ctx))(t); got[kakaocloud.ServiceBCS] != overridden || got[kakaocloud.ServiceVPC] != all[kakaocloud.ServiceVPC] {
		t.Errorf("bcs %q (want the override %q), vpc %q", got[kakaocloud.ServiceBCS], overridden, got[kakaocloud.ServiceVPC])
	}

	before := e.emu.CallCount(emulator.OpResolveEndpoints)
	must(e.client(t).ListFlavors(ctx, kakaocloud.FlavorFilter{}))(t)
	if n := e.emu.CallCount(emulator.OpResolveEndpoints); n != before {
		t.Errorf("a client with every endpoint given asked for endpoints %d times", n-before)
	}

	// Without an answer the hosts derived from the region stay.
	e.emu.InjectFault(emulator.OpResolveEndpoints, emulator.Fault{Status: http.StatusForbidden, Count: 10})
	c = e.client(t, func(cfg *kakaocloud.Config) {
		cfg.Endpoints = map[string]string{kakaocloud.ServiceIAM: all[kakaocloud.ServiceIAM], kakaocloud.ServiceConfig: all[kakaocloud.ServiceConfig]}
	})
	got, err := c.ResolveEndpoints(ctx)
	if !errors.Is(err, kakaocloud.ErrForbidden) || got[kakaocloud.ServiceBCS] != "https://bcs.kr-central-2.kakaocloud.com" {
		t.Errorf("ResolveEndpoints = %v, %v; want Forbidden and the derived hosts", got, err)
	}
}
