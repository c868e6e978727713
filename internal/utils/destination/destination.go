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

package destination

import (
	"cmp"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Kind is what a destination is.
type Kind string

const (
	// Node is a node of the cluster.
	Node Kind = "Node"
	// NodeClaim is a NodeClaim whose node has not registered yet.
	NodeClaim Kind = "NodeClaim"
)

// Destination is a place pods may be put on: a node or a NodeClaim in flight. UID is empty
// when it is not known (a destination named before its object was read).
type Destination struct {
	Kind Kind      `json:"kind"`
	Name string    `json:"name"`
	UID  types.UID `json:"uid,omitempty"`
}

// OfNode is the node as a destination.
func OfNode(node *corev1.Node) Destination {
	return Destination{Kind: Node, Name: node.Name, UID: node.UID}
}

// OfNodeClaim is the NodeClaim as a destination.
func OfNodeClaim(nodeClaim *karpv1.NodeClaim) Destination {
	return Destination{Kind: NodeClaim, Name: nodeClaim.Name, UID: nodeClaim.UID}
}

// NodeNamed is the node of that name, its UID not known.
func NodeNamed(name string) Destination {
	return Destination{Kind: Node, Name: name}
}

// NodeClaimNamed is the NodeClaim of that name, its UID not known.
func NodeClaimNamed(name string) Destination {
	return Destination{Kind: NodeClaim, Name: name}
}

// IsZero reports whether d names no place.
func (d Destination) IsZero() bool {
	return d.Name == ""
}

// Same reports whether d and other are the same place: the same kind and name, and the same
// UID when both know it (a node deleted and made again under its name is another place).
func (d Destination) Same(other Destination) bool {
	return d.Kind == other.Kind && d.Name == other.Name && (d.UID == "" || other.UID == "" || d.UID == other.UID)
}

// Key is d without its UID: what a map of destinations read at different times is keyed by,
// Same telling whether the one found is d.
func (d Destination) Key() Destination {
	return Destination{Kind: d.Kind, Name: d.Name}
}

// Compare orders destinations by kind (nodes first), then name, then UID.
func Compare(a, b Destination) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
}

// String is upstream Karpenter's wording of a place in its events and logs: node/NAME or
// nodeclaim/NAME; "" for no place. It is for people: no code reads it back.
func (d Destination) String() string {
	switch {
	case d.IsZero():
		return ""
	case d.Kind == Node:
		return "node/" + d.Name
	case d.Kind == NodeClaim:
		return "nodeclaim/" + d.Name
	}
	return string(d.Kind) + "/" + d.Name
}

// Object stands for the destination where an object is asked for, as an event's related
// object: a Node or a NodeClaim with its kind, name and UID only. Without a resourceVersion,
// the event's identity stays the same for as long as the destination does. Nil for no place
// or a kind it does not know.
func (d Destination) Object() runtime.Object {
	meta := metav1.ObjectMeta{Name: d.Name, UID: d.UID}
	switch {
	case d.IsZero():
		return nil
	case d.Kind == Node:
		return &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: string(Node)}, ObjectMeta: meta}
	case d.Kind == NodeClaim:
		return &karpv1.NodeClaim{TypeMeta: metav1.TypeMeta{APIVersion: karpv1.GroupVersion.String(), Kind: string(NodeClaim)}, ObjectMeta: meta}
	}
	return nil
}

// FromReference is the destination an object reference names (an event's related object):
// false when it names no Node or NodeClaim.
func FromReference(ref *corev1.ObjectReference) (Destination, bool) {
	if ref == nil || ref.Name == "" {
		return Destination{}, false
	}
	group := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).Group
	switch {
	case ref.Kind == string(Node) && group == corev1.GroupName:
		return Destination{Kind: Node, Name: ref.Name, UID: ref.UID}, true
	case ref.Kind == string(NodeClaim) && group == karpv1.Group:
		return Destination{Kind: NodeClaim, Name: ref.Name, UID: ref.UID}, true
	}
	return Destination{}, false
}
