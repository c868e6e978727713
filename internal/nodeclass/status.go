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

// Observation is what was read for one KCNodeClass (Reader.Observe reads it): Kubernetes
// Engine's cluster and versions, the worker images, the subnets and security groups its
// selector terms select, and its NodeClaims. A nil or empty field with its error set means the
// read failed.
type Observation struct {
	Cluster    *kakaocloud.Cluster
	ClusterErr error

	Versions    []kakaocloud.KubernetesVersion
	VersionsErr error

	Images    []kakaocloud.NodeImage
	ImagesErr error

	PinnedImage    *kakaocloud.Image
	PinnedImageErr error

	Subnets        []kcv1.Subnet
	MissingSubnets []string
	SubnetsErr     error

	SecurityGroups        []kcv1.SecurityGroup
	MissingSecurityGroups []string
	SecurityGroupsErr     error

	// SigningKeys counts the node class's NodeClaims by the key that signed their VM, and
	// NodeVersions by the Kubernetes minor version of their node.
	SigningKeys   map[string]int32
	NodeVersions  map[string]int32
	NodeClaimsErr error
}

// Result is everything Evaluate decided about a KCNodeClass: its status, the problem
// conditions that turned on (each published as an event), and what the node class's gauges
// read.
type Result struct {
	Status kcv1.KCNodeClassStatus
	// TurnedOn are the conditions users must act on that turned on, in Announced's order.
	TurnedOn []TurnedOn
	// VersionSkew is the control plane's minor minus the worker's; nil when either is not
	// known.
	VersionSkew *int
	// VersionDeprecated: Kubernetes Engine no longer offers the worker version.
	VersionDeprecated bool
	// ImagesRetained: earlier worker images are kept because the current ones cannot be
	// looked up.
	ImagesRetained bool
}

// TurnedOn is a problem condition that turned on: its type, and the reason and message it
// turned on with.
type TurnedOn struct {
	Condition string
	Reason    string
	Message   string
}

// Announced are the conditions, with the reason, that users must act on: each is announced
// when it turns on (newly set, or its reason or status changed).
var Announced = []struct{ Condition, Reason string }{
	{kcv1.ConditionTypeKubernetesVersionDeprecated, kcv1.ReasonWorkerVersionNotOffered},
	{kcv1.ConditionTypeImagesReady, kcv1.ReasonImagesRetained},
	{kcv1.ConditionTypeKubernetesVersionReady, kcv1.ReasonVersionSkewUnsupported},
	{kcv1.ConditionTypeImagesReady, kcv1.ReasonImagesNotFound},
	{kcv1.ConditionTypeSubnetsReady, kcv1.ReasonSubnetsNotFound},
	{kcv1.ConditionTypeSecurityGroupsReady, kcv1.ReasonSecurityGroupsNotFound},
}

// Evaluate decides a KCNodeClass's status from what was observed, the node class's current
// status being the one before. It is pure: the same node class and observation always give
// the same result.
func Evaluate(nodeClass *kcv1.KCNodeClass, obs Observation) Result {
	r := Result{Status: computeStatus(nodeClass, obs)}
	r.TurnedOn = turnedOn(nodeClass.Status, r.Status)
	if skew, err := VersionSkew(r.Status.ControlPlaneVersion, nodeClass.Spec.Bootstrap.KubernetesVersion); err == nil {
		r.VersionSkew = &skew
	}
	r.VersionDeprecated = meta.IsStatusConditionTrue(r.Status.Conditions, kcv1.ConditionTypeKubernetesVersionDeprecated)
	images := meta.FindStatusCondition(r.Status.Conditions, kcv1.ConditionTypeImagesReady)
	r.ImagesRetained = images != nil && images.Status == metav1.ConditionTrue && images.Reason == kcv1.ReasonImagesRetained
	return r
}

// turnedOn lists the announced conditions that turned on from before to after.
func turnedOn(before, after kcv1.KCNodeClassStatus) []TurnedOn {
	var on []TurnedOn
	for _, a := range Announced {
		now := meta.FindStatusCondition(after.Conditions, a.Condition)
		if now == nil || now.Reason != a.Reason {
			continue
		}
		if was := meta.FindStatusCondition(before.Conditions, a.Condition); was == nil || was.Reason != a.Reason || was.Status != now.Status {
			on = append(on, TurnedOn{Condition: a.Condition, Reason: a.Reason, Message: now.Message})
		}
	}
	return on
}

