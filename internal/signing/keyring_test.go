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

package signing_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// Key material that the printing tests look for; each is at least 32 bytes.
var (
	keyOld = []byte("SECRET-MATERIAL-old-0123456789abcdef")
	keyNew = []byte("SECRET-MATERIAL-new-0123456789abcdef")
)

func mustKeyring(t testing.TB, active string, keys map[string][]byte) *signing.Keyring {
	t.Helper()
	ring, err := signing.NewKeyring(active, keys)
	if err != nil {
		t.Fatalf("NewKeyring(%q): %v", active, err)
	}
	return ring
}

func TestNewKeyring(t *testing.T) {
	for _, tc := range []struct {
		name   string
		active string
		keys   map[string][]byte
		want   []string // substrings of the error; none means success
	}{
		{name: "one key", active: "k1", keys: map[string][]byte{"k1": keyOld}},
		{name: "two keys, longest id", active: "abcdefghij_-1234", keys: map[string][]byte{"abcdefghij_-1234": keyNew, "k1": keyOld}},
		{name: "no keys", active: "k1", keys: nil,
			want: []string{"the keyring has no keys; at least one is required"}},
		{name: "active id not among the keys", active: "k3", keys: map[string][]byte{"k1": keyOld, "k2": keyNew},
			want: []string{`active key id "k3" is not one of the keys (k1, k2)`}},
		{name: "empty active id", active: "", keys: map[string][]byte{"k1": keyOld},
			want: []string{`active key id "" is not one of the keys (k1)`}},
		{name: "key id with a space", active: "bad id", keys: map[string][]byte{"bad id": keyOld},
			want: []string{`key id "bad id" is invalid: it must be 1 to 16 letters, digits, '_' or '-'`}},
		{name: "key id with a dot", active: "k1", keys: map[string][]byte{"k1": keyOld, "v1.2": keyNew},
			want: []string{`key id "v1.2" is invalid`}},
		{name: "key id of 17 characters", active: "k1", keys: map[string][]byte{"k1": keyOld, "abcdefghijklmnopq": keyNew},
			want: []string{`key id "abcdefghijklmnopq" is invalid`}},
		{name: "empty key id", active: "k1", keys: map[string][]byte{"k1": keyOld, "": keyNew},
			want: []string{`key id "" is invalid`}},
		{name: "short key", active: "k1", keys: map[string][]byte{"k1": keyOld[:31]},
			want: []string{`key "k1" is 31 bytes long; keys must be at least 32 bytes`}},
		{name: "empty key", active: "k1", keys: map[string][]byte{"k1": keyOld, "k2": nil},
			want: []string{`key "k2" is 0 bytes long; keys must be at least 32 bytes`}},
		{name: "every problem reported", active: "k9", keys: map[string][]byte{"bad!": keyOld, "k2": []byte("short")},
			want: []string{`active key id "k9" is not one of the keys (bad!, k2)`, `key id "bad!" is invalid`, `key "k2" is 5 bytes long`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ring, err := signing.NewKeyring(tc.active, tc.keys)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if ring.ActiveKeyID() != tc.active {
					t.Errorf("ActiveKeyID() = %q, want %q", ring.ActiveKeyID(), tc.active)
				}
				return
			}
			if err == nil {
				t.Fatalf("got a keyring %v, want an error", ring)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

func TestKeyIDsAreSorted(t *testing.T) {
	ring := mustKeyring(t, "b", map[string][]byte{"c": keyOld, "a": keyNew, "b": keyOld})
	if got := fmt.Sprint(ring.KeyIDs()); got != "[a b c]" {
		t.Errorf("KeyIDs() = %s, want [a b c]", got)
	}
}

func TestKeyringCopiesTheKeys(t *testing.T) {
	key := bytes.Clone(keyOld)
	keys := map[string][]byte{"k1": key}
	ring := mustKeyring(t, "k1", keys)
	subject := signing.Subject{VMName: "vm", ClusterID: "c", NodeClaim: "vm"}
	description, err := ring.Sign(subject)
	if err != nil {
		t.Fatal(err)
	}
	key[0] ^= 0xff
	keys["k2"] = keyNew
	if _, err := ring.Verify(description, subject); err != nil {
		t.Errorf("changing the caller's key afterwards changed the keyring: %v", err)
	}
	if got := ring.KeyIDs(); len(got) != 1 {
		t.Errorf("adding to the caller's map afterwards changed the keyring: %v", got)
	}
}

func TestKeyringIsItsOwnSource(t *testing.T) {
	ring := mustKeyring(t, "k1", map[string][]byte{"k1": keyOld})
	var source signing.KeyringSource = ring
	got, err := source.Keyring(context.Background())
	if err != nil || got != ring {
		t.Errorf("Keyring() = %v, %v; want the keyring itself", got, err)
	}
}

func TestKeyMaterialIsNeverPrinted(t *testing.T) {
	ring := mustKeyring(t, "new", map[string][]byte{"old": keyOld, "new": keyNew})
	var logged bytes.Buffer
	log := funcr.NewJSON(func(obj string) { logged.WriteString(obj) }, funcr.Options{})
	log.Info("keyring loaded", "keyring", ring, "keyringValue", *ring)

	outputs := map[string]string{"logr JSON": logged.String()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		outputs[verb+" of *Keyring"] = fmt.Sprintf(verb, ring)
		outputs[verb+" of Keyring"] = fmt.Sprintf(verb, *ring)
	}
	outputs["String()"] = ring.String()
	outputs["GoString()"] = ring.GoString()
	outputs["Sprint of a struct holding it"] = fmt.Sprintf("%+v", struct{ Ring *signing.Keyring }{ring})

	forbidden := []string{string(keyOld), string(keyNew), fmt.Sprintf("%x", keyOld), fmt.Sprint(keyOld), "SECRET-MATERIAL"} //nolint:staticcheck // every way of printing is what is tested
	for name, out := range outputs {
		for _, secret := range forbidden {
			if strings.Contains(out, secret) {
				t.Errorf("%s printed key material: %s", name, out)
			}
		}
		if !strings.Contains(out, "new") {
			t.Errorf("%s does not name the key ids: %s", name, out)
		}
	}
	if want := "Keyring{activeKeyID: new, keyIDs: [new old]}"; ring.String() != want {
		t.Errorf("String() = %q, want %q", ring.String(), want)
	}
	if !strings.Contains(logged.String(), `"keyring":{"activeKeyID":"new","keyIDs":["new","old"]}`) {
		t.Errorf("the log does not show the key ids: %s", logged.String())
	}

	_, err := signing.NewKeyring("k1", map[string][]byte{"k1": keyOld[:20]})
	if err == nil || strings.Contains(err.Error(), string(keyOld[:20])) {
		t.Errorf("the error for a short key printed it: %v", err)
	}
}
