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
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// TestSecretKeyring reads keyring Secrets from a real API server, so that the data keys the
// documentation tells operators to write are the ones read back.
func TestSecretKeyring(t *testing.T) {
	testEnv := &envtest.Environment{BinaryAssetsDirectory: testenv.BinaryAssetsDirectory()}
	cfg, err := testEnv.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() { _ = testEnv.Stop() })
	kube, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	for _, tc := range []struct {
		name       string
		data       map[string][]byte
		stringData map[string]string // with data nil as well: no Secret at all
		wantActive string
		wantIDs    string
		wantErr    []string
	}{
		{
			name:       "good",
			data:       map[string][]byte{"activeKeyID": []byte("2026-02"), "keys.2026-01": keyOld, "keys.2026-02": keyNew},
			wantActive: "2026-02", wantIDs: "[2026-01 2026-02]",
		},
		{
			name: "the example of the package documentation",
			stringData: map[string]string{
				"activeKeyID":  "2026-02",
				"keys.2026-01": "FAKE-EXAMPLE-KEY-2026-01-do-not-use-000000",
				"keys.2026-02": "FAKE-EXAMPLE-KEY-2026-02-do-not-use-000000",
			},
			wantActive: "2026-02", wantIDs: "[2026-01 2026-02]",
		},
		{
			name:       "active id written with a trailing newline",
			data:       map[string][]byte{"activeKeyID": []byte("2026-02\n"), "keys.2026-02": keyNew},
			wantActive: "2026-02", wantIDs: "[2026-02]",
		},
		{
			name:       "unrelated data keys ignored",
			data:       map[string][]byte{"activeKeyID": []byte("k1"), "keys.k1": keyOld, "README": []byte("rotation: see docs")},
			wantActive: "k1", wantIDs: "[k1]",
		},
		{
			name:    "missing Secret",
			wantErr: []string{"reading the signing keyring from Secret default/missing-secret", "not found"},
		},
		{
			name:    "missing activeKeyID",
			data:    map[string][]byte{"keys.2026-01": keyOld},
			wantErr: []string{`signing keyring Secret default/missing-activekeyid has no "activeKeyID" key; it must hold the id of the key that signs new VMs`},
		},
		{
			name:    "empty activeKeyID",
			data:    map[string][]byte{"activeKeyID": []byte(" \n"), "keys.2026-01": keyOld},
			wantErr: []string{`signing keyring Secret default/empty-activekeyid has an empty "activeKeyID"`},
		},
		{
			name:    "active id without its key",
			data:    map[string][]byte{"activeKeyID": []byte("2026-03"), "keys.2026-01": keyOld, "keys.2026-02": keyNew},
			wantErr: []string{`signing keyring Secret default/active-id-without-its-key has no "keys.2026-03" key for the active key id "2026-03"`},
		},
		{
			name:    "short key",
			data:    map[string][]byte{"activeKeyID": []byte("2026-02"), "keys.2026-01": keyOld[:16], "keys.2026-02": keyNew},
			wantErr: []string{`signing keyring Secret default/short-key: key "2026-01" is 16 bytes long; keys must be at least 32 bytes`},
		},
		{
			name:    "invalid key id",
			data:    map[string][]byte{"activeKeyID": []byte("k1"), "keys.k1": keyOld, "keys.k.2": keyNew},
			wantErr: []string{`signing keyring Secret default/invalid-key-id: key id "k.2" is invalid`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := types.NamespacedName{Namespace: "default", Name: strings.ToLower(strings.ReplaceAll(tc.name, " ", "-"))}
			if tc.data != nil || tc.stringData != nil {
				secret := &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
					Data:       tc.data,
					StringData: tc.stringData,
				}
				if err := kube.Create(ctx, secret); err != nil {
					t.Fatal(err)
				}
			}
			ring, err := signing.SecretKeyring{Reader: kube, Secret: key}.Keyring(ctx)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("got keyring %v, want an error", ring)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				if strings.Contains(err.Error(), "SECRET-MATERIAL") {
					t.Errorf("error printed key material: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ring.ActiveKeyID() != tc.wantActive || fmt.Sprint(ring.KeyIDs()) != tc.wantIDs {
				t.Errorf("keyring = %v, want active %s and keys %s", ring, tc.wantActive, tc.wantIDs)
			}
		})
	}
}
