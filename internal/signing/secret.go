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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Data keys of the keyring Secret: SecretKeyActiveKeyID holds the active key id, and
// SecretKeyPrefix+<id> holds the raw bytes of each key.
const (
	SecretKeyActiveKeyID = "activeKeyID"
	SecretKeyPrefix      = "keys."
)

// SecretKeyring reads the keyring from a Secret on every call, so a rotation (a Secret update)
// takes effect without a restart, as soon as Reader sees it: the operator reads it from the API
// server each time, by name, which costs less than the KakaoCloud call each read goes with.
type SecretKeyring struct {
	Reader client.Reader
	Secret types.NamespacedName
}

// Keyring reads and checks the Secret.
func (s SecretKeyring) Keyring(ctx context.Context) (*Keyring, error) {
	secret := &corev1.Secret{}
	if err := s.Reader.Get(ctx, s.Secret, secret); err != nil {
		return nil, fmt.Errorf("reading the signing keyring from Secret %s: %w", s.Secret, err)
	}
	activeData, ok := secret.Data[SecretKeyActiveKeyID]
	if !ok {
		return nil, fmt.Errorf("signing keyring Secret %s has no %q key; it must hold the id of the key that signs new VMs", s.Secret, SecretKeyActiveKeyID)
	}
	// Trimmed because a value written with `echo id | base64` ends in a newline.
	activeKeyID := strings.TrimSpace(string(activeData))
	if activeKeyID == "" {
		return nil, fmt.Errorf("signing keyring Secret %s has an empty %q; it must hold the id of the key that signs new VMs", s.Secret, SecretKeyActiveKeyID)
	}
	keys := map[string][]byte{}
	for name, value := range secret.Data {
		if id, ok := strings.CutPrefix(name, SecretKeyPrefix); ok {
			keys[id] = value
		}
	}
	if _, ok := keys[activeKeyID]; !ok {
		return nil, fmt.Errorf("signing keyring Secret %s has no %q key for the active key id %q", s.Secret, SecretKeyPrefix+activeKeyID, activeKeyID)
	}
	ring, err := NewKeyring(activeKeyID, keys)
	if err != nil {
		return nil, fmt.Errorf("signing keyring Secret %s: %w", s.Secret, err)
	}
	return ring, nil
}
