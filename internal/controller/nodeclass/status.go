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

package nodeclass

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/version"
)

// observation is what the reconciler read from KakaoCloud for one KCNodeClass. A nil or
// empty field with its error set means the read failed.
type observation struct {
	cluster    *kakaocloud.Cluster
	clusterErr error

	versions    []kakaocloud.KubernetesVersion
	versionsErr error

	images    []kakaocloud.NodeImage
	imagesErr error

	pinnedImage    *kakaocloud.Image
	pinnedImageErr error

	subnets        []kcv1.Subnet
	missingSubnets []string
	subnetsErr     error

	securityGroups        []kcv1.SecurityGroup
	missingSecurityGroups []string
	securityGroupsErr     error

	// signingKeys counts the node class's NodeClaims by the key that signed their VM, and
	// nodeVersions by the Kubernetes minor version of their node.
	signingKeys   map[string]int32
	nodeVersions  map[string]int32
	nodeClaimsErr error
}

// computeStatus derives a KCNodeClass's status from what was observed. It is pure: the same
// node class and observation always give the same status.
func computeStatus(nodeClass *kcv1.KCNodeClass, obs observation) kcv1.KCNodeClassStatus {
	prev := nodeClass.Status
	status := kcv1.KCNodeClassStatus{
		KubernetesVersion: nodeClass.Spec.Bootstrap.KubernetesVersion,
		Conditions:        slices.Clone(prev.Conditions),
	}
	set := func(t string, s metav1.ConditionStatus, reason, message string) {
		conditions.Set(&status.Conditions, nodeClass.Generation, metav1.Condition{Type: t, Status: s, Reason: reason, Message: message})
	}

	if obs.cluster != nil {
		status.ControlPlaneVersion = obs.cluster.Version.MinorVersion
	} else {
		status.ControlPlaneVersion = prev.ControlPlaneVersion
	}
	upgrading := obs.cluster != nil && ControlPlaneUpgrading(*obs.cluster)

	// KubernetesVersionReady: the worker version is within the skew the control plane allows.
	worker := nodeClass.Spec.Bootstrap.KubernetesVersion
	switch {
	case obs.cluster == nil:
		set(kcv1.ConditionTypeKubernetesVersionReady, metav1.ConditionUnknown, kcv1.ReasonClusterUnavailable,
			fmt.Sprintf("cannot read the Kubernetes Engine cluster: %v", obs.clusterErr))
	case upgrading:
		set(kcv1.ConditionTypeKubernetesVersionReady, metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading,
			fmt.Sprintf("the control plane is being upgraded (phase %s); new nodes wait until the cluster is stable", obs.cluster.Status.Phase))
	default:
		allowed, _ := AllowedWorkerVersions(status.ControlPlaneVersion)
		if slices.Contains(allowed, worker) {
			set(kcv1.ConditionTypeKubernetesVersionReady, metav1.ConditionTrue, kcv1.ReasonVersionSupported,
				fmt.Sprintf("worker version %s is supported by control plane %s", worker, status.ControlPlaneVersion))
		} else {
			set(kcv1.ConditionTypeKubernetesVersionReady, metav1.ConditionFalse, kcv1.ReasonVersionSkewUnsupported,
				fmt.Sprintf("worker version %s is outside the allowed skew of control plane %s: allowed versions are %s",
					worker, status.ControlPlaneVersion, strings.Join(allowed, ", ")))
		}
	}

	// KubernetesVersionDeprecated: informational, Ready does not depend on it.
	switch {
	case obs.versionsErr != nil:
		// Keep what was known.
	case Offered(obs.versions, worker):
		set(kcv1.ConditionTypeKubernetesVersionDeprecated, metav1.ConditionFalse, kcv1.ReasonWorkerVersionOffered,
			fmt.Sprintf("Kubernetes Engine offers %s", worker))
	default:
		set(kcv1.ConditionTypeKubernetesVersionDeprecated, metav1.ConditionTrue, kcv1.ReasonWorkerVersionNotOffered,
			fmt.Sprintf("Kubernetes Engine no longer offers %s; existing and new nodes keep working, but plan a change to one of %s",
				worker, strings.Join(OfferedVersions(obs.versions), ", ")))
	}

	status.Images = imagesStatus(nodeClass, obs, upgrading, set)
	status.Subnets, status.SecurityGroups = obs.subnets, obs.securityGroups
	if obs.subnetsErr != nil {
		status.Subnets = prev.Subnets
	}
	if obs.securityGroupsErr != nil {
		status.SecurityGroups = prev.SecurityGroups
	}
	status.SigningKeys, status.NodeVersions = signingKeysStatus(obs.signingKeys), nodeVersionsStatus(obs.nodeVersions)
	if obs.nodeClaimsErr != nil {
		status.SigningKeys, status.NodeVersions = prev.SigningKeys, prev.NodeVersions
	}
	nodesOnControlPlaneVersion(nodeClass, status, obs.nodeClaimsErr, set)
	setResolved(set, kcv1.ConditionTypeSubnetsReady, "subnet", obs.subnetsErr, obs.missingSubnets,
		kcv1.ReasonSubnetsResolved, kcv1.ReasonSubnetsNotFound, len(obs.subnets))
	setResolved(set, kcv1.ConditionTypeSecurityGroupsReady, "security group", obs.securityGroupsErr, obs.missingSecurityGroups,
		kcv1.ReasonSecurityGroupsResolved, kcv1.ReasonSecurityGroupsNotFound, len(obs.securityGroups))

	conditions.SetReady(&status.Conditions, nodeClass.Generation, metav1.Condition{
		Type: kcv1.ConditionTypeReady, Reason: kcv1.ReasonReady, Message: "the node class can launch nodes",
	}, kcv1.ReadyDependencies...)
	return status
}

