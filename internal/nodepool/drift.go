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

package nodepool

import (
	"fmt"
	"strings"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// Drift reasons found by comparing a NodeClaim with its NodePool; the cloud provider adds its
// own (KubernetesVersionDrift, ImageDrift, SubnetDrift, SecurityGroupDrift, NodeClassDrift).
const (
	// DriftNodePool: the NodePool's template (labels, annotations, taints, node class,
	// expireAfter, terminationGracePeriod) changed since the node was launched.
	DriftNodePool cloudprovider.DriftReason = "NodePoolDrifted"
	// DriftRequirements: the node's labels no longer satisfy the NodePool's requirements.
	DriftRequirements cloudprovider.DriftReason = "RequirementsDrifted"
)

// StaticDrift compares a launched NodeClaim with its NodePool as it is now: the template hash
// stamped at launch, then the requirements against the node's labels. It returns the reason
// and a message saying what changed, or "".
func StaticDrift(nodeClaim *karpv1.NodeClaim, np *karpv1.NodePool) (cloudprovider.DriftReason, string) {
	have, want := nodeClaim.Annotations[karpv1.NodePoolHashAnnotationKey], np.Annotations[karpv1.NodePoolHashAnnotationKey]
	if have != "" && want != "" && have != want &&
		nodeClaim.Annotations[karpv1.NodePoolHashVersionAnnotationKey] == np.Annotations[karpv1.NodePoolHashVersionAnnotationKey] {
		return DriftNodePool, fmt.Sprintf("NodePool %s's template changed since the node was launched (template hash %s, now %s)", np.Name, have, want)
	}
	reqs := scheduling.FromNodeClaimRequirements(np.Spec.Template.Spec.Requirements...)
	if err := scheduling.FromLabels(nodeClaim.Labels).Compatible(reqs); err != nil {
		return DriftRequirements, fmt.Sprintf("the node's labels no longer satisfy NodePool %s's requirements: %v", np.Name, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return "", ""
}
