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
	"net/http"
	"time"
)

// tokenRefreshMargin is how long before its expiry a token stops being reused, so that no
// call starts with a token about to expire.
const tokenRefreshMargin = 5 * time.Minute

// tokenSource issues IAM tokens from the access key and reuses each until shortly before it
// expires, or until the access key changes.
type tokenSource struct {
	client      *Client
	credentials CredentialsProvider
	now         func() time.Time

	// lock is a one-slot semaphore rather than a mutex so that callers waiting for an issue in
	// flight still honour their context.
	lock      chan struct{}
	value     string
	expiresAt time.Time
	issuedFor Credentials
}

func newTokenSource(c *Client, creds CredentialsProvider, now func() time.Time) *tokenSource {
	return &tokenSource{client: c, credentials: creds, now: now, lock: make(chan struct{}, 1)}
}

// token returns a valid token, issuing one when there is none, it is about to expire, or the
// access key has changed since it was issued.
func (t *tokenSource) token(ctx context.Context) (string, error) {
	creds, err := t.credentials.Credentials(ctx)
	if err != nil {
		return "", err
	}
	select {
	case t.lock <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for the token: %w", context.Cause(ctx))
	}
	defer func() { <-t.lock }()

	if t.value != "" && creds == t.issuedFor && t.now().Before(t.expiresAt.Add(-tokenRefreshMargin)) {
		return t.value, nil
	}
	value, expiresAt, err := t.issue(ctx, creds)
	if err != nil {
		return "", err
	}
	t.value, t.expiresAt, t.issuedFor = value, expiresAt, creds
	return value, nil
}

// invalidate drops a token the server refused, unless another caller already replaced it.
func (t *tokenSource) invalidate(token string) {
	t.lock <- struct{}{}
	defer func() { <-t.lock }()
	if t.value == token {
		t.value = ""
	}
}

// issue asks IAM for a token. Issuing has no side effect worth guarding, so it is retried
// like any idempotent call.
func (t *tokenSource) issue(ctx context.Context, creds Credentials) (string, time.Time, error) {
	req := TokenRequest{Auth: TokenAuth{Identity: TokenIdentity{
		Methods:               []string{"application_credential"},
		ApplicationCredential: ApplicationCredential{ID: creds.AccessKeyID, Secret: creds.SecretAccessKey},
	}}}
	var resp TokenResponse
	header, err := t.client.do(ctx, call{
		service: ServiceIAM, operation: "IssueToken", method: http.MethodPost, path: PathTokens,
		body: req, idempotent: true, anonymous: true,
	}, &resp)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("issuing a KakaoCloud token with access key %s: %w", creds.AccessKeyID, err)
	}
	value := header.Get(HeaderSubjectToken)
	if value == "" {
		return "", time.Time{}, fmt.Errorf("issuing a KakaoCloud token with access key %s: the answer has no %s header", creds.AccessKeyID, HeaderSubjectToken)
	}
	expiresAt := resp.Token.ExpiresAt
	if expiresAt.IsZero() {
		// KakaoCloud documents a 12 h lifetime; without an expiry, assume the least useful
		// one that still avoids issuing per call.
		expiresAt = t.now().Add(tokenRefreshMargin + time.Minute)
	}
	return value, expiresAt, nil
}
