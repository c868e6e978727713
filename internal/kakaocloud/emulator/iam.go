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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	kakaocloud "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// methodApplicationCredential is the only authentication method KakaoCloud access keys use.
const methodApplicationCredential = "application_credential"

// keystoneTimeFormat is how Keystone writes a token's times: UTC, with microseconds.
const keystoneTimeFormat = "2006-01-02T15:04:05.000000Z"

// emulatorProject is the project every token is scoped to: an access key is issued in one.
var emulatorProject = kakaocloud.IDAndName{ID: stableHexID("project", "karpenter-emulator"), Name: "karpenter-emulator"}

// issuedToken is what the emulator remembers of a token: who it was issued to, for
// revocation when the credential goes, and its validity window.
type issuedToken struct {
	credentialID string
	issuedAt     time.Time
	expiresAt    time.Time
}

func (t issuedToken) response() kakaocloud.TokenResponse {
	return kakaocloud.TokenResponse{Token: kakaocloud.TokenInfo{
		ExpiresAt: t.expiresAt,
		IssuedAt:  t.issuedAt.Format(keystoneTimeFormat),
		Methods:   []string{methodApplicationCredential},
		Project:   &kakaocloud.IDAndName{ID: emulatorProject.ID, Name: emulatorProject.Name},
	}}
}

// issueToken serves POST /identity/v3/auth/tokens: 201 with the token in X-Subject-Token.
func (e *Emulator) issueToken(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var request kakaocloud.TokenRequest
	if err := decodeBody(w, r, &request); err != nil {
		return 0, nil, err
	}
	identity := request.Auth.Identity
	if !slices.Contains(identity.Methods, methodApplicationCredential) {
		return 0, nil, badRequest("auth.identity.methods %q must include %q", identity.Methods, methodApplicationCredential)
	}
	credential := identity.ApplicationCredential
	if credential.ID == "" || credential.Secret == "" {
		return 0, nil, badRequest("auth.identity.application_credential needs both id and secret")
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	secret, known := e.credentials[credential.ID]
	switch {
	case !known:
		return 0, nil, newError(http.StatusUnauthorized, "application credential %q does not exist", credential.ID)
	case secret != credential.Secret:
		return 0, nil, newError(http.StatusUnauthorized, "wrong secret for application credential %q", credential.ID)
	}
	now := e.now()
	token := issuedToken{credentialID: credential.ID, issuedAt: now, expiresAt: now.Add(e.tokenTTL)}
	value := newTokenValue()
	e.tokens[value] = token
	w.Header().Set(kakaocloud.HeaderSubjectToken, value)
	return http.StatusCreated, token.response(), nil
}

// validateToken serves GET /identity/v3/auth/tokens: 200 with the subject token's details if
// it is valid, else 404, as Keystone answers.
func (e *Emulator) validateToken(_ http.ResponseWriter, r *http.Request) (int, any, error) {
	authToken := r.Header.Get(kakaocloud.HeaderAuthToken)
	if authToken == "" {
		return 0, nil, newError(http.StatusUnauthorized, "the %s header is required", kakaocloud.HeaderAuthToken)
	}
	subject := r.Header.Get(kakaocloud.HeaderSubjectToken)
	if subject == "" {
		return 0, nil, badRequest("the %s header is required", kakaocloud.HeaderSubjectToken)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// The subject is checked first: a client validating its own expired token (the same
	// value in both headers) learns that it is not valid, not that it is unauthorized.
	token, err := e.validTokenLocked(subject)
	if err != nil {
		return 0, nil, notFound("the subject token is not valid: %v", err)
	}
	if _, err := e.validTokenLocked(authToken); err != nil {
		return 0, nil, newError(http.StatusUnauthorized, "the %s token is not valid: %v", kakaocloud.HeaderAuthToken, err)
	}
	return http.StatusOK, token.response(), nil
}

// authenticate checks the X-Auth-Token every service but IAM requires.
func (e *Emulator) authenticate(value string) error {
	if value == "" {
		return newError(http.StatusUnauthorized, "the %s header is required", kakaocloud.HeaderAuthToken)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.validTokenLocked(value); err != nil {
		return newError(http.StatusUnauthorized, "the %s token is not valid: %v", kakaocloud.HeaderAuthToken, err)
	}
	return nil
}

func (e *Emulator) validTokenLocked(value string) (issuedToken, error) {
	token, ok := e.tokens[value]
	if !ok {
		return issuedToken{}, errors.New("it was never issued or has been revoked")
	}
	if !e.now().Before(token.expiresAt) {
		return issuedToken{}, fmt.Errorf("it expired at %s", token.expiresAt.Format(time.RFC3339))
	}
	return token, nil
}

// newTokenValue returns an opaque, unguessable token.
func newTokenValue() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return "emu" + hex.EncodeToString(b)
}

// ExpireTokens invalidates every token issued so far; the next calls with them get 401, as
// when KakaoCloud expires a token early (roles changed, key deleted).
func (e *Emulator) ExpireTokens() {
	e.mu.Lock()
	defer e.mu.Unlock()
	clear(e.tokens)
}

// AddCredential adds an access key, or changes the secret of an existing one (its tokens stay
// valid).
func (e *Emulator) AddCredential(id, secret string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.credentials[id] = secret
}

// RemoveCredential deletes an access key and revokes the tokens issued with it.
func (e *Emulator) RemoveCredential(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.credentials, id)
	for value, token := range e.tokens {
		if token.credentialID == id {
			delete(e.tokens, value)
		}
	}
}
