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

package index

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// The indexes, by field.
const (
	// NodeProviderID holds Nodes by spec.providerID: a NodeClaim's node.
	NodeProviderID = "spec.providerID"
	// NodeClaimProviderID holds NodeClaims by status.providerID: a node's NodeClaim, found on
	// every node event without reading them all.
	NodeClaimProviderID = "status.providerID"
	// PodNodeName holds Pods by spec.nodeName: the pods bound to a node.
	PodNodeName = "spec.nodeName"
)

// Field is one index: the kind it indexes, its name, and what an object is indexed under.
type Field struct {
	Object  client.Object
	Name    string
	Extract client.IndexerFunc
}

// Fields are every index.
func Fields() []Field {
	return []Field{
		{Object: &corev1.Node{}, Name: NodeProviderID, Extract: byProviderID(func(o client.Object) string { return o.(*corev1.Node).Spec.ProviderID })},
		{Object: &karpv1.NodeClaim{}, Name: NodeClaimProviderID, Extract: byProviderID(func(o client.Object) string { return o.(*karpv1.NodeClaim).Status.ProviderID })},
		{Object: &corev1.Pod{}, Name: PodNodeName, Extract: func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }},
	}
}

// byProviderID indexes an object under its provider id; one without an id yet is left out,
// so a lookup by an empty id finds nothing.
func byProviderID(providerID func(client.Object) string) client.IndexerFunc {
	return func(o client.Object) []string {
		if id := providerID(o); id != "" {
			return []string{id}
		}
		return nil
	}
}
