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

package managercache

import (
	"context"
	"errors"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultNamedTTL bounds how long an edited price ConfigMap goes unseen, at two API requests a
// minute however many readers ask. (The Secrets of keys are read afresh each time: a rotation
// takes effect at once.)
const DefaultNamedTTL = 30 * time.Second

// ErrListByName is returned by NamedReader's List: it reads single objects by name only.
var ErrListByName = errors.New("a NamedReader reads objects by name only: the operator may not list them")

// NamedReader reads single objects by name from the API server and remembers each answer,
// the object or its absence, for a TTL. It serves the price ConfigMap, which the operator's
// Role names: Kubernetes authorizes a list or a watch with resourceNames only when it selects
// metadata.name, and a controller-runtime informer can select one name per kind, so a read by
// name with a short memory replaces the informer for an object read often and changed
// rarely. A change is seen within the TTL.
type NamedReader struct {
	reader client.Reader
	ttl    time.Duration
	// objects holds a copy of each object read, or the NotFound error, by type and key.
	objects *utilcache.LRUExpireCache
}

// NewNamedReader reads through reader (the manager's API reader) and keeps answers for ttl.
func NewNamedReader(reader client.Reader, ttl time.Duration) *NamedReader {
	// The operator reads three objects; the bound is only against a caller reading many.
	return &NamedReader{reader: reader, ttl: ttl, objects: utilcache.NewLRUExpireCache(64)}
}

type namedKey struct {
	kind string
	key  client.ObjectKey
}

// Get reads the object named key into obj, from memory when it was read less than the TTL
// ago.
func (r *NamedReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	k := namedKey{kind: reflect.TypeOf(obj).String(), key: key}
	if cached, ok := r.objects.Get(k); ok {
		return into(obj, cached)
	}
	if err := r.reader.Get(ctx, key, obj, opts...); err != nil {
		if apierrors.IsNotFound(err) {
			r.objects.Add(k, err, r.ttl)
		}
		return err
	}
	r.objects.Add(k, obj.DeepCopyObject(), r.ttl)
	return nil
}

// into copies a remembered answer into obj: the object, or the NotFound error it was.
func into(obj client.Object, cached any) error {
	if err, ok := cached.(error); ok {
		return err
	}
	// The key holds obj's type, so the remembered object is of that type.
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(cached.(client.Object).DeepCopyObject()).Elem())
	return nil
}

// List is refused: see ErrListByName.
func (r *NamedReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return ErrListByName
}
