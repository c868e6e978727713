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

package managercache_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/managercache"
)

// A NamedReader asks the server once per TTL for each object, sees a change after the TTL,
// remembers an absence as long, keeps a Secret and a ConfigMap of the same name apart, and
// refuses to list.
func TestNamedReader(t *testing.T) {
	ctx := context.Background()
	key := client.ObjectKey{Namespace: "karpenter", Name: "credentials"}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: map[string][]byte{"k": []byte("1")}}
	gets := 0
	server := fake.NewClientBuilder().WithObjects(secret).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gets++
			return c.Get(ctx, key, obj, opts...)
		},
	}).Build()
	const ttl = 200 * time.Millisecond
	reader := managercache.NewNamedReader(server, ttl)

	read := func() string {
		t.Helper()
		got := &corev1.Secret{}
		if err := reader.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		// A caller changing what it read changes nothing remembered.
		value := string(got.Data["k"])
		got.Data["k"] = []byte("scribbled")
		return value
	}
	first, second := read(), read()
	if first != "1" || second != "1" || gets != 1 {
		t.Fatalf("two reads within the TTL read %q and %q, asking the server %d times", first, second, gets)
	}
	updated := secret.DeepCopy()
	updated.Data["k"] = []byte("2")
	if err := server.Update(ctx, updated); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl + 50*time.Millisecond)
	if value := read(); value != "2" || gets != 2 {
		t.Errorf("after the TTL the Secret read %q after %d requests, not the updated one", value, gets)
	}

	for range 2 {
		if err := reader.Get(ctx, key, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Errorf("a ConfigMap named as the Secret is %v, not NotFound", err)
		}
	}
	if gets != 3 {
		t.Errorf("the absent ConfigMap read twice asked the server %d times, not once", gets-2)
	}
	if err := reader.List(ctx, &corev1.SecretList{}); !errors.Is(err, managercache.ErrListByName) {
		t.Errorf("List gave %v", err)
	}
}
