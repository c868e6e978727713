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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Credentials are an IAM access key. They never appear in logs or error messages: String,
// GoString and MarshalLog print the key id only.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
}

func (c Credentials) String() string {
	return fmt.Sprintf("{AccessKeyID:%s SecretAccessKey:<redacted>}", c.AccessKeyID)
}

// GoString keeps %#v from printing the secret.
func (c Credentials) GoString() string { return c.String() }

// MarshalLog keeps structured loggers (logr) from printing the secret.
func (c Credentials) MarshalLog() any {
	return map[string]string{"accessKeyID": c.AccessKeyID}
}

// CredentialsProvider returns the access key to authenticate with. It is asked before every
// token issue, so a provider that reads a Secret picks up a rotated key without a restart.
type CredentialsProvider interface {
	Credentials(ctx context.Context) (Credentials, error)
}

// StaticCredentials always returns the same key.
type StaticCredentials Credentials

// Credentials returns the key.
func (s StaticCredentials) Credentials(context.Context) (Credentials, error) {
	return Credentials(s), nil
}

// Keys of the credentials Secret.
const (
	SecretKeyAccessKeyID     = "access-key-id"
	SecretKeySecretAccessKey = "secret-access-key"
)

// SecretCredentials reads the access key from a Secret with the keys access-key-id and
// secret-access-key. It reads the Secret on every call, so rotating the key is a Secret
// update, seen as soon as Reader sees it (the operator reads it from the API server, by name,
// each time a token is issued).
type SecretCredentials struct {
	Reader client.Reader
	Secret types.NamespacedName
}

// Credentials reads the Secret.
func (s SecretCredentials) Credentials(ctx context.Context) (Credentials, error) {
	secret := &corev1.Secret{}
	if err := s.Reader.Get(ctx, s.Secret, secret); err != nil {
		return Credentials{}, fmt.Errorf("reading KakaoCloud credentials from Secret %s: %w", s.Secret, err)
	}
	creds := Credentials{
		AccessKeyID:     string(secret.Data[SecretKeyAccessKeyID]),
		SecretAccessKey: string(secret.Data[SecretKeySecretAccessKey]),
	}
	for key, value := range map[string]string{SecretKeyAccessKeyID: creds.AccessKeyID, SecretKeySecretAccessKey: creds.SecretAccessKey} {
		if value == "" {
			return Credentials{}, fmt.Errorf("secret %s has no %q key: it must hold %q and %q", s.Secret, key, SecretKeyAccessKeyID, SecretKeySecretAccessKey)
		}
	}
	return creds, nil
}
