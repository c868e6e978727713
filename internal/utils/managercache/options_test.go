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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/managercache"
)

// The cache holds objects without their managed fields, and a write from a cached object leaves
// the server's managed fields as they were, on a real API server.
func TestManagedFieldsStrippedAndKept(t *testing.T) {
	env := testenv.Environment(false)
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	options := managercache.Options()
	options.Scheme = testenv.Scheme()
	informers, err := cache.New(cfg, options)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = informers.Start(ctx) }()
	kube, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node", Labels: map[string]string{"a": "1"}}}
	if err := kube.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	if len(node.ManagedFields) == 0 {
		t.Fatal("the API server gave the created node no managed fields: nothing to test")
	}
	cached := &corev1.Node{}
	for cached.Name == "" {
		if err := informers.Get(ctx, client.ObjectKeyFromObject(node), cached); err != nil && ctx.Err() != nil {
			t.Fatal(err)
		}
	}
	if len(cached.ManagedFields) != 0 {
		t.Errorf("the cached node has managed fields %v", cached.ManagedFields)
	}

	patched := cached.DeepCopy()
	patched.Labels["b"] = "2"
	if err := kube.Patch(ctx, patched, client.MergeFrom(cached)); err != nil {
		t.Fatal(err)
	}
	updated := patched.DeepCopy()
	updated.Labels["c"] = "3"
	if err := kube.Update(ctx, updated); err != nil {
		t.Fatal(err)
	}
	stored := &corev1.Node{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(node), stored); err != nil {
		t.Fatal(err)
	}
	if len(stored.ManagedFields) == 0 || stored.Labels["b"] != "2" || stored.Labels["c"] != "3" {
		t.Errorf("after a patch and an update from the cached node, the server's has labels %v and managed fields %v", stored.Labels, stored.ManagedFields)
	}
}
