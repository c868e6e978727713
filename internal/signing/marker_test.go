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
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

var subject = signing.Subject{VMName: "default-x7k2p", ClusterID: "prod-seoul.1", NodeClaim: "default-x7k2p"}

func mustSign(t testing.TB, ring *signing.Keyring, s signing.Subject) string {
	t.Helper()
	description, err := ring.Sign(s)
	if err != nil {
		t.Fatalf("Sign(%+v): %v", s, err)
	}
	return description
}

func TestSignThenVerify(t *testing.T) {
	ring := mustKeyring(t, "k1", map[string][]byte{"k1": keyOld})
	description := mustSign(t, ring, subject)

	if !strings.HasPrefix(description, "karpenter v1 c=prod-seoul.1 k=k1 s=") {
		t.Errorf("description %q does not have the marker layout", description)
	}
	if mac := strings.TrimPrefix(description, "karpenter v1 c=prod-seoul.1 k=k1 s="); len(mac) != 22 {
		t.Errorf("MAC %q is %d characters, want 22", mac, len(mac))
	}
	if again := mustSign(t, ring, subject); again != description {
		t.Errorf("signing twice gave %q and %q; signing must be deterministic", description, again)
	}
	keyID, err := ring.Verify(description, subject)
	if err != nil || keyID != "k1" {
		t.Errorf("Verify = %q, %v; want k1, nil", keyID, err)
	}
	if keyID, err := ring.Verify(" \n"+description+"\t ", subject); err != nil || keyID != "k1" {
		t.Errorf("Verify with surrounding whitespace = %q, %v; want k1, nil", keyID, err)
	}
}

func TestSignedFieldsAreUnambiguous(t *testing.T) {
	ring := mustKeyring(t, "k1", map[string][]byte{"k1": keyOld})
	// The same characters split differently between the VM name and the NodeClaim must not
	// give the same MAC.
	a := mustSign(t, ring, signing.Subject{VMName: "ab", ClusterID: "c", NodeClaim: "c"})
	b := mustSign(t, ring, signing.Subject{VMName: "a", ClusterID: "c", NodeClaim: "bc"})
	if a == b {
		t.Errorf("different subjects signed alike: %q", a)
	}
}

