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

package kakaocloud

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// endpointRetry is how long the client uses the hosts it derived after the configuration
// service could not tell it the endpoints, before it asks again.
const endpointRetry = 5 * time.Minute

// endpoints are the base URLs of the services. They start as the hosts derived from the
// region, and the configured overrides; the first call to a service that has no override asks
// the configuration service for the endpoints of the caller's token, as KakaoCloud's own tools
// do, and its answer replaces the derived hosts. An override always wins: it is how a proxy,
// another realm or the emulator is reached.
type endpoints struct {
	now func() time.Time
	// lock is a one-slot semaphore, so that callers waiting for a resolution in flight still
	// honour their context.
	lock chan struct{}
	// fixedBases are IAM's and the configuration service's, set by New and never changed, so
	// read without the lock; bases are the others', read and changed under it.
	fixedBases map[string]string
	bases      map[string]string
	overridden map[string]bool
	resolved   bool
	// failedAt is when the latest resolution failed; zero when none has.
	failedAt time.Time
}

// configurationHost is the configuration service the official Terraform provider asks for the
// endpoints, whatever its region: the SDK's default, in kr-central-2. The token that asks tells
// it the project, hence the region and realm, whose endpoints it answers.
const configurationHost = "https://heimdall.kr-central-2.kakaocloud.com"

func newEndpoints(region string, overrides map[string]string) (*endpoints, error) {
	e := &endpoints{now: time.Now, lock: make(chan struct{}, 1), fixedBases: map[string]string{}, bases: map[string]string{}, overridden: map[string]bool{}}
	for service := range overrides {
		if !slices.Contains(Services, service) {
			return nil, fmt.Errorf("kakaocloud: endpoint override for %q, which is not a service (%s)", service, strings.Join(Services, ", "))
		}
	}
	for _, service := range Services {
		base := fmt.Sprintf("https://%s.%s.kakaocloud.com", service, region)
		switch service {
		case ServiceIAM:
			base = "https://iam.kakaocloud.com"
		case ServiceConfig:
			base = configurationHost
		}
		if override := overrides[service]; override != "" {
			base, e.overridden[service] = override, true
		}
		if err := checkEndpoint(service, base); err != nil {
			return nil, fmt.Errorf("kakaocloud: %w", err)
		}
		if fixed(service) {
			e.fixedBases[service] = strings.TrimSuffix(base, "/")
		} else {
			e.bases[service] = strings.TrimSuffix(base, "/")
		}
	}
	return e, nil
}

// checkEndpoint refuses a base URL that a token or an access key would cross a network to in
// clear text: every endpoint is https, but for a loopback host (the emulator, a local proxy),
// whose traffic never leaves the machine.
func checkEndpoint(service, base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("endpoint of %s: %w", service, err)
	}
	if u.Host == "" {
		return fmt.Errorf("endpoint of %s %q: no host; give a URL such as https://%s.kr-central-2.kakaocloud.com", service, base, service)
	}
	if u.Scheme == "https" || u.Scheme == "http" && LoopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("endpoint of %s %q: the scheme must be https (http only to a loopback host: 127.0.0.0/8, ::1 or localhost)", service, base)
}

// LoopbackHost reports whether host is localhost or a loopback address (127.0.0.0/8, ::1):
// traffic to it never leaves the machine.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.IsLoopback()
}

// base returns the base URL of service for a call, resolving the endpoints first when the
// call needs a host that was only derived. IAM and the configuration service are needed to
// resolve, so they are never resolved: their hosts are fixed by New, and read without the
// lock, which a resolution holds while it issues a token. A failed resolution leaves the
// derived host in use: the call's own error says more than the resolution's.
func (e *endpoints) base(ctx context.Context, c *Client, service string) (string, error) {
	if fixed(service) {
		return e.fixedBases[service], nil
	}
	if err := e.acquire(ctx); err != nil {
		return "", err
	}
	defer e.release()
	if !e.overridden[service] && e.dueLocked() {
		_ = e.resolveLocked(ctx, c)
	}
	return e.bases[service], nil
}

// resolve asks the configuration service for the endpoints now and returns every service's
// base URL as calls will use them.
func (e *endpoints) resolve(ctx context.Context, c *Client) (map[string]string, error) {
	if err := e.acquire(ctx); err != nil {
		return nil, err
	}
	defer e.release()
	err := e.resolveLocked(ctx, c)
	return e.allLocked(), err
}

func (e *endpoints) acquire(ctx context.Context) error {
	select {
	case e.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the service endpoints: %w", context.Cause(ctx))
	}
}

func (e *endpoints) release() { <-e.lock }

// dueLocked reports whether the endpoints are still to be resolved: never resolved, and no
// failure within endpointRetry.
func (e *endpoints) dueLocked() bool {
	return !e.resolved && (e.failedAt.IsZero() || !e.now().Before(e.failedAt.Add(endpointRetry)))
}

// resolveLocked asks the configuration service for the endpoints and takes those of the
// services without an override; the lock is held. On failure, an answer with an endpoint
// checkEndpoint refuses among them, the derived hosts stay.
func (e *endpoints) resolveLocked(ctx context.Context, c *Client) error {
	var resp ClientEndpointResponse
	_, err := c.doAt(ctx, e.fixedBases[ServiceConfig], call{
		service: ServiceConfig, operation: "ResolveClientEndpoint", method: http.MethodGet, path: PathClientEndpoints, idempotent: true,
	}, &resp)
	if err == nil && resp.Data == nil {
		err = fmt.Errorf("kakaocloud config.ResolveClientEndpoint: the answer has no endpoints (success %t: %s)", resp.Success, resp.Message)
	}
	if err != nil {
		e.failedAt = e.now()
		return err
	}
	// An answer with one endpoint that is not https is refused whole: it would have calls carry
	// the token in clear text, and the answer is not one to trust in part.
	taken := map[string]string{}
	for service, base := range resp.Data.ServiceEndpoints {
		if _, known := e.bases[service]; !known || e.overridden[service] {
			continue
		}
		if err := checkEndpoint(service, base); err != nil {
			e.failedAt = e.now()
			return fmt.Errorf("kakaocloud config.ResolveClientEndpoint: the answer's %w", err)
		}
		taken[service] = strings.TrimSuffix(base, "/")
	}
	maps.Copy(e.bases, taken)
	e.resolved, e.failedAt = true, time.Time{}
	return nil
}

// allLocked is every service's base URL; the lock is held.
func (e *endpoints) allLocked() map[string]string {
	all := maps.Clone(e.bases)
	maps.Copy(all, e.fixedBases)
	return all
}

// fixed reports whether service's host is fixed by New: the configuration service itself, and
// IAM. The answer names an IAM endpoint too, but the only IAM call here is issuing the token,
// and the resolution needs a token first; the official Terraform provider's token manager
// likewise keeps issuing at the IAM host it was made with (the SDK's default or the override),
// and uses the answer's only for its other IAM calls, which this client does not make.
func fixed(service string) bool { return service == ServiceIAM || service == ServiceConfig }

// ResolveEndpoints asks the configuration service for the endpoints of the credentials'
// token now, and returns the base URL of every service as calls will use them: resolved,
// unless overridden. On an error the hosts derived from the region stay in use.
func (c *Client) ResolveEndpoints(ctx context.Context) (map[string]string, error) {
	return c.endpoints.resolve(ctx, c)
}

// Authenticate issues a token with the credentials, unless a valid one is at hand: whether
// KakaoCloud accepts them.
func (c *Client) Authenticate(ctx context.Context) error {
	_, err := c.tokens.token(ctx)
	return err
}
