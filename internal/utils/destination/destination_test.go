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
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/reference"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

func TestDestination(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", UID: "node-uid"}}
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-x", UID: "claim-uid"}}
	for _, c := range []struct {
		name   string
		d      Destination
		want   Destination
		text   string
		isZero bool
	}{
		{"a node", OfNode(node), Destination{Kind: Node, Name: "node-a", UID: "node-uid"}, "node/node-a", false},
		{"a NodeClaim", OfNodeClaim(nodeClaim), Destination{Kind: NodeClaim, Name: "default-x", UID: "claim-uid"}, "nodeclaim/default-x", false},
		{"a node by name", NodeNamed("node-a"), Destination{Kind: Node, Name: "node-a"}, "node/node-a", false},
		{"a NodeClaim by name", NodeClaimNamed("default-x"), Destination{Kind: NodeClaim, Name: "default-x"}, "nodeclaim/default-x", false},
		{"no place", Destination{}, Destination{}, "", true},
	} {
		if c.d != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, c.d, c.want)
		}
		if got := c.d.String(); got != c.text {
			t.Errorf("%s: String() = %q, want %q", c.name, got, c.text)
		}
		if c.d.IsZero() != c.isZero {
			t.Errorf("%s: IsZero() = %v", c.name, c.d.IsZero())
		}
	}
}

func TestSame(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b Destination
		same bool
	}{
		{"the same node", NodeNamed("a"), NodeNamed("a"), true},
		{"one UID known", Destination{Kind: Node, Name: "a", UID: "u1"}, NodeNamed("a"), true},
		{"both UIDs known and equal", Destination{Kind: Node, Name: "a", UID: "u1"}, Destination{Kind: Node, Name: "a", UID: "u1"}, true},
		{"a node made again under its name", Destination{Kind: Node, Name: "a", UID: "u1"}, Destination{Kind: Node, Name: "a", UID: "u2"}, false},
		{"another name", NodeNamed("a"), NodeNamed("b"), false},
		{"a node and a NodeClaim of one name", NodeNamed("a"), NodeClaimNamed("a"), false},
		{"the same NodeClaim", Destination{Kind: NodeClaim, Name: "x", UID: "u"}, NodeClaimNamed("x"), true},
	} {
		if got := c.a.Same(c.b); got != c.same {
			t.Errorf("%s: %v.Same(%v) = %v", c.name, c.a, c.b, got)
		}
		if got := c.b.Same(c.a); got != c.same {
			t.Errorf("%s: Same is not symmetric", c.name)
		}
		if c.a.Key() != (Destination{Kind: c.a.Kind, Name: c.a.Name}) {
			t.Errorf("%s: Key() = %+v", c.name, c.a.Key())
		}
	}
	if Compare(NodeNamed("z"), NodeClaimNamed("a")) >= 0 || Compare(NodeNamed("a"), NodeNamed("b")) >= 0 || Compare(NodeNamed("a"), NodeNamed("a")) != 0 {
		t.Error("Compare orders nodes first, then by name")
	}
}

// TestReference carries a destination through an event's related object, as the API server's
// recorder makes it from Object, and back.
func TestReference(t *testing.T) {
	for _, d := range []Destination{
		{Kind: Node, Name: "node-a", UID: "node-uid"},
		{Kind: NodeClaim, Name: "default-x", UID: "claim-uid"},
		NodeClaimNamed("default-y"),
	} {
		ref, err := reference.GetReference(nil, d.Object())
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if accessor, err := meta.Accessor(d.Object()); err != nil || accessor.GetResourceVersion() != "" {
			t.Errorf("%v: the stand-in carries a resourceVersion (%v)", d, err)
		}
		back, ok := FromReference(ref)
		if !ok || back != d {
			t.Errorf("%v: read back %+v, %v from %+v", d, back, ok, ref)
		}
	}
	for name, ref := range map[string]*corev1.ObjectReference{
		"none":              nil,
		"a pod":             {APIVersion: "v1", Kind: "Pod", Name: "web"},
		"another group's":   {APIVersion: "example.com/v1", Kind: "NodeClaim", Name: "x"},
		"a node of no name": {APIVersion: "v1", Kind: "Node"},
	} {
		if d, ok := FromReference(ref); ok {
			t.Errorf("%s: read %+v", name, d)
		}
	}
	if (Destination{}).Object() != nil || (Destination{Kind: "Pod", Name: "web"}).Object() != nil {
		t.Error("an object for no place, or for a kind that is no destination")
	}
	// Encoded in an answer, a destination is its fields.
	out, err := json.Marshal(NodeClaimNamed("x"))
	if err != nil || string(out) != `{"kind":"NodeClaim","name":"x"}` {
		t.Errorf("JSON %s, %v", out, err)
	}
}
