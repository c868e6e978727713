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

package plugin

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
)

// WhatIf asks the operator what the manifest (an edited NodePool or KCNodeClass, or a Pod)
// would do: an *explain.WhatIfAnswer or an *explain.PodWhatIfAnswer. Only the operator knows
// the instance types and their prices, so the plugin creates a WhatIf in the operator's
// aggregated API: the request goes to the API server as every kubectl request does, with the
// kubeconfig's credential, and the API server passes it on naming the user, never the
// credential.
func WhatIf(ctx context.Context, config *rest.Config, manifest []byte) (any, error) {
	obj, err := explain.Decode(manifest)
	if err != nil {
		return nil, err
	}
	var answer any = &explain.WhatIfAnswer{}
	if _, ok := obj.(*corev1.Pod); ok {
		answer = &explain.PodWhatIfAnswer{}
	}
	if err := ask(ctx, config, manifest, answer); err != nil {
		return nil, err
	}
	return answer, nil
}

// PodAsker asks the operator where a pod would land now, or why it would find no place: the
// operator's simulation, as whatif pod answers it.
type PodAsker func(ctx context.Context, pod *corev1.Pod) (*explain.PodWhatIfAnswer, error)

// AskOperator is a PodAsker that asks the operator's whatif API through the API server of
// config, with the pod's own manifest as it is now.
func AskOperator(config *rest.Config) PodAsker {
	return func(ctx context.Context, pod *corev1.Pod) (*explain.PodWhatIfAnswer, error) {
		manifest, err := podManifest(pod)
		if err != nil {
			return nil, err
		}
		answer := &explain.PodWhatIfAnswer{}
		if err := ask(ctx, config, manifest, answer); err != nil {
			return nil, err
		}
		return answer, nil
	}
}

// podManifest is the pod as a manifest whatif reads: its kind and API version, which an object
// read through a typed client does not carry, and without its managed fields, which say
// nothing of where it may run.
func podManifest(pod *corev1.Pod) ([]byte, error) {
	pod = pod.DeepCopy()
	pod.TypeMeta = metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "Pod"}
	pod.ManagedFields = nil
	manifest, err := yaml.Marshal(pod)
	if err != nil {
		return nil, fmt.Errorf("writing the manifest of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return manifest, nil
}

// ask creates a WhatIf of the manifest and reads the operator's answer into answer.
func ask(ctx context.Context, config *rest.Config, manifest []byte, answer any) error {
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("connecting to the API server: %w", err)
	}
	// Do, not DoRaw: DoRaw reads a refusal's metav1.Status as "unknown", and the API server's
	// (RBAC) or the operator's own message is what the user needs.
	result := clientset.CoreV1().RESTClient().Post().AbsPath(explain.Path).
		SetHeader("Content-Type", "application/yaml").Body(manifest).Do(ctx)
	if err := result.Error(); err != nil {
		return whatIfError(err)
	}
	body, err := result.Raw()
	if err != nil {
		return whatIfError(err)
	}
	if err := yaml.Unmarshal(body, answer); err != nil {
		return fmt.Errorf("reading the operator's answer: %w", err)
	}
	return nil
}

// whatIfError says what a refused question means for whoever asks.
func whatIfError(err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("the API server serves no %s/%s: is the operator installed with its APIService %s? %w",
			explain.Group, explain.Version, explain.APIServiceName, err)
	case apierrors.IsServiceUnavailable(err):
		return fmt.Errorf("the operator does not answer for now (APIService %s: kubectl get apiservice %s): %w",
			explain.APIServiceName, explain.APIServiceName, err)
	}
	return fmt.Errorf("asking the operator: %w", err)
}