func TestVerifyFailures(t *testing.T) {
	ring := mustKeyring(t, "k1", map[string][]byte{"k1": keyOld})
	good := mustSign(t, ring, subject)
	otherCluster := mustSign(t, ring, signing.Subject{VMName: subject.VMName, ClusterID: "staging", NodeClaim: subject.NodeClaim})
	removedKey := mustSign(t, mustKeyring(t, "gone", map[string][]byte{"gone": keyNew}), subject)
	sameIDOtherKey := mustSign(t, mustKeyring(t, "k1", map[string][]byte{"k1": keyNew}), subject)

	// Flip one character in the middle of the MAC, keeping it valid base64url.
	tampered := []byte(good)
	i := len(tampered) - 10
	tampered[i] = map[bool]byte{true: 'B', false: 'A'}[tampered[i] == 'A']

	renamed := subject
	renamed.VMName = "default-x7k2q"
	otherClaim := subject
	otherClaim.NodeClaim = "default-abcde"

	for _, tc := range []struct {
		name        string
		description string
		subject     signing.Subject
		want        error
		wantMessage string
	}{
		{name: "tampered MAC", description: string(tampered), subject: subject, want: signing.ErrBadSignature},
		{name: "renamed VM", description: good, subject: renamed, want: signing.ErrBadSignature,
			wantMessage: `VM "default-x7k2q", NodeClaim "default-x7k2p", key "k1"`},
		{name: "other NodeClaim", description: good, subject: otherClaim, want: signing.ErrBadSignature},
		{name: "same key id, other key material", description: sameIDOtherKey, subject: subject, want: signing.ErrBadSignature},
		{name: "other cluster's VM", description: otherCluster, subject: subject, want: signing.ErrOtherCluster,
			wantMessage: `marked for cluster "staging", this is cluster "prod-seoul.1"`},
		{name: "verified as another cluster", description: good, subject: signing.Subject{VMName: subject.VMName, ClusterID: "prod-seoul.2", NodeClaim: subject.NodeClaim}, want: signing.ErrOtherCluster},
		{name: "key removed from the ring", description: removedKey, subject: subject, want: signing.ErrUnknownKey,
			wantMessage: `key "gone" (keyring holds k1); if it was removed while VMs signed with it still existed, add it back until karpenter_kakaocloud_instances_by_signing_key shows 0 for it`},
		{name: "empty description", description: "", subject: subject, want: signing.ErrNoMarker},
		{name: "description written by hand", description: "web server, do not delete", subject: subject, want: signing.ErrNoMarker},
		{name: "random text", description: "x8#kP2 q@!~ 한글 설명", subject: subject, want: signing.ErrNoMarker},
		{name: "marker with text before", description: "note " + good, subject: subject, want: signing.ErrNoMarker},
		{name: "marker with text after", description: good + " edited", subject: subject, want: signing.ErrNoMarker},
		{name: "marker with a doubled space", description: strings.Replace(good, " k=", "  k=", 1), subject: subject, want: signing.ErrNoMarker},
		{name: "truncated marker", description: good[:len(good)-1], subject: subject, want: signing.ErrNoMarker},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keyID, err := ring.Verify(tc.description, tc.subject)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify(%q) = %q, %v; want %v", tc.description, keyID, err, tc.want)
			}
			if keyID != "" {
				t.Errorf("a failed verification returned key id %q", keyID)
			}
			if !strings.Contains(err.Error(), tc.wantMessage) {
				t.Errorf("error %q does not say %q", err, tc.wantMessage)
			}
			for _, other := range []error{signing.ErrNoMarker, signing.ErrOtherCluster, signing.ErrUnknownKey, signing.ErrBadSignature} {
				if !errors.Is(other, tc.want) && errors.Is(err, other) {
					t.Errorf("error %v is also %v", err, other)
				}
			}
		})
	}
}

// TestRotation walks the documented procedure: add a key, make it active, and only then
// remove the old one.
func TestRotation(t *testing.T) {
	before := mustKeyring(t, "old", map[string][]byte{"old": keyOld})
	signedBefore := mustSign(t, before, subject)

	during := mustKeyring(t, "new", map[string][]byte{"old": keyOld, "new": keyNew})
	laterVM := signing.Subject{VMName: "default-q9w8e", ClusterID: subject.ClusterID, NodeClaim: "default-q9w8e"}
	signedDuring := mustSign(t, during, laterVM)
	if !strings.Contains(signedDuring, " k=new ") {
		t.Errorf("a new VM was not signed with the active key: %q", signedDuring)
	}
	if keyID, err := during.Verify(signedBefore, subject); err != nil || keyID != "old" {
		t.Errorf("VM signed before the rotation: Verify = %q, %v; want old, nil", keyID, err)
	}
	if keyID, err := during.Verify(signedDuring, laterVM); err != nil || keyID != "new" {
		t.Errorf("VM signed after the rotation: Verify = %q, %v; want new, nil", keyID, err)
	}

	after := mustKeyring(t, "new", map[string][]byte{"new": keyNew})
	if _, err := after.Verify(signedBefore, subject); !errors.Is(err, signing.ErrUnknownKey) {
		t.Errorf("old key removed: Verify = %v, want ErrUnknownKey", err)
	}
	if keyID, err := after.Verify(signedDuring, laterVM); err != nil || keyID != "new" {
		t.Errorf("old key removed, VM of the new key: Verify = %q, %v; want new, nil", keyID, err)
	}
}

// descriptionCharset is what KakaoCloud accepts in a VM description besides letters, digits
// and Hangul; a marker uses ASCII only.
const descriptionCharset = ` .,!?()[]{}:;"'@#%&*+=_/\|<>~-`

