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

package explain

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/nodepool"
)

// Drift is one NodeClaim an edit would drift.
type Drift struct {
	NodeClaim string `json:"nodeClaim"`
	Node      string `json:"node,omitempty"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
}

// NodeClassDrift is the cloud provider's drift of a NodeClaim from an edited KCNodeClass's
// spec, with its message, or "": given by the operator's wiring, as the KakaoCloud provider's
// rule (kakao.SpecDriftOf), so that this package reads no cloud provider's implementation.
type NodeClassDrift func(nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) (cloudprovider.DriftReason, string)

// Drifts are the NodeClaims an edited *karpv1.NodePool or *kcv1.KCNodeClass would drift once
// applied, by name, with the reason and message the operator would write in their Drifted
// condition; unchanged counts the edited object's other NodeClaims; notes say what cannot be
// known before the edit is applied. NodeClaims being deleted are left out.
func Drifts(claims []*karpv1.NodeClaim, edited client.Object, nodeClassDrift NodeClassDrift) (drifts []Drift, unchanged int, notes []string, err error) {
	var drift func(*karpv1.NodeClaim) (string, string, bool)
	switch edited := edited.(type) {
	case *karpv1.NodePool:
		edited = stamped(edited)
		drift = func(nodeClaim *karpv1.NodeClaim) (string, string, bool) {
			if nodeClaim.Labels[karpv1.LabelNodePool] != edited.Name {
				return "", "", false
			}
			reason, message := nodepool.StaticDrift(nodeClaim, edited)
			return string(reason), message, true
		}
	case *kcv1.KCNodeClass:
		edited = edited.DeepCopy()
		// As the KCNodeClass controller stamps it once applied.
		metav1.SetMetaDataAnnotation(&edited.ObjectMeta, kcv1.AnnotationNodeClassHash, edited.StaticHash())
		metav1.SetMetaDataAnnotation(&edited.ObjectMeta, kcv1.AnnotationNodeClassHashVersion, kcv1.NodeClassHashVersion)
		notes = append(notes, "a change of subnets, security groups or images drifts nodes only once the KCNodeClass controller resolves it, which this answer cannot do")
		drift = func(nodeClaim *karpv1.NodeClaim) (string, string, bool) {
			if nodeClaim.Spec.NodeClassRef == nil || nodeClaim.Spec.NodeClassRef.Name != edited.Name {
				return "", "", false
			}
			reason, message := nodeClassDrift(nodeClaim, edited)
			return string(reason), message, true
		}
	default:
		return nil, 0, nil, fmt.Errorf("an edit is of a NodePool or a KCNodeClass, not a %T", edited)
	}
	for _, nodeClaim := range claims {
		if !nodeClaim.DeletionTimestamp.IsZero() {
			continue
		}
		reason, message, ours := drift(nodeClaim)
		switch {
		case !ours:
		case reason == "":
			unchanged++
		default:
			drifts = append(drifts, Drift{NodeClaim: nodeClaim.Name, Node: nodeClaim.Status.NodeName, Reason: reason, Message: message})
		}
	}
	slices.SortFunc(drifts, func(a, b Drift) int { return strings.Compare(a.NodeClaim, b.NodeClaim) })
	return drifts, unchanged, notes, nil
}

// stamped is the NodePool with the template hash the NodePool controller stamps once it is
// applied.
func stamped(np *karpv1.NodePool) *karpv1.NodePool {
	np = np.DeepCopy()
	metav1.SetMetaDataAnnotation(&np.ObjectMeta, karpv1.NodePoolHashAnnotationKey, nodepool.Hash(np))
	metav1.SetMetaDataAnnotation(&np.ObjectMeta, karpv1.NodePoolHashVersionAnnotationKey, nodepool.HashVersion)
	return np
}

// Decode reads the object of a question from YAML or JSON: an edited NodePool or KCNodeClass,
// or a Pod.
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
	case corev1.SchemeGroupVersion.WithKind("Pod"):
		obj = &corev1.Pod{}
	default:
		return nil, fmt.Errorf("whatif reads a %s NodePool, a %s KCNodeClass or a v1 Pod, not %s %s", karpv1.GroupVersion, kcv1.GroupVersion, meta.APIVersion, meta.Kind)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		return nil, fmt.Errorf("reading the %s: %w", meta.Kind, err)
	}
	if _, pod := obj.(*corev1.Pod); !pod && obj.GetName() == "" {
		return nil, fmt.Errorf("the %s has no metadata.name", meta.Kind)
	}
	return obj, nil
}
