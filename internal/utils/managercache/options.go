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
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options are the cache options of the manager.
func Options() cache.Options {
	return cache.Options{
		// Nothing here reads managed fields, and with every node, pod and NodeClaim cached they
		// were a tenth of the live heap. Writes from the cache keep the server's: an update or a
		// patch without managed fields leaves them as they are.
		DefaultTransform: cache.TransformStripManagedFields(),
	}
}

// ClientOptions are the options of the manager's client: Secrets and ConfigMaps are never
// cached. An informer would list and watch every Secret of a namespace, which the operator's
// Role does not grant (it may get its credentials and keyring Secrets and its price ConfigMap
// by name, nothing else) and which it has no business holding in memory; a Get of either kind
// through the manager's client goes to the API server instead of starting such an informer.
// The operator's own reads go through a NamedReader.
func ClientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}}}}
}
