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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePoolSpec is the policy for the nodes a NodePool may launch in response to pods that
// cannot be scheduled, and for how they may be disrupted later.
// +kubebuilder:validation:XValidation:rule="has(self.replicas) == has(oldSelf.replicas)",message="a NodePool cannot switch between static (replicas set) and dynamic (replicas unset) provisioning"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.limits) || size(self.limits) == 0 || (size(self.limits) == 1 && 'nodes' in self.limits)",message="only 'limits.nodes' is supported on static NodePools"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.weight)",message="'weight' is not supported on static NodePools"
type NodePoolSpec struct {
	// template describes the NodeClaims this NodePool launches. Launched NodeClaims are often
	// constrained further than the template by the pods they are launched for.
	// +required
	Template NodeClaimTemplate `json:"template"`
	// disruption says when and how fast nodes of this NodePool may be disrupted.
	// +kubebuilder:default:={consolidateAfter: "0s"}
	// +optional
	Disruption Disruption `json:"disruption"`
	// limits caps the total resources (cpu, memory, nvidia.com/gpu, nodes, ...) of the nodes
	// this NodePool has launched. There is no cluster-wide cap: set limits on every NodePool.
	// limits.cpu: "0" stops all new nodes from this NodePool.
	// +optional
	Limits Limits `json:"limits,omitempty"`
	// weight orders NodePools: a higher weight is tried first. Unset counts as 0.
	// +kubebuilder:validation:Minimum:=1
	// +kubebuilder:validation:Maximum:=100
	// +optional
	Weight *int32 `json:"weight,omitempty"`
	// replicas makes the NodePool static: it keeps this many nodes regardless of pending pods.
	// This field is ALPHA.
	// +kubebuilder:validation:Minimum:=0
	// +optional
	Replicas *int64 `json:"replicas,omitempty"`
}

// Disruption is the NodePool's disruption policy.
// +kubebuilder:validation:XValidation:rule="!has(self.balancedK) || (has(self.consolidationPolicy) && self.consolidationPolicy == 'Balanced')",message="balancedK applies to consolidationPolicy Balanced only"
type Disruption struct {
	// ConsolidateAfter is how long the controller waits after a node becomes consolidatable
	// (empty, or underutilized with WhenEmptyOrUnderutilized) before it consolidates it.
	// "Never" disables consolidation, emptiness included. Defaults to 0s, also when a
	// disruption block is given without it (upstream requires it there).
	// +kubebuilder:default:="0s"
	// +kubebuilder:validation:Pattern=`^(([0-9]+(s|m|h))+|Never)$`
	// +kubebuilder:validation:Type="string"
	// +kubebuilder:validation:Schemaless
	// +optional
	ConsolidateAfter NillableDuration `json:"consolidateAfter"`
	// consolidationPolicy says which nodes consolidation may remove or replace: only empty
	// ones; also underutilized ones, whenever a cheaper arrangement exists; or, Balanced, also
	// underutilized ones, but only by moves whose savings are worth the pods they disrupt.
	// +kubebuilder:default:="WhenEmptyOrUnderutilized"
	// +kubebuilder:validation:Enum:={WhenEmpty,WhenEmptyOrUnderutilized,Balanced}
	// +optional
	ConsolidationPolicy ConsolidationPolicy `json:"consolidationPolicy,omitempty"`
	// balancedK sets how much a Balanced move must save for what it disrupts: a move is made
	// when the share of the NodePool's cost it saves is at least 1/k of the share of the
	// NodePool's disruption cost it causes (a node counts 1, each pod it evicts 1 more, or
	// more for pods with a higher priority or pod-deletion-cost). Defaults to 2, the k upstream
	// Karpenter fixes; a larger k consolidates more readily. Only with consolidationPolicy
	// Balanced.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	BalancedK *int32 `json:"balancedK,omitempty"`
	// budgets cap how many nodes may be disrupted at once. When several budgets are active the
	// most restrictive wins. Defaults to one budget of 10%.
	// +kubebuilder:validation:XValidation:message="'schedule' must be set with 'duration'",rule="self.all(x, has(x.schedule) == has(x.duration))"
	// +kubebuilder:default:={{nodes: "10%"}}
	// +kubebuilder:validation:MaxItems=50
	// +listType=atomic
	// +optional
	Budgets []Budget `json:"budgets,omitempty" hash:"ignore"`
	// repair sets how node repair treats this NodePool's nodes. Node repair replaces a node
	// the cloud provider's repair policies find unhealthy (NotReady too long, or its VM failed),
	// without waiting on PodDisruptionBudgets, as upstream Karpenter's does.
	// +optional
	Repair *Repair `json:"repair,omitempty"`
}