// imagesStatus resolves the images and sets ImagesReady. Images resolved earlier for the same
// version are retained when the lookup fails, and the retention is sticky: it ends only when
// the version changes or an image is pinned, so that a flapping lookup never flips the
// images nodes launch from.
func imagesStatus(nodeClass *kcv1.KCNodeClass, obs observation, upgrading bool, set func(string, metav1.ConditionStatus, string, string)) []kcv1.Image {
	prev := nodeClass.Status
	worker := nodeClass.Spec.Bootstrap.KubernetesVersion

	if id := nodeClass.Spec.ImageID; id != "" {
		if obs.pinnedImage == nil {
			set(kcv1.ConditionTypeImagesReady, metav1.ConditionFalse, kcv1.ReasonImagesNotFound,
				fmt.Sprintf("pinned image %s cannot be used: %v", id, obs.pinnedImageErr))
			return nil
		}
		set(kcv1.ConditionTypeImagesReady, metav1.ConditionTrue, kcv1.ReasonImagePinned, fmt.Sprintf("using pinned image %s", id))
		return []kcv1.Image{{ID: obs.pinnedImage.ID, Name: obs.pinnedImage.Name, Architecture: obs.pinnedImage.OSInfo.Architecture, KubernetesVersion: worker}}
	}

	sameVersion := prev.KubernetesVersion == worker && len(prev.Images) > 0
	retained := meta.FindStatusCondition(prev.Conditions, kcv1.ConditionTypeImagesReady)
	if sameVersion && retained != nil && retained.Reason == kcv1.ReasonImagesRetained {
		set(kcv1.ConditionTypeImagesReady, metav1.ConditionTrue, kcv1.ReasonImagesRetained, retained.Message)
		return prev.Images
	}
	if upgrading {
		set(kcv1.ConditionTypeImagesReady, metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading,
			"the control plane is being upgraded; worker images are resolved again once the cluster is stable")
		return prev.Images
	}
	if obs.imagesErr == nil && len(obs.images) > 0 {
		images := make([]kcv1.Image, 0, len(obs.images))
		for _, i := range obs.images {
			images = append(images, kcv1.Image{ID: i.ID, Name: i.Name, Architecture: i.Architecture, GPU: i.IsGPUType, KubernetesVersion: i.K8sVersion})
		}
		set(kcv1.ConditionTypeImagesReady, metav1.ConditionTrue, kcv1.ReasonImagesResolved,
			fmt.Sprintf("%d worker images for Kubernetes %s", len(images), worker))
		return images
	}
	why := "Kubernetes Engine offers none"
	if obs.imagesErr != nil {
		why = obs.imagesErr.Error()
	}
	if sameVersion {
		set(kcv1.ConditionTypeImagesReady, metav1.ConditionTrue, kcv1.ReasonImagesRetained,
			fmt.Sprintf("worker images for Kubernetes %s cannot be looked up (%s); keeping the %d images resolved before. Change bootstrap.kubernetesVersion to a supported version or set spec.imageID to clear this",
				worker, why, len(prev.Images)))
		return prev.Images
	}
	set(kcv1.ConditionTypeImagesReady, metav1.ConditionFalse, kcv1.ReasonImagesNotFound,
		fmt.Sprintf("no worker images for Kubernetes %s: %s", worker, why))
	return nil
}

