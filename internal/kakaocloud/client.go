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
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// DefaultRegion is KakaoCloud's region with public API hosts.
const DefaultRegion = "kr-central-2"

// Config configures a Client.
type Config struct {
	// Region picks the hosts <service>.<region>.kakaocloud.com used while the configuration
	// service cannot tell the endpoints; IAM and the configuration service are the same for
	// every region.
	Region string
	// Endpoints overrides the base URL of a service (keys are the Service* names), for other
	// realms, proxies and the emulator. Each must be https, but to a loopback host.
	Endpoints map[string]string
	// Credentials is the IAM access key to issue tokens with.
	Credentials CredentialsProvider
	// HTTPClient sends the requests; http.DefaultClient's transport with a 30 s timeout when nil.
	HTTPClient *http.Client
	// Retry bounds the retries of failed calls.
	Retry RetryPolicy
	// CallTimeout bounds one call, its retries and the token it may issue first included;
	// DefaultCallTimeout when 0. A call that has no answer by then fails as unanswered, which
	// for a create leaves open whether the VM was made.
	CallTimeout time.Duration
	// MaxRetryAfter caps the server's Retry-After: an answer that asks for longer is read as
	// asking for this long. DefaultMaxRetryAfter when 0.
	MaxRetryAfter time.Duration
	// RateLimit is each service's own limit on the calls sent to it; DefaultRateLimit when
	// its QPS is 0.
	RateLimit RateLimit
	// PageSize is the limit asked for per page of list calls.
	PageSize int
	// Clock is the clock for token expiry; the real clock when nil.
	Clock clock.PassiveClock
}

// RetryPolicy bounds retries: exponential backoff from BaseDelay, doubled per attempt up to
// MaxDelay, with full jitter; a server's Retry-After wins when it is longer.
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// DefaultRetryPolicy tries a call up to 5 times over about 3 s, longer when the server asks,
// within the call's deadline.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 5, BaseDelay: 200 * time.Millisecond, MaxDelay: 10 * time.Second}

// RateLimit is a token bucket: QPS calls a second on average, up to Burst at once.
type RateLimit struct {
	QPS   float64
	Burst int
}