// Repair is a NodePool's setting of node repair.
type Repair struct {
	// maxUnhealthy is how many of the NodePool's nodes may be unhealthy at once for repair to
	// go on, as a count ("2") or a percentage of its nodes ("20%", rounded up): while more are,
	// repair holds and says so on each unhealthy node, since a fault that takes many nodes down
	// is not one that replacing them fixes. "0" turns repair off for the NodePool. Defaults to
	// 20%, the threshold upstream Karpenter fixes.
	// +kubebuilder:validation:Pattern:="^((100|[0-9]{1,2})%|[0-9]+)$"
	// +optional
	MaxUnhealthy string `json:"maxUnhealthy,omitempty"`
}

// DefaultMaxUnhealthy is Repair.MaxUnhealthy when unset.
const DefaultMaxUnhealthy = "20%"

// Budget limits the number of this NodePool's nodes that may be disrupted at the same time,
// optionally only during a schedule window and only for some reasons.
type Budget struct {
	// reasons are the disruption reasons this budget applies to; all reasons when unset.
	// +kubebuilder:validation:MaxItems=50
	// +listType=set
	// +optional
	Reasons []DisruptionReason `json:"reasons,omitempty"`
	// nodes is the most nodes that may be disrupted at once, as a count ("1") or a percentage
	// of the NodePool's nodes ("10%", rounded up).
	// +kubebuilder:validation:Pattern:="^((100|[0-9]{1,2})%|[0-9]+)$"
	// +kubebuilder:default:="10%"
	// +required
	Nodes string `json:"nodes" hash:"ignore"`
	// schedule is a cron expression (UTC) or a macro such as @daily at which the budget becomes
	// active for Duration. Without a schedule the budget is always active.
	// +kubebuilder:validation:Pattern:=`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`
	// +optional
	Schedule *string `json:"schedule,omitempty" hash:"ignore"`
	// duration is how long the budget stays active after each schedule hit, in hours and/or
	// minutes. Required with Schedule.
	// +kubebuilder:validation:Pattern=`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`
	// +kubebuilder:validation:Type="string"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty" hash:"ignore"`
}

// ConsolidationPolicy names which nodes consolidation may act on.
type ConsolidationPolicy string

// Consolidation policies.
const (
	ConsolidationPolicyWhenEmpty                ConsolidationPolicy = "WhenEmpty"
	ConsolidationPolicyWhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
	// ConsolidationPolicyBalanced consolidates underutilized nodes only by moves whose savings
	// are worth their disruption (upstream v1.14's Balanced; see Disruption.BalancedK).
	ConsolidationPolicyBalanced ConsolidationPolicy = "Balanced"
)

// DefaultBalancedK is Disruption.BalancedK when unset: upstream Karpenter's fixed k.
const DefaultBalancedK = 2

// DisruptionReason is a reason a budget may be scoped to.
// +kubebuilder:validation:Enum={Underutilized,Empty,Drifted,Unhealthy}
type DisruptionReason string

// Disruption reasons. Unhealthy is node repair's, a voluntary disruption paced by the budgets
// as upstream Karpenter v1.15 made it.
const (
	DisruptionReasonUnderutilized DisruptionReason = "Underutilized"
	DisruptionReasonEmpty         DisruptionReason = "Empty"
	DisruptionReasonDrifted       DisruptionReason = "Drifted"
	DisruptionReasonUnhealthy     DisruptionReason = "Unhealthy"
)

// Limits are resource caps for a NodePool.
type Limits corev1.ResourceList

// ResourceNodes is the resource of limits.nodes: every NodeClaim of the NodePool holds one,
// launched or not, as upstream Karpenter counts it.
const ResourceNodes corev1.ResourceName = "nodes"

// NodeClaimTemplate is the template NodeClaims are launched from.
type NodeClaimTemplate struct {
	// metadata holds the labels and annotations the NodeClaims and their nodes get.
	// +optional
	ObjectMeta `json:"metadata,omitempty"`
	// spec is the spec of the NodeClaims launched from the template.
	// +required
	Spec NodeClaimTemplateSpec `json:"spec"`
}

