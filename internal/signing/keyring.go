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

package signing

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// MinKeyLength is the shortest accepted key: HMAC-SHA256 is only as strong as its key, and
// 32 bytes match the hash's output size.
const MinKeyLength = 32

// keyIDPattern keeps key ids short and free of spaces so that a marker with the longest
// cluster id still fits the 100-character description.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,16}$`)

// Keyring holds the signing keys: the active one signs new markers, every one verifies. Key
// material never leaves it: String, GoString, Format and MarshalLog print key ids only, and
// no error carries a key.
type Keyring struct {
	activeKeyID string
	keys        map[string][]byte
}

// NewKeyring checks and copies the keys (so later changes to the caller's map or slices do
// not reach the keyring). It reports every problem at once, so that an operator fixing the
// Secret does not have to go round several times.
func NewKeyring(activeKeyID string, keys map[string][]byte) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("the keyring has no keys; at least one is required")
	}
	ring := &Keyring{activeKeyID: activeKeyID, keys: make(map[string][]byte, len(keys))}
	var problems []error
	if _, ok := keys[activeKeyID]; !ok {
		problems = append(problems, fmt.Errorf("active key id %q is not one of the keys (%s)",
			activeKeyID, strings.Join(sortedIDs(keys), ", ")))
	}
	for _, id := range sortedIDs(keys) {
		secret := keys[id]
		if !keyIDPattern.MatchString(id) {
			problems = append(problems, fmt.Errorf("key id %q is invalid: it must be 1 to 16 letters, digits, '_' or '-'", id))
		}
		if len(secret) < MinKeyLength {
			problems = append(problems, fmt.Errorf("key %q is %d bytes long; keys must be at least %d bytes", id, len(secret), MinKeyLength))
		}
		ring.keys[id] = slices.Clone(secret)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return ring, nil
}

// ActiveKeyID returns the id of the key that signs new markers.
func (k *Keyring) ActiveKeyID() string { return k.activeKeyID }

// KeyIDs returns the ids of all keys, sorted.
func (k *Keyring) KeyIDs() []string { return sortedIDs(k.keys) }

// Keyring returns k itself, so that a fixed keyring serves where a KeyringSource is expected.
func (k *Keyring) Keyring(context.Context) (*Keyring, error) { return k, nil }

// String prints the key ids, never the keys. It has a value receiver so that printing a
// Keyring value (not only a pointer) is covered too.
func (k Keyring) String() string {
	return fmt.Sprintf("Keyring{activeKeyID: %s, keyIDs: [%s]}", k.activeKeyID, strings.Join(k.KeyIDs(), " "))
}

// GoString keeps %#v from printing the keys.
func (k Keyring) GoString() string { return k.String() }

// Format covers the verbs that would otherwise bypass String and print the struct's fields,
// key bytes included (%d, %x on a struct, %+v, ...).
func (k Keyring) Format(f fmt.State, _ rune) { _, _ = fmt.Fprint(f, k.String()) }

// MarshalLog keeps structured loggers (logr) from printing the keys. A struct rather than a
// map keeps the fields in a stable order.
func (k Keyring) MarshalLog() any {
	return struct {
		ActiveKeyID string   `json:"activeKeyID"`
		KeyIDs      []string `json:"keyIDs"`
	}{k.activeKeyID, k.KeyIDs()}
}

// KeyringSource provides the current keyring. It is asked whenever the keys are needed, so a
// source reading a Secret picks up a rotation without a restart.
type KeyringSource interface {
	Keyring(ctx context.Context) (*Keyring, error)
}

func sortedIDs(keys map[string][]byte) []string {
	return slices.Sorted(maps.Keys(keys))
}

// deriveDomain separates derived secrets from markers and from each other's purposes.
const deriveDomain = "karpenter-provider-kakaocloud derive v1"

// Derive returns a secret of 32 bytes bound to purpose and data under the active key: the
// same inputs give the same bytes for as long as the active key stays, and nobody without the
// key can compute them. It lets the controller recompute a secret it handed out (a NodeClaim's
// bootstrap token) instead of storing or reading it back.
func (k *Keyring) Derive(purpose, data string) []byte {
	h := hmac.New(sha256.New, k.keys[k.activeKeyID])
	for _, field := range []string{deriveDomain, purpose, data} {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(field))))
		h.Write([]byte(field))
	}
	return h.Sum(nil)
}
