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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options are the cache options of a manager running in namespace: the Secrets and ConfigMaps
// it reads are its own namespace's, every namespace's when namespace is empty.
func Options(namespace string) cache.Options {
	options := cache.Options{
		// Nothing here reads managed fields, and with every node, pod and NodeClaim cached they
		// were a tenth of the live heap. Writes from the cache keep the server's: an update or a
		// patch without managed fields leaves them as they are.
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	if namespace != metav1.NamespaceAll {
		options.ByObject = map[client.Object]cache.ByObject{
			&corev1.Secret{}:    {Namespaces: map[string]cache.Config{namespace: {}}},
			&corev1.ConfigMap{}: {Namespaces: map[string]cache.Config{namespace: {}}},
		}
	}
	return options
}