// computeStatus derives a KCNodeClass's status from what was observed.
func computeStatus(nodeClass *kcv1.KCNodeClass, obs Observation) kcv1.KCNodeClassStatus {
	prev := nodeClass.Status
	status := kcv1.KCNodeClassStatus{
		KubernetesVersion: nodeClass.Spec.Bootstrap.KubernetesVersion,
		Conditions:        slices.Clone(prev.Conditions),
	}
	set := func(t string, s metav1.ConditionStatus, reason, message string) {
		conditions.Set(&status.Conditions, nodeClass.Generation, metav1.Condition{Type: t, Status: s, Reason: reason, Message: message})
	}

	if obs.Cluster != nil {
		status.ControlPlaneVersion = obs.Cluster.Version.MinorVersion
	} else {
		status.ControlPlaneVersion = prev.ControlPlaneVersion
	}
	upgrading := obs.Cluster != nil && ControlPlaneUpgrading(*obs.Cluster)

	// KubernetesVersionReady: the worker version is within the skew the control plane allows.
	worker := nodeClass.Spec.Bootstrap.KubernetesVersion
	switch {
	case obs.Cluster == nil:
		set(kcv1.ConditionTypeKubernetesVersionReady, metav1.ConditionUnknown, kcv1.ReasonClusterUnavailable,
			fmt.Sprintf("cannot read the Kubernetes Engine cluster: %v", obs.ClusterErr))
	case upgrading:
		set(kcv1.ConditionTypeKubernetesVersionReady, metav1.ConditionFalse, kcv1.ReasonControlPlaneUpgrading,
			fmt.Sprintf("the control plane is being upgraded (phase %s); new nodes wait until the cluster is stable", obs.Cluster.Status.Phase))
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
	case obs.VersionsErr != nil:
		// Keep what was known.
	case Offered(obs.Versions, worker):
		set(kcv1.ConditionTypeKubernetesVersionDeprecated, metav1.ConditionFalse, kcv1.ReasonWorkerVersionOffered,
			fmt.Sprintf("Kubernetes Engine offers %s", worker))
	default:
		set(kcv1.ConditionTypeKubernetesVersionDeprecated, metav1.ConditionTrue, kcv1.ReasonWorkerVersionNotOffered,
			fmt.Sprintf("Kubernetes Engine no longer offers %s; existing and new nodes keep working, but plan a change to one of %s",
				worker, strings.Join(OfferedVersions(obs.Versions), ", ")))
	}

	status.Images = imagesStatus(nodeClass, obs, upgrading, set)
	status.Subnets, status.SecurityGroups = obs.Subnets, obs.SecurityGroups
	if obs.SubnetsErr != nil {
		status.Subnets = prev.Subnets
	}
	if obs.SecurityGroupsErr != nil {
		status.SecurityGroups = prev.SecurityGroups
	}
	status.SigningKeys, status.NodeVersions = signingKeysStatus(obs.SigningKeys), nodeVersionsStatus(obs.NodeVersions)
	if obs.NodeClaimsErr != nil {
		status.SigningKeys, status.NodeVersions = prev.SigningKeys, prev.NodeVersions
	}
	nodesOnControlPlaneVersion(nodeClass, status, obs.NodeClaimsErr, set)
	setResolved(set, kcv1.ConditionTypeSubnetsReady, "subnet", obs.SubnetsErr, obs.MissingSubnets,
		kcv1.ReasonSubnetsResolved, kcv1.ReasonSubnetsNotFound, len(obs.Subnets))
	setResolved(set, kcv1.ConditionTypeSecurityGroupsReady, "security group", obs.SecurityGroupsErr, obs.MissingSecurityGroups,
		kcv1.ReasonSecurityGroupsResolved, kcv1.ReasonSecurityGroupsNotFound, len(obs.SecurityGroups))

	conditions.SetReady(&status.Conditions, nodeClass.Generation, metav1.Condition{
		Type: kcv1.ConditionTypeReady, Reason: kcv1.ReasonReady, Message: "the node class can launch nodes",
	}, kcv1.ReadyDependencies...)
	return status
}

// imagesStatus resolves the images and sets ImagesReady. Images resolved earlier for the same
// version are retained when the lookup fails, and the retention is sticky: it ends only when
// the version changes or an image is pinned, so that a flapping lookup never flips the
// images nodes launch from.
func imagesStatus(nodeClass *kcv1.KCNodeClass, obs Observation, upgrading bool, set func(string, metav1.ConditionStatus, string, string)) []kcv1.Image {
	prev := nodeClass.Status
	worker := nodeClass.Spec.Bootstrap.KubernetesVersion

	if id := nodeClass.Spec.ImageID; id != "" {
		if obs.PinnedImage == nil {
			set(kcv1.ConditionTypeImagesReady, metav1.ConditionFalse, kcv1.ReasonImagesNotFound,
				fmt.Sprintf("pinned image %s cannot be used: %v", id, obs.PinnedImageErr))
			return nil
		}
		set(kcv1.ConditionTypeImagesReady, metav1.ConditionTrue, kcv1.ReasonImagePinned, fmt.Sprintf("using pinned image %s", id))
		return []kcv1.Image{{ID: obs.PinnedImage.ID, Name: obs.PinnedImage.Name, Architecture: obs.PinnedImage.OSInfo.Architecture, KubernetesVersion: worker}}
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
	if obs.ImagesErr == nil && len(obs.Images) > 0 {
		images := make([]kcv1.Image, 0, len(obs.Images))
		for _, i := range obs.Images {
			images = append(images, kcv1.Image{ID: i.ID, Name: i.Name, Architecture: i.Architecture, GPU: i.IsGPUType, KubernetesVersion: i.K8sVersion})
		}
		set(kcv1.ConditionTypeImagesReady, metav1.ConditionTrue, kcv1.ReasonImagesResolved,
			fmt.Sprintf("%d worker images for Kubernetes %s", len(images), worker))
		return images
	}
	why := "Kubernetes Engine offers none"
	if obs.ImagesErr != nil {
		why = obs.ImagesErr.Error()
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
