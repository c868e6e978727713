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

package v1

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Well-known label keys. The topology, instance-type, arch and os keys are the Kubernetes ones;
// the karpenter.sh keys are Karpenter's own.
const (
	LabelNodePool        = Group + "/nodepool"
	LabelCapacityType    = Group + "/capacity-type"
	LabelInitialized     = Group + "/initialized"
	LabelRegistered      = Group + "/registered"
	LabelDoNotSyncTaints = Group + "/do-not-sync-taints"

	LabelTopologyZone   = corev1.LabelTopologyZone
	LabelTopologyRegion = corev1.LabelTopologyRegion
	LabelInstanceType   = corev1.LabelInstanceTypeStable
	LabelArch           = corev1.LabelArchStable
	LabelOS             = corev1.LabelOSStable
	LabelWindowsBuild   = corev1.LabelWindowsBuild
	LabelHostname       = corev1.LabelHostname
)

// Values of the karpenter.sh/capacity-type label.
const (
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeSpot     = "spot"
	CapacityTypeReserved = "reserved"
)

// Annotation keys.
const (
	DoNotDisruptAnnotationKey = Group + "/do-not-disrupt"
	// DisruptionCostAnnotationKey on a pod is the int32 cost of evicting it: consolidation
	// prefers nodes whose pods cost less to move.
	DisruptionCostAnnotationKey = Group + "/disruption-cost"
	// DoNotRepairAnnotationKey "true" on a node or its NodeClaim vetoes node repair of it,
	// whatever its repair policy's drain bound, as upstream Karpenter v1.15's does.
	DoNotRepairAnnotationKey                   = Group + "/do-not-repair"
	NodePoolHashAnnotationKey                  = Group + "/nodepool-hash"
	NodePoolHashVersionAnnotationKey           = Group + "/nodepool-hash-version"
	NodeClaimTerminationTimestampAnnotationKey = Group + "/nodeclaim-termination-timestamp"
	NodeClaimMinValuesRelaxedAnnotationKey     = Group + "/nodeclaim-min-values-relaxed"
)

// TerminationFinalizer is placed on NodeClaims and Nodes so that the VM behind them is
// deleted before the objects go away.
const TerminationFinalizer = Group + "/termination"

// Label domains. Keys in a restricted domain (Karpenter's, and each cloud provider's once it
// registers its keys) may not be set by users unless they are well-known. The kubernetes.io
// and k8s.io domains are not restricted, as in upstream Karpenter: keys there that the kubelet
// may not set itself are set by the controller when the node registers.
var (
	RestrictedLabelDomains = sets.New(
		Group,
	)
	// WellKnownLabels are keys that NodePool requirements and pod scheduling constraints may
	// use and that the scheduler can reason about. Cloud providers add their own keys with
	// RegisterWellKnownLabels.
	WellKnownLabels = sets.New(
		LabelNodePool,
		LabelTopologyZone,
		LabelTopologyRegion,
		LabelInstanceType,
		LabelArch,
		LabelOS,
		LabelCapacityType,
		LabelWindowsBuild,
	)
	// RestrictedLabels may never be set through a NodePool: the controller owns them.
	RestrictedLabels = sets.New(
		LabelHostname,
		LabelNodePool,
	)
	// NormalizedLabels maps deprecated aliases to the key the scheduler uses.
	NormalizedLabels = map[string]string{
		corev1.LabelFailureDomainBetaZone:   LabelTopologyZone,
		corev1.LabelFailureDomainBetaRegion: LabelTopologyRegion,
		"beta.kubernetes.io/arch":           LabelArch,
		"beta.kubernetes.io/os":             LabelOS,
		corev1.LabelInstanceType:            LabelInstanceType,
	}
)

// RegisterWellKnownLabels makes a cloud provider's label keys schedulable and lets users
// constrain them; the provider's domain becomes restricted for anything else.
func RegisterWellKnownLabels(domain string, keys ...string) {
	RestrictedLabelDomains.Insert(domain)
	WellKnownLabels.Insert(keys...)
}

// LabelDomain returns the prefix of a qualified label key ("" when it has none).
func LabelDomain(key string) string {
	if before, _, ok := strings.Cut(key, "/"); ok {
		return before
	}
	return ""
}

// IsRestrictedLabel reports whether a user may not set this label key on a NodePool template
// or use it in a requirement. It mirrors the CEL rules in the CRDs for code paths that do not
// go through the API server (tests, the scheduler).
func IsRestrictedLabel(key string) bool {
	if WellKnownLabels.Has(key) && !RestrictedLabels.Has(key) {
		return false
	}
	if RestrictedLabels.Has(key) {
		return true
	}
	domain := LabelDomain(key)
	for restricted := range RestrictedLabelDomains {
		if domain == restricted || strings.HasSuffix(domain, "."+restricted) {
			return true
		}
	}
	return false
}
