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

package test

import (
	"context"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// cacheSyncTimeout bounds how long a write waits for the cache to show it.
const cacheSyncTimeout = 10 * time.Second

// CacheSyncingClient writes to the API server and reads through a cache, and makes each write
// wait until the cache shows it. A test that writes an object and then calls a reconciler that
// reads through the cache would otherwise race the informer; with it, what a test wrote is
// what the reconciler reads, and so are the reconciler's own writes on its next call.
type CacheSyncingClient struct {
	client.Client
}

var _ client.Client = (*CacheSyncingClient)(nil)

// Create creates obj and waits until the cache has it.
func (c *CacheSyncingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return c.awaitWritten(ctx, obj, c.Client.Create(ctx, obj, opts...))
}

// Update updates obj and waits until the cache has the new version.
func (c *CacheSyncingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.awaitWritten(ctx, obj, c.Client.Update(ctx, obj, opts...))
}

// Patch patches obj and waits until the cache has the new version.
func (c *CacheSyncingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.awaitWritten(ctx, obj, c.Client.Patch(ctx, obj, patch, opts...))
}

// Delete deletes obj and waits until the cache no longer has it, or has it deleting when it
// is not removed at once.
func (c *CacheSyncingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if err := c.Client.Delete(ctx, obj, opts...); err != nil {
		return err
	}
	options := &client.DeleteOptions{}
	options.ApplyOptions(opts)
	immediate := options.GracePeriodSeconds != nil && *options.GracePeriodSeconds == 0
	c.await(ctx, obj, func(cached client.Object, err error) bool {
		if immediate && len(obj.GetFinalizers()) == 0 {
			return apierrors.IsNotFound(err) // a grace of 0 removes it at once
		}
		return apierrors.IsNotFound(err) || (err == nil && !cached.GetDeletionTimestamp().IsZero())
	})
	return nil
}

// SubResource returns a client of the subresource whose creates wait for the cache too; an
// eviction waits until the cache shows the pod deleting or gone.
func (c *CacheSyncingClient) SubResource(subResource string) client.SubResourceClient {
	return &cacheSyncingSubResourceClient{SubResourceClient: c.Client.SubResource(subResource), client: c, evicts: subResource == "eviction"}
}

type cacheSyncingSubResourceClient struct {
	client.SubResourceClient
	client *CacheSyncingClient
	evicts bool
}

func (s *cacheSyncingSubResourceClient) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	if err := s.SubResourceClient.Create(ctx, obj, subResource, opts...); err != nil {
		return err
	}
	if s.evicts {
		s.client.await(ctx, obj, func(cached client.Object, err error) bool {
			return apierrors.IsNotFound(err) || (err == nil && !cached.GetDeletionTimestamp().IsZero())
		})
	}
	return nil
}

// Status returns a writer of the status subresource whose writes wait for the cache too.
func (c *CacheSyncingClient) Status() client.SubResourceWriter {
	return &cacheSyncingStatusWriter{SubResourceWriter: c.Client.Status(), client: c}
}

type cacheSyncingStatusWriter struct {
	client.SubResourceWriter
	client *CacheSyncingClient
}

func (w *cacheSyncingStatusWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	return w.client.awaitWritten(ctx, obj, w.SubResourceWriter.Update(ctx, obj, opts...))
}

func (w *cacheSyncingStatusWriter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	return w.client.awaitWritten(ctx, obj, w.SubResourceWriter.Patch(ctx, obj, patch, opts...))
}

// awaitWritten passes on the error of a write of obj; after a write that succeeded, it first
// waits until the cache has the version written.
func (c *CacheSyncingClient) awaitWritten(ctx context.Context, obj client.Object, writeErr error) error {
	if writeErr != nil {
		return writeErr
	}
	c.awaitVersion(ctx, obj)
	return nil
}

// awaitVersion waits until the cache holds obj at its resource version or a later one.
func (c *CacheSyncingClient) awaitVersion(ctx context.Context, obj client.Object) {
	if !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) == 0 && ptr.Deref(obj.GetDeletionGracePeriodSeconds(), 0) == 0 {
		// The write let a deleting object go (a pod goes once its grace period is over); the
		// answer may carry its version from before.
		c.await(ctx, obj, func(_ client.Object, err error) bool { return apierrors.IsNotFound(err) })
		return
	}
	written, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		return // not a version this can order; nothing to wait for
	}
	c.await(ctx, obj, func(cached client.Object, err error) bool {
		if err != nil {
			return false
		}
		version, parseErr := strconv.ParseUint(cached.GetResourceVersion(), 10, 64)
		return parseErr == nil && version >= written
	})
}

// await polls the cache for obj until done says so or cacheSyncTimeout passes.
func (c *CacheSyncingClient) await(ctx context.Context, obj client.Object, done func(client.Object, error) bool) {
	cached, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return
	}
	_ = wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, cacheSyncTimeout, true, func(ctx context.Context) (bool, error) {
		return done(cached, c.Client.Get(ctx, client.ObjectKeyFromObject(obj), cached)), nil
	})
}
