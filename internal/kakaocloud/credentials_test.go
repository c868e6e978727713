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

package kakaocloud_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

func TestCredentialsNeverPrintTheSecret(t *testing.T) {
	creds := kakaocloud.Credentials{AccessKeyID: "key-id", SecretAccessKey: "s3cr3t-value"}
	var logged bytes.Buffer
	log := funcr.NewJSON(func(obj string) { logged.WriteString(obj) }, funcr.Options{})
	log.Info("using credentials", "credentials", creds)
	for _, out := range []string{
		fmt.Sprint(creds), fmt.Sprintf("%v", creds), fmt.Sprintf("%+v", creds), fmt.Sprintf("%#v", creds),
		fmt.Sprintf("%s", creds), logged.String(), //nolint:staticcheck // every way of printing is what is tested
	} {
		if strings.Contains(out, "s3cr3t-value") {
			t.Errorf("printed the secret: %s", out)
		}
		if !strings.Contains(out, "key-id") {
			t.Errorf("does not name the key id: %s", out)
		}
	}
}

// TestSecretRotation rotates the access key the way an operator does, by updating the Secret,
// and expects the client to pick the new key up without a restart.
func TestSecretRotation(t *testing.T) {
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

	key := types.NamespacedName{Namespace: "default", Name: "kakaocloud-credentials"}
	provider := kakaocloud.SecretCredentials{Reader: kube, Secret: key}
	e := newEnv(t)
	c := e.client(t, func(cfg *kakaocloud.Config) { cfg.Credentials = provider })

	if _, err := c.ListVersions(ctx); err == nil || !strings.Contains(err.Error(), "default/kakaocloud-credentials") {
		t.Fatalf("without the Secret: %v, want an error naming it", err)
	}

	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
		Data:       map[string][]byte{kakaocloud.SecretKeyAccessKeyID: []byte(accessKeyID)},
	}
	if err := kube.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListVersions(ctx); err == nil || !strings.Contains(err.Error(), `no "secret-access-key" key`) {
		t.Fatalf("Secret without the secret key: %v, want an error naming the missing key", err)
	}

	secret.Data[kakaocloud.SecretKeySecretAccessKey] = []byte(secretKey)
	if err := kube.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	must(c.ListVersions(ctx))(t)

	// Rotate: KakaoCloud gets a new key and revokes the old one; the Secret is updated.
	e.emu.AddCredential("rotated-access-key", "rotated-secret")
	e.emu.RemoveCredential(accessKeyID)
	if _, err := c.ListVersions(ctx); !errors.Is(err, kakaocloud.ErrUnauthorized) {
		t.Fatalf("old key revoked, Secret not yet updated: %v, want ErrUnauthorized", err)
	}
	secret.Data = map[string][]byte{
		kakaocloud.SecretKeyAccessKeyID:     []byte("rotated-access-key"),
		kakaocloud.SecretKeySecretAccessKey: []byte("rotated-secret"),
	}
	if err := kube.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	must(c.ListVersions(ctx))(t)
}
