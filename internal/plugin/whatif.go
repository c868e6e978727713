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
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	nodeclaimdisruption "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodepool"
)

// WhatIfAnswer is what applying an edited NodePool or KCNodeClass would do to the nodes.
type WhatIfAnswer struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Drifts are the NodeClaims the edit would drift, by name, with the drift reason and what
	// changed, as the operator would write them in their Drifted condition.
	Drifts []Drift `json:"drifts"`
	// Unchanged counts the NodeClaims the edit leaves as they are.
	Unchanged int `json:"unchanged"`
	// Notes say what the answer cannot know before the edit is applied.
	Notes []string `json:"notes,omitempty"`
}

// Drift is one NodeClaim an edit would drift.
type Drift struct {
	NodeClaim string `json:"nodeClaim"`
	Node      string `json:"node,omitempty"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
}

// WhatIf answers for an edited object: a *karpv1.NodePool or a *kcv1.KCNodeClass.
func WhatIf(ctx context.Context, reader client.Reader, edited client.Object) (*WhatIfAnswer, error) {
	claims := &karpv1.NodeClaimList{}
	if err := reader.List(ctx, claims); err != nil {
		return nil, err
	}
	var answer *WhatIfAnswer
	var drift func(*karpv1.NodeClaim) (string, string, bool)
	switch edited := edited.(type) {
	case *karpv1.NodePool:
		edited = edited.DeepCopy()
		// As the NodePool controller stamps it once applied.
		metav1.SetMetaDataAnnotation(&edited.ObjectMeta, karpv1.NodePoolHashAnnotationKey, nodepool.Hash(edited))
		metav1.SetMetaDataAnnotation(&edited.ObjectMeta, karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion)
		answer = &WhatIfAnswer{Kind: "NodePool", Name: edited.Name, Notes: []string{
			"new launches and their cost are not computed here: they need the operator's instance types",
		}}
		drift = func(nodeClaim *karpv1.NodeClaim) (string, string, bool) {
			if nodeClaim.Labels[karpv1.LabelNodePool] != edited.Name {
				return "", "", false
			}
			reason, message := nodeclaimdisruption.StaticDrift(nodeClaim, edited)
			return string(reason), message, true
		}
	case *kcv1.KCNodeClass:
		edited = edited.DeepCopy()
		// As the KCNodeClass controller stamps it once applied.
		metav1.SetMetaDataAnnotation(&edited.ObjectMeta, kcv1.AnnotationNodeClassHash, edited.StaticHash())
		metav1.SetMetaDataAnnotation(&edited.ObjectMeta, kcv1.AnnotationNodeClassHashVersion, kcv1.NodeClassHashVersion)
		answer = &WhatIfAnswer{Kind: "KCNodeClass", Name: edited.Name, Notes: []string{
			"a change of subnets, security groups or images drifts nodes only once the KCNodeClass controller resolves it, which this answer cannot do",
		}}
		drift = func(nodeClaim *karpv1.NodeClaim) (string, string, bool) {
			if nodeClaim.Spec.NodeClassRef == nil || nodeClaim.Spec.NodeClassRef.Name != edited.Name {
				return "", "", false
			}
			reason := kakao.SpecDrift(nodeClaim, edited)
			if reason == "" {
				return "", "", true
			}
			return string(reason), nodeclaimdisruption.CloudDriftMessage(reason, nodeClaim, edited), true
		}
	default:
		return nil, fmt.Errorf("whatif answers for a NodePool or a KCNodeClass, not a %T", edited)
	}
	for i := range claims.Items {
		nodeClaim := &claims.Items[i]
		if !nodeClaim.DeletionTimestamp.IsZero() {
			continue
		}
		reason, message, ours := drift(nodeClaim)
		switch {
		case !ours:
		case reason == "":
			answer.Unchanged++
		default:
			answer.Drifts = append(answer.Drifts, Drift{NodeClaim: nodeClaim.Name, Node: nodeClaim.Status.NodeName, Reason: reason, Message: message})
		}
	}
	slices.SortFunc(answer.Drifts, func(a, b Drift) int { return strings.Compare(a.NodeClaim, b.NodeClaim) })
	return answer, nil
}

// Decode reads an edited NodePool or KCNodeClass from YAML or JSON.
func Decode(data []byte) (client.Object, error) {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(data, &meta); err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	var obj client.Object
	switch meta.GroupVersionKind() {
	case karpv1.GroupVersion.WithKind("NodePool"):
		obj = &karpv1.NodePool{}
	case kcv1.GroupVersion.WithKind("KCNodeClass"):
		obj = &kcv1.KCNodeClass{}
	default:
		return nil, fmt.Errorf("whatif reads a %s NodePool or a %s KCNodeClass, not %s %s", karpv1.GroupVersion, kcv1.GroupVersion, meta.APIVersion, meta.Kind)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		return nil, fmt.Errorf("reading the %s: %w", meta.Kind, err)
	}
	if obj.GetName() == "" {
		return nil, fmt.Errorf("the %s has no metadata.name", meta.Kind)
	}
	return obj, nil
}