func setResolved(set func(string, metav1.ConditionStatus, string, string), condition, what string, err error, missing []string, okReason, missingReason string, found int) {
	switch {
	case err != nil:
		set(condition, metav1.ConditionUnknown, missingReason, fmt.Sprintf("cannot look up %ss: %v", what, err))
	case len(missing) > 0:
		set(condition, metav1.ConditionFalse, missingReason, fmt.Sprintf("%s(s) not found: %s", what, strings.Join(missing, ", ")))
	default:
		set(condition, metav1.ConditionTrue, okReason, fmt.Sprintf("%d %s(s) resolved", found, what))
	}
}

// nodesOnControlPlaneVersion says whether every node of the class is on the control plane's
// minor version: Kubernetes Engine refuses to upgrade the control plane otherwise (SPEC S24),
// so this is what an operator checks before an upgrade. Informational: Ready does not depend
// on it.
func nodesOnControlPlaneVersion(nodeClass *kcv1.KCNodeClass, status kcv1.KCNodeClassStatus, countErr error, set func(string, metav1.ConditionStatus, string, string)) {
	controlPlane := status.ControlPlaneVersion
	switch {
	case countErr != nil:
		set(kcv1.ConditionTypeNodesOnControlPlaneVersion, metav1.ConditionUnknown, kcv1.ReasonNodeVersionsUnknown,
			fmt.Sprintf("cannot count the node class's nodes: %v", countErr))
		return
	case controlPlane == "":
		set(kcv1.ConditionTypeNodesOnControlPlaneVersion, metav1.ConditionUnknown, kcv1.ReasonClusterUnavailable,
			"the control plane's version is not known yet")
		return
	}
	var total, off int32
	var others []string
	for _, v := range status.NodeVersions {
		total += v.NodeClaims
		if v.Version != controlPlane {
			off += v.NodeClaims
			others = append(others, fmt.Sprintf("%d on %s", v.NodeClaims, v.Version))
		}
	}
	if off == 0 {
		set(kcv1.ConditionTypeNodesOnControlPlaneVersion, metav1.ConditionTrue, kcv1.ReasonAllNodesOnControlPlaneVersion,
			fmt.Sprintf("all %d nodes are on %s, the control plane's minor version", total, controlPlane))
		return
	}
	next := "they are replaced as they drift, within the NodePools' disruption budgets"
	if worker := nodeClass.Spec.Bootstrap.KubernetesVersion; worker != controlPlane {
		next = fmt.Sprintf("set spec.bootstrap.kubernetesVersion to %s (it is %s) to replace them by drift", controlPlane, worker)
	}
	set(kcv1.ConditionTypeNodesOnControlPlaneVersion, metav1.ConditionFalse, kcv1.ReasonNodesOffControlPlaneVersion,
		fmt.Sprintf("%d of %d nodes are not on %s, the control plane's minor version (%s), and Kubernetes Engine refuses a control-plane upgrade until they are: %s",
			off, total, controlPlane, strings.Join(others, ", "), next))
}

// nodeVersionsStatus lists the counts by version, oldest first.
func nodeVersionsStatus(counts map[string]int32) []kcv1.NodeVersionCount {
	versions := slices.Collect(maps.Keys(counts))
	slices.SortFunc(versions, version.CompareMinor)
	var out []kcv1.NodeVersionCount
	for _, v := range versions {
		out = append(out, kcv1.NodeVersionCount{Version: v, NodeClaims: counts[v]})
	}
	return out
}

// signingKeysStatus lists the keys in use, by key id.
func signingKeysStatus(counts map[string]int32) []kcv1.SigningKeyUse {
	var uses []kcv1.SigningKeyUse
	for _, id := range slices.Sorted(maps.Keys(counts)) {
		uses = append(uses, kcv1.SigningKeyUse{KeyID: id, NodeClaims: counts[id]})
	}
	return uses
}
