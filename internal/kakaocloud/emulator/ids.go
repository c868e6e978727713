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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// stableUUID derives a UUID from a kind and a name, so a catalog's IDs are the same on every
// run and YAML files and tests can refer to them. It is a version 8 (vendor-defined) UUID
// holding the first bytes of SHA-256("<kind>/<name>").
func stableUUID(kind, name string) string {
	sum := sha256.Sum256([]byte(kind + "/" + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x80 // version 8
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return formatUUID(b)
}

// stableHexID derives a 32-hex-digit ID without hyphens, the form KakaoCloud gives flavors.
func stableHexID(kind, name string) string {
	sum := sha256.Sum256([]byte(kind + "/" + name))
	return hex.EncodeToString(sum[:16])
}

// newUUID returns a random (version 4) UUID for the objects the emulator creates.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b []byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