func TestLongestMarkerFitsADescription(t *testing.T) {
	longestCluster := strings.Repeat("aZ9_.-", 7)[:40]
	longestKeyID := strings.Repeat("bY8_-", 4)[:16]
	ring := mustKeyring(t, longestKeyID, map[string][]byte{longestKeyID: keyOld})
	description := mustSign(t, ring, signing.Subject{
		VMName:    strings.Repeat("n", 255),
		ClusterID: longestCluster,
		NodeClaim: strings.Repeat("c", 253),
	})
	if n := utf8.RuneCountInString(description); n > 100 {
		t.Errorf("marker is %d characters, KakaoCloud allows 100: %q", n, description)
	}
	for _, r := range description {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(descriptionCharset, r)) {
			t.Errorf("marker has %q, which KakaoCloud does not accept: %q", r, description)
		}
	}
}

func TestSignRejects(t *testing.T) {
	ring := mustKeyring(t, "k1", map[string][]byte{"k1": keyOld})
	for _, tc := range []struct {
		name    string
		subject signing.Subject
		want    string
	}{
		{name: "cluster id of 41 characters", subject: signing.Subject{VMName: "vm", ClusterID: strings.Repeat("c", 41), NodeClaim: "vm"},
			want: "must be 1 to 40 letters, digits, '_', '.' or '-'; shorten it or use a hash of it"},
		{name: "cluster id with a space", subject: signing.Subject{VMName: "vm", ClusterID: "my cluster", NodeClaim: "vm"},
			want: `cluster id "my cluster" cannot go into a VM description`},
		{name: "cluster id with a colon", subject: signing.Subject{VMName: "vm", ClusterID: "arn:cluster", NodeClaim: "vm"},
			want: `cluster id "arn:cluster" cannot go into a VM description`},
		{name: "empty cluster id", subject: signing.Subject{VMName: "vm", NodeClaim: "vm"},
			want: `cluster id "" cannot go into a VM description`},
		{name: "no VM name", subject: signing.Subject{ClusterID: "c", NodeClaim: "vm"},
			want: `signing needs the VM name and the NodeClaim name, got VM name "" and NodeClaim "vm"`},
		{name: "no NodeClaim", subject: signing.Subject{VMName: "vm", ClusterID: "c"},
			want: `got VM name "vm" and NodeClaim ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			description, err := ring.Sign(tc.subject)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Sign = %q, %v; want an error saying %q", description, err, tc.want)
			}
		})
	}

	if _, err := new(signing.Keyring).Sign(subject); err == nil || !strings.Contains(err.Error(), "build it with NewKeyring") {
		t.Errorf("signing with a zero Keyring: %v, want an error", err)
	}
}

const validMAC = "AAECAwQFBgcICQoLDA0ODw" // base64url of the bytes 0..15

func TestParseMarker(t *testing.T) {
	valid := signing.Marker{Version: "v1", ClusterID: "prod-seoul.1", KeyID: "2026-02", MAC: validMAC}
	for _, tc := range []struct {
		name        string
		description string
		want        *signing.Marker // nil: not a marker
	}{
		{name: "marker", description: "karpenter v1 c=prod-seoul.1 k=2026-02 s=" + validMAC, want: &valid},
		{name: "surrounding whitespace", description: "\n\t karpenter v1 c=prod-seoul.1 k=2026-02 s=" + validMAC + " \r\n", want: &valid},
		{name: "empty", description: ""},
		{name: "only whitespace", description: "  \n"},
		{name: "hand-written", description: "karpenter node"},
		{name: "capitalised prefix", description: "Karpenter v1 c=prod-seoul.1 k=2026-02 s=" + validMAC},
		{name: "unknown version", description: "karpenter v2 c=prod-seoul.1 k=2026-02 s=" + validMAC},
		{name: "fields out of order", description: "karpenter v1 k=2026-02 c=prod-seoul.1 s=" + validMAC},
		{name: "missing key id", description: "karpenter v1 c=prod-seoul.1 s=" + validMAC},
		{name: "empty cluster id", description: "karpenter v1 c= k=2026-02 s=" + validMAC},
		{name: "cluster id of 41 characters", description: "karpenter v1 c=" + strings.Repeat("c", 41) + " k=2026-02 s=" + validMAC},
		{name: "key id with a dot", description: "karpenter v1 c=prod k=2026.02 s=" + validMAC},
		{name: "key id of 17 characters", description: "karpenter v1 c=prod k=" + strings.Repeat("k", 17) + " s=" + validMAC},
		{name: "MAC of 21 characters", description: "karpenter v1 c=prod k=k1 s=" + validMAC[:21]},
		{name: "MAC of 23 characters", description: "karpenter v1 c=prod k=k1 s=" + validMAC + "A"},
		{name: "padded MAC", description: "karpenter v1 c=prod k=k1 s=" + validMAC + "=="},
		{name: "standard base64 MAC", description: "karpenter v1 c=prod k=k1 s=+/ECAwQFBgcICQoLDA0ODw"},
		// The last character holds 2 bits of the MAC; setting the 4 bits beyond them gives a
		// second spelling of the same bytes, which is not the canonical marker.
		{name: "non-canonical last character", description: "karpenter v1 c=prod k=k1 s=" + validMAC[:21] + "x"},
		{name: "tab between fields", description: "karpenter v1 c=prod\tk=k1 s=" + validMAC},
		{name: "doubled space", description: "karpenter  v1 c=prod k=k1 s=" + validMAC},
		{name: "text after", description: "karpenter v1 c=prod k=k1 s=" + validMAC + " ok"},
		{name: "text before", description: "VM: karpenter v1 c=prod k=k1 s=" + validMAC},
		{name: "two markers", description: "karpenter v1 c=prod k=k1 s=" + validMAC + " karpenter v1 c=prod k=k1 s=" + validMAC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := signing.ParseMarker(tc.description)
			if tc.want == nil {
				if ok {
					t.Errorf("ParseMarker(%q) = %+v, want not a marker", tc.description, got)
				}
				return
			}
			if !ok || got != *tc.want {
				t.Errorf("ParseMarker(%q) = %+v, %v; want %+v", tc.description, got, ok, *tc.want)
			}
			if got.String() != strings.TrimSpace(tc.description) {
				t.Errorf("String() = %q, want %q", got.String(), strings.TrimSpace(tc.description))
			}
		})
	}
}

func FuzzParseMarker(f *testing.F) {
	ring := mustKeyring(f, "2026-02", map[string][]byte{"2026-02": keyNew})
	f.Add(mustSign(f, ring, subject))
	f.Add(" karpenter v1 c=prod k=k1 s=" + validMAC + "\n")
	f.Add("karpenter v1 c=prod k=k1 s=" + validMAC[:21] + "x")
	f.Add("karpenter v2 c=prod k=k1 s=" + validMAC)
	f.Add("karpenter v1 c= k= s=")
	f.Add("web server 한글")
	f.Add("")
	f.Fuzz(func(t *testing.T, description string) {
		marker, ok := signing.ParseMarker(description)
		if !ok {
			if marker != (signing.Marker{}) {
				t.Errorf("ParseMarker(%q) rejected the description but returned %+v", description, marker)
			}
			return
		}
		if rendered := marker.String(); rendered != strings.TrimSpace(description) {
			t.Errorf("ParseMarker(%q) = %+v, which renders as %q", description, marker, rendered)
		}
		if again, ok := signing.ParseMarker(marker.String()); !ok || again != marker {
			t.Errorf("re-parsing %q gave %+v, %v; want %+v", marker.String(), again, ok, marker)
		}
		// Verifying never panics either, whatever the marker says.
		_, _ = ring.Verify(description, subject)
	})
}
