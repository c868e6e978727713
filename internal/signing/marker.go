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
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Subject is what a marker binds together: renaming the VM, moving the marker to another VM
// or cluster, or pointing it at another NodeClaim breaks the signature.
type Subject struct {
	VMName    string
	ClusterID string
	NodeClaim string
}

// Marker is a parsed description marker: "karpenter v1 c=<ClusterID> k=<KeyID> s=<MAC>".
type Marker struct {
	Version   string
	ClusterID string
	KeyID     string
	MAC       string
}

// String renders the marker as description text; ParseMarker reads it back.
func (m Marker) String() string {
	return markerPrefix + " " + m.Version + " c=" + m.ClusterID + " k=" + m.KeyID + " s=" + m.MAC
}

// Errors of Verify; whatever the error, the VM is not proven to be this cluster's and must not
// be deleted or adopted.
var (
	ErrNoMarker     = errors.New("description is not a karpenter marker")
	ErrOtherCluster = errors.New("marker belongs to another cluster")
	ErrUnknownKey   = errors.New("marker is signed with a key that is not in the keyring")
	ErrBadSignature = errors.New("marker signature does not match the VM name, cluster and NodeClaim")
)

const (
	markerPrefix  = "karpenter"
	markerVersion = "v1"
	// macDomain separates this MAC from any other use of the same key, and a future marker
	// version from this one.
	macDomain = "karpenter-provider-kakaocloud vm-marker v1"
	// macLength is the truncated MAC size: 128 bits are plenty against forgery and keep the
	// marker within the 100-character description.
	macLength = 16
	// maxDescriptionLength is KakaoCloud's limit on a VM description, in characters.
	maxDescriptionLength = 100
)

var (
	// clusterIDPattern keeps the cluster id within the description's charset and, with the
	// longest key id, the marker within 100 characters.
	clusterIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)
	macEncoding      = base64.RawURLEncoding.Strict()
	markerPattern    = regexp.MustCompile(`^` + markerPrefix + ` (` + markerVersion + `) c=([A-Za-z0-9_.-]{1,40}) k=([A-Za-z0-9_-]{1,16}) s=([A-Za-z0-9_-]{22})$`)
)

// Sign returns the description text that marks a VM as created by this cluster for s, signed
// with the active key.
func (k *Keyring) Sign(s Subject) (string, error) {
	if !clusterIDPattern.MatchString(s.ClusterID) {
		return "", fmt.Errorf("cluster id %q cannot go into a VM description: it must be 1 to 40 letters, digits, '_', '.' or '-'; shorten it or use a hash of it", s.ClusterID)
	}
	if s.VMName == "" || s.NodeClaim == "" {
		return "", fmt.Errorf("signing needs the VM name and the NodeClaim name, got VM name %q and NodeClaim %q", s.VMName, s.NodeClaim)
	}
	key, ok := k.keys[k.activeKeyID]
	if !ok {
		return "", errors.New("the keyring has no active key; build it with NewKeyring")
	}
	marker := Marker{
		Version:   markerVersion,
		ClusterID: s.ClusterID,
		KeyID:     k.activeKeyID,
		MAC:       macEncoding.EncodeToString(mac(key, s)),
	}
	description := marker.String()
	// The patterns above guarantee this; the check keeps a future format change from writing
	// descriptions that KakaoCloud rejects or truncates.
	if err := checkDescription(description); err != nil {
		return "", fmt.Errorf("marker %q cannot be a VM description: %w", description, err)
	}
	return description, nil
}

// ParseMarker reads a marker from a VM description. Surrounding whitespace is tolerated; any
// other text, or a field out of its format, means the description is not a marker.
func ParseMarker(description string) (Marker, bool) {
	marker, _, ok := parseMarker(description)
	return marker, ok
}

// parseMarker also returns the decoded MAC, for Verify.
func parseMarker(description string) (Marker, []byte, bool) {
	fields := markerPattern.FindStringSubmatch(strings.TrimSpace(description))
	if fields == nil {
		return Marker{}, nil, false
	}
	// 22 characters always decode to 16 bytes, but the last one can carry 4 bits beyond them;
	// the strict decoding rejects those, keeping one canonical text per MAC.
	macBytes, err := macEncoding.DecodeString(fields[4])
	if err != nil {
		return Marker{}, nil, false
	}
	return Marker{Version: fields[1], ClusterID: fields[2], KeyID: fields[3], MAC: fields[4]}, macBytes, true
}

// Verify checks that description is a marker of s's cluster whose MAC, under the key it names,
// matches s. Any key of the ring verifies, so VMs signed before a rotation stay provable. It
// returns the key id that signed the marker.
func (k *Keyring) Verify(description string, s Subject) (string, error) {
	marker, macBytes, ok := parseMarker(description)
	if !ok {
		return "", ErrNoMarker
	}
	if marker.ClusterID != s.ClusterID {
		return "", fmt.Errorf("%w: marked for cluster %q, this is cluster %q", ErrOtherCluster, marker.ClusterID, s.ClusterID)
	}
	key, ok := k.keys[marker.KeyID]
	if !ok {
		return "", fmt.Errorf("%w: key %q (keyring holds %s); if it was removed while VMs signed with it still existed, add it back until karpenter_kakaocloud_instances_by_signing_key shows 0 for it",
			ErrUnknownKey, marker.KeyID, strings.Join(k.KeyIDs(), ", "))
	}
	if !hmac.Equal(macBytes, mac(key, s)) {
		return "", fmt.Errorf("%w: VM %q, NodeClaim %q, key %q", ErrBadSignature, s.VMName, s.NodeClaim, marker.KeyID)
	}
	return marker.KeyID, nil
}

// mac computes the truncated HMAC-SHA256 of the subject. Each field is length-prefixed after
// the domain string, so no two different subjects encode to the same bytes (no "a"+"bc" vs
// "ab"+"c" ambiguity).
func mac(key []byte, s Subject) []byte {
	h := hmac.New(sha256.New, key)
	for _, field := range []string{macDomain, s.VMName, s.ClusterID, s.NodeClaim} {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(field))))
		h.Write([]byte(field))
	}
	return h.Sum(nil)[:macLength]
}

// checkDescription applies KakaoCloud's rules for a VM description: at most 100 characters of
// letters, digits, Hangul, space and .,!?()[]{}:;"'@#%&*+=_/\|<>~-
func checkDescription(description string) error {
	if n := utf8.RuneCountInString(description); n > maxDescriptionLength {
		return fmt.Errorf("%d characters, at most %d allowed", n, maxDescriptionLength)
	}
	for _, r := range description {
		allowed := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == ' ' || strings.ContainsRune(`.,!?()[]{}:;"'@#%&*+=_/\|<>~-`, r)) ||
			unicode.Is(unicode.Hangul, r)
		if !allowed {
			return fmt.Errorf("character %q is not allowed", r)
		}
	}
	return nil
}