// Defaults of the call bounds. A call is bounded by DefaultCallTimeout whatever the server
// does, so that no worker waits on KakaoCloud for minutes. A Retry-After is honoured up to
// DefaultMaxRetryAfter: a throttled call is tried again within its deadline when the wait fits
// in what the call has left, and otherwise fails with the (capped) wait, for its caller to try
// again later while its worker serves other work.
const (
	DefaultCallTimeout   = 30 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// DefaultRateLimit is what the client sends to each service at most. KakaoCloud publishes no
// limit (docs/assumptions.md, A5); a scale-out of a thousand pods launches about 150 VMs with
// three compute calls each, which this lets through in about three seconds, as fast as the
// cloud's answers come, while a loop gone wrong is held to it.
var DefaultRateLimit = RateLimit{QPS: 100, Burst: 200}

// Client calls the KakaoCloud APIs. It is safe for concurrent use.
type Client struct {
	endpoints     *endpoints
	http          *http.Client
	retry         RetryPolicy
	callTimeout   time.Duration
	maxRetryAfter time.Duration
	rateLimit     RateLimit
	pageSize      int
	tokens        *tokenSource
	// limiters are the services' rate limiters, one each, shared by every call to it; made
	// by New and only read afterwards.
	limiters map[string]*rate.Limiter
}

// New returns a client for the configuration.
func New(cfg Config) (*Client, error) {
	if cfg.Credentials == nil {
		return nil, errors.New("kakaocloud: no credentials provider")
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	endpoints, err := newEndpoints(cfg.Region, cfg.Endpoints)
	if err != nil {
		return nil, err
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Retry.MaxAttempts == 0 {
		cfg.Retry = DefaultRetryPolicy
	}
	cfg.CallTimeout = cmp.Or(cfg.CallTimeout, DefaultCallTimeout)
	cfg.MaxRetryAfter = cmp.Or(cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	if cfg.RateLimit.QPS == 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	if cfg.CallTimeout < 0 || cfg.MaxRetryAfter < 0 || cfg.RateLimit.QPS < 0 || cfg.RateLimit.Burst < 1 {
		return nil, fmt.Errorf("kakaocloud: call timeout %s, max retry-after %s, rate %v/s and burst %d must be positive",
			cfg.CallTimeout, cfg.MaxRetryAfter, cfg.RateLimit.QPS, cfg.RateLimit.Burst)
	}
	if cfg.PageSize == 0 {
		cfg.PageSize = 100
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	endpoints.now = cfg.Clock.Now
	c := &Client{endpoints: endpoints, http: cfg.HTTPClient, retry: cfg.Retry, pageSize: cfg.PageSize,
		callTimeout: cfg.CallTimeout, maxRetryAfter: cfg.MaxRetryAfter, rateLimit: cfg.RateLimit, limiters: map[string]*rate.Limiter{}}
	for _, service := range Services {
		c.limiters[service] = rate.NewLimiter(rate.Limit(cfg.RateLimit.QPS), cfg.RateLimit.Burst)
	}
	c.tokens = newTokenSource(c, cfg.Credentials, cfg.Clock.Now)
	return c, nil
}

// call is one API operation.
type call struct {
	service   string
	operation string
	method    string
	path      string
	query     url.Values
	body      any
	// idempotent calls are retried on server errors and transport failures; others only on
	// 429, which the server sends before doing anything.
	idempotent bool
	// anonymous calls carry no token (issuing one).
	anonymous bool
}

// answer is a 2xx response.
type answer struct {
	header http.Header
	body   []byte
}

// do runs a call: authenticate, send, retry what is safe to retry, and decode the answer
// into out (when not nil).
func (c *Client) do(ctx context.Context, cl call, out any) (http.Header, error) {
	base, err := c.endpoints.base(ctx, c, cl.service)
	if err != nil {
		return nil, err
	}
	return c.doAt(ctx, base, cl, out)
}

// doAt is do with the service's base URL given. The call, its retries and the token it issues
// first are bounded by the call timeout.
func (c *Client) doAt(ctx context.Context, base string, cl call, out any) (http.Header, error) {
	// The transport names the cause, so an unanswered call says which deadline it met.
	ctx, cancel := context.WithTimeoutCause(ctx, c.callTimeout,
		fmt.Errorf("no answer within the call timeout of %s: %w", c.callTimeout, context.DeadlineExceeded))
	defer cancel()
	reissued := false
	for attempt := 1; ; attempt++ {
		token := ""
		if !cl.anonymous {
			var err error
			if token, err = c.tokens.token(ctx); err != nil {
				return nil, err
			}
		}
		if err := c.limiters[cl.service].Wait(ctx); err != nil {
			// Nothing was sent: a create refused here made no VM.
			return nil, fmt.Errorf("kakaocloud %s.%s: the client's rate limit of %v calls a second to %s leaves no room before the call's deadline: %w",
				cl.service, cl.operation, c.rateLimit.QPS, cl.service, ErrRateLimited)
		}
		ans, err := c.send(ctx, base, cl, token)
		if err == nil {
			if out != nil && len(ans.body) > 0 {
				if err := json.Unmarshal(ans.body, out); err != nil {
					return nil, fmt.Errorf("kakaocloud %s.%s: decoding the answer: %w", cl.service, cl.operation, err)
				}
			}
			return ans.header, nil
		}
		// An expired or revoked token: issue a new one once, without counting an attempt.
		if errors.Is(err, ErrUnauthorized) && !cl.anonymous && !reissued {
			reissued = true
			c.tokens.invalidate(token)
			attempt--
			continue
		}
		delay, again := c.retryDelay(ctx, cl, attempt, err)
		if !again {
			return nil, err
		}
		if err := sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("kakaocloud %s.%s: %w", cl.service, cl.operation, err)
		}
	}
}

// retryDelay returns how long to wait before trying the failed call again, and whether to. A
// wait longer than the call has left is its caller's to take: the error carries it
// (APIError.RetryAfter), and the caller's worker is free meanwhile.
func (c *Client) retryDelay(ctx context.Context, cl call, attempt int, err error) (time.Duration, bool) {
	if !c.retryable(cl, err) || attempt >= c.retry.MaxAttempts {
		return 0, false
	}
	delay := c.backoff(attempt, err)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
		return 0, false
	}
	return delay, true
}

func (c *Client) retryable(cl call, err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	switch KindOf(err) {
	case ErrRateLimited:
		return true
	case ErrServer:
		return cl.idempotent
	case "":
		// No answer: the request may or may not have reached the server.
		return cl.idempotent
	}
	return false
}

func (c *Client) backoff(attempt int, err error) time.Duration {
	ceiling := c.retry.BaseDelay << (attempt - 1)
	if ceiling > c.retry.MaxDelay || ceiling <= 0 {
		ceiling = c.retry.MaxDelay
	}
	delay := time.Duration(rand.Int64N(int64(ceiling) + 1))
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > delay {
		delay = apiErr.RetryAfter
	}
	return delay
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("waiting %s to try again: %w", d, context.Cause(ctx))
	case <-t.C:
		return nil
	}
}

// send makes one HTTP attempt.
func (c *Client) send(ctx context.Context, base string, cl call, token string) (answer, error) {
	u := base + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	var body io.Reader
	if cl.body != nil {
		raw, err := json.Marshal(cl.body)
		if err != nil {
			return answer{}, fmt.Errorf("kakaocloud %s.%s: encoding the request: %w", cl.service, cl.operation, err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, u, body)
	if err != nil {
		return answer{}, fmt.Errorf("kakaocloud %s.%s: %w", cl.service, cl.operation, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(HeaderAPIVersion, APIVersion)
	req.Header.Set("User-Agent", UserAgent)
	if token != "" {
		req.Header.Set(HeaderAuthToken, token)
	}

	start := time.Now()
	resp, err := c.http.Do(req)
	apiRequestDuration.WithLabelValues(cl.service, cl.operation).Observe(time.Since(start).Seconds())
	if err != nil {
		apiRequestsTotal.WithLabelValues(cl.service, cl.operation, "error").Inc()
		return answer{}, fmt.Errorf("kakaocloud %s.%s: %w", cl.service, cl.operation, err)
	}
	defer func() { _ = resp.Body.Close() }()
	apiRequestsTotal.WithLabelValues(cl.service, cl.operation, strconv.Itoa(resp.StatusCode)).Inc()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return answer{}, fmt.Errorf("kakaocloud %s.%s: reading the answer: %w", cl.service, cl.operation, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return answer{header: resp.Header, body: raw}, nil
	}
	return answer{}, apiError(cl, resp, raw, c.maxRetryAfter)
}

func apiError(cl call, resp *http.Response, raw []byte, maxRetryAfter time.Duration) *APIError {
	e := &APIError{Service: cl.service, Operation: cl.operation, StatusCode: resp.StatusCode}
	var body ErrorResponse
	if json.Unmarshal(raw, &body) == nil {
		e.Code, e.Message = string(body.Error.Code), body.Error.Message
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw[:min(len(raw), 256)]))
	}
	e.Kind = classify(resp.StatusCode, e.Code, e.Message)
	if s := resp.Header.Get(HeaderRetryAfter); s != "" {
		if secs, err := strconv.Atoi(s); err == nil && secs >= 0 {
			e.RetryAfter = time.Duration(secs) * time.Second
		} else if at, err := http.ParseTime(s); err == nil {
			e.RetryAfter = time.Until(at)
		}
		e.RetryAfter = min(e.RetryAfter, maxRetryAfter)
	}
	return e
}