// ObjectMeta is the subset of object metadata a NodeClaim template may carry; it lands on
// every NodeClaim and Node launched from the NodePool.
type ObjectMeta struct {
	// labels are applied to every node. Keys of Karpenter's own domains are restricted, as in
	// requirements.
	// +kubebuilder:validation:MaxProperties=100
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.size() <= 316 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$') && k.indexOf('/') <= 253 && k.size() - k.indexOf('/') - 1 <= 63)",message="label keys must be qualified names (an optional lowercase DNS subdomain prefix of at most 253 characters and '/', then at most 63 alphanumerics, '-', '_' or '.')"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'karpenter.sh/nodepool')",message="label \"karpenter.sh/nodepool\" is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k != 'kubernetes.io/hostname')",message="label \"kubernetes.io/hostname\" is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.find('^[^/]*/').endsWith('karpenter.sh/') || k == 'karpenter.sh/capacity-type' || k == 'karpenter.sh/nodepool')",message="label domain \"karpenter.sh\" is restricted: only karpenter.sh/capacity-type may be set"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.find('^[^/]*/').endsWith('karpenter.kakaocloud.com/') || k in ['karpenter.kakaocloud.com/instance-family', 'karpenter.kakaocloud.com/instance-size', 'karpenter.kakaocloud.com/instance-cpu', 'karpenter.kakaocloud.com/instance-memory', 'karpenter.kakaocloud.com/instance-gpu-count', 'karpenter.kakaocloud.com/instance-gpu-name'])",message="label domain \"karpenter.kakaocloud.com\" is restricted: only the instance-family, instance-size, instance-cpu, instance-memory, instance-gpu-count and instance-gpu-name keys may be set"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k.startsWith('karpenter.') && k.contains('/') && !k.startsWith('karpenter.sh/') && !k.startsWith('karpenter.kakaocloud.com/')))",message="label keys of other cloud providers' Karpenter domains are not supported on KakaoCloud; use the karpenter.kakaocloud.com keys"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// annotations are applied to every node.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is the spec of the NodeClaims a NodePool launches, less the resource
// requests that the controller fills in from the pods.
type NodeClaimTemplateSpec struct {
	// taints are applied to every node; only pods that tolerate them are placed there.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	Taints []corev1.Taint `json:"taints,omitempty"`
	// startupTaints are applied when a node starts and are expected to be removed by something
	// else (a DaemonSet, an operator) shortly after. Pods need not tolerate them.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	StartupTaints []corev1.Taint `json:"startupTaints,omitempty"`
	// requirements narrow the instance types, zones and other node properties the NodePool
	// may launch.
	// +kubebuilder:validation:XValidation:rule="self.all(x, x.key != 'karpenter.sh/nodepool')",message="label \"karpenter.sh/nodepool\" is restricted"
	// +kubebuilder:validation:XValidation:rule="self.all(x, x.key != 'karpenter.kakaocloud.com/kcnodeclass')",message="label \"karpenter.kakaocloud.com/kcnodeclass\" is restricted: it is set from nodeClassRef"
	// +kubebuilder:validation:MaxItems:=100
	// +listType=atomic
	// +required
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements" hash:"ignore"`
	// nodeClassRef names the KCNodeClass that shapes the VMs.
	// +kubebuilder:validation:XValidation:rule="self.group == oldSelf.group",message="nodeClassRef.group is immutable"
	// +kubebuilder:validation:XValidation:rule="self.kind == oldSelf.kind",message="nodeClassRef.kind is immutable"
	// +required
	NodeClassRef *NodeClassReference `json:"nodeClassRef"`
	// terminationGracePeriod is the most time draining a node may take once its deletion has
	// started. Past it, pods are deleted even if a PodDisruptionBudget or
	// karpenter.sh/do-not-disrupt would block their eviction. Unset: wait indefinitely.
	// +kubebuilder:validation:Pattern=`^([0-9]+(s|m|h))+$`
	// +kubebuilder:validation:Type="string"
	// +optional
	TerminationGracePeriod *metav1.Duration `json:"terminationGracePeriod,omitempty"`
	// ExpireAfter is how long a node may live before it is replaced, or "Never". Expiry is not
	// blocked by budgets or karpenter.sh/do-not-disrupt.
	// +kubebuilder:default:="720h"
	// +kubebuilder:validation:Pattern=`^(([0-9]+(s|m|h))+|Never)$`
	// +kubebuilder:validation:Type="string"
	// +kubebuilder:validation:Schemaless
	// +optional
	ExpireAfter NillableDuration `json:"expireAfter,omitempty"`
}

// NodeClassReference points at the node class of a NodePool or NodeClaim.
// +kubebuilder:validation:XValidation:rule="self.group == 'karpenter.kakaocloud.com' && self.kind == 'KCNodeClass'",messageExpression="'nodeClassRef must reference a KCNodeClass (group karpenter.kakaocloud.com, kind KCNodeClass), not ' + self.kind + '.' + self.group"
type NodeClassReference struct {
	// kind of the node class: KCNodeClass.
	// +kubebuilder:validation:XValidation:rule="self != ''",message="kind may not be empty"
	// +required
	Kind string `json:"kind"`
	// name of the node class.
	// +kubebuilder:validation:XValidation:rule="self != ''",message="name may not be empty"
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`
	// group of the node class: karpenter.kakaocloud.com.
	// +kubebuilder:validation:XValidation:rule="self != ''",message="group may not be empty"
	// +kubebuilder:validation:Pattern=`^[^/]*$`
	// +required
	Group string `json:"group"`
}

// NodePoolStatus is the observed state of a NodePool.
type NodePoolStatus struct {
	// resources is the total capacity of the NodePool's NodeClaims not being deleted, with
	// "nodes" their count (what limits are checked against).
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// nodes is the number of nodes the NodePool has.
	// +kubebuilder:default:=0
	// +optional
	Nodes *int64 `json:"nodes,omitempty"`
	// nodeClassObservedGeneration is the generation of the node class last seen ready.
	// +optional
	NodeClassObservedGeneration int64 `json:"nodeClassObservedGeneration,omitempty"`
	// drifted is how many of the NodePool's nodes are Drifted, waiting to be replaced.
	// +optional
	Drifted int64 `json:"drifted"`
	// disruptionBlocked is how many of the NodePool's nodes disruption would act on now
	// (drifted, or consolidatable) that a karpenter.sh/do-not-disrupt annotation or a
	// PodDisruptionBudget holds; their NodeClaims' DisruptionBlocked events say which.
	// +optional
	DisruptionBlocked int64 `json:"disruptionBlocked"`
	// conditions are ValidationSucceeded, NodeClassReady, NodeRegistrationHealthy and Ready.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// NodePool condition types.
const (
	ConditionTypeValidationSucceeded     = "ValidationSucceeded"
	ConditionTypeNodeClassReady          = "NodeClassReady"
	ConditionTypeNodeRegistrationHealthy = "NodeRegistrationHealthy"
)

// NodePool is a policy for the nodes Karpenter launches and disrupts.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=nodepools,scope=Cluster,categories=karpenter
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="a NodePool name is at most 63 characters: its nodes carry it as the value of the label karpenter.sh/nodepool"
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.nodes
// +kubebuilder:printcolumn:name="NodeClass",type="string",JSONPath=".spec.template.spec.nodeClassRef.name",description="The KCNodeClass"
// +kubebuilder:printcolumn:name="Nodes",type="integer",JSONPath=".status.nodes",description="Nodes launched by this NodePool"
// +kubebuilder:printcolumn:name="Drifted",type="integer",JSONPath=".status.drifted",description="Nodes drifted, waiting to be replaced"
// +kubebuilder:printcolumn:name="Blocked",type="integer",JSONPath=".status.disruptionBlocked",description="Nodes whose disruption a do-not-disrupt annotation or a PodDisruptionBudget holds"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="Weight",type="integer",JSONPath=".spec.weight",priority=1
// +kubebuilder:printcolumn:name="CPU",type="string",JSONPath=".status.resources.cpu",priority=1
// +kubebuilder:printcolumn:name="Memory",type="string",JSONPath=".status.resources.memory",priority=1
type NodePool struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the policy: the nodes' template, their limits and how they are disrupted.
	// +required
	Spec NodePoolSpec `json:"spec"`
	// status is what the NodePool's nodes add up to, and its conditions.
	// +optional
	Status NodePoolStatus `json:"status,omitempty"`
}

// NodePoolList contains a list of NodePools.
// +kubebuilder:object:root=true
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodePool `json:"items"`
}
