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

package kakao

import (
	"fmt"
	"strings"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// SpecDriftOf is the drift of a NodeClaim from a KCNodeClass's spec (SpecDrift) with its
// message (DriftMessage), or "": what an edit of the KCNodeClass would drift before the
// controller resolves its subnets, security groups and images.
func SpecDriftOf(nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) (cloudprovider.DriftReason, string) {
	reason := SpecDrift(nodeClaim, nodeClass)
	if reason == "" {
		return "", ""
	}
	return reason, DriftMessage(reason, nodeClaim, nodeClass)
}

// DriftMessage says, for a drift reason of this provider, what differs between the VM and
// its KCNodeClass: the message of the NodeClaim's Drifted condition.
func DriftMessage(reason cloudprovider.DriftReason, nodeClaim *karpv1.NodeClaim, nodeClass *kcv1.KCNodeClass) string {
	name := nodeClaim.Spec.NodeClassRef.Name
	switch reason {
	case DriftKubernetesVersion:
		return fmt.Sprintf("the node was launched for Kubernetes %s; KCNodeClass %s now asks for %s",
			nodeClaim.Annotations[kcv1.AnnotationKubernetesVersion], name, nodeClass.Spec.Bootstrap.KubernetesVersion)
	case DriftImage:
		ids := make([]string, len(nodeClass.Status.Images))
		for i, img := range nodeClass.Status.Images {
			ids[i] = img.ID
		}
		return fmt.Sprintf("the VM's image %s is not one of KCNodeClass %s's images now (%s)", nodeClaim.Status.ImageID, name, strings.Join(ids, ", "))
	case DriftSubnet:
		ids := make([]string, len(nodeClass.Status.Subnets))
		for i, s := range nodeClass.Status.Subnets {
			ids[i] = s.ID
		}
		return fmt.Sprintf("the VM's subnet %s is not one of KCNodeClass %s's subnets now (%s)", nodeClaim.Annotations[kcv1.AnnotationSubnetID], name, strings.Join(ids, ", "))
	case DriftSecurityGroup:
		names := make([]string, len(nodeClass.Status.SecurityGroups))
		for i, sg := range nodeClass.Status.SecurityGroups {
			names[i] = sg.Name
		}
		return fmt.Sprintf("the VM's security groups differ from KCNodeClass %s's (%s)", name, strings.Join(names, ", "))
	case DriftNodeClass:
		return fmt.Sprintf("KCNodeClass %s's key pair, root volume, kubelet settings or user data changed since the node was launched (hash %s, now %s)",
			name, nodeClaim.Annotations[kcv1.AnnotationNodeClassHash], nodeClass.Annotations[kcv1.AnnotationNodeClassHash])
	}
	return fmt.Sprintf("the VM no longer matches KCNodeClass %s (%s)", name, reason)
}
