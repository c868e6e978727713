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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KCNodeClassSpec says what a KakaoCloud VM launched for a NodeClaim looks like and where it
// goes. Changing a field that shapes the VM marks the nodes launched from it as drifted.
type KCNodeClassSpec struct {
	// bootstrap says how the worker joins the cluster.
	// +required
	Bootstrap Bootstrap `json:"bootstrap,omitzero"`
	// imageID pins a verified worker image. When empty, the worker images Kubernetes Engine
	// offers for bootstrap.kubernetesVersion are used.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9-]*$`
	// +optional
	ImageID string `json:"imageID,omitempty"`
	// subnetSelectorTerms select the subnets VMs are placed in. Each subnet is in one
	// availability zone, so the subnets fix the zones this node class can offer.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=30
	// +listType=atomic
	// +required
	SubnetSelectorTerms []SubnetSelectorTerm `json:"subnetSelectorTerms,omitempty"`
	// securityGroupSelectorTerms select the security groups attached to the VMs.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +required
	SecurityGroupSelectorTerms []SecurityGroupSelectorTerm `json:"securityGroupSelectorTerms,omitempty"`
	// keyPairName is the name of the KakaoCloud key pair for SSH access to the VMs.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	KeyPairName string `json:"keyPairName,omitempty"`
	// rootVolume is the VM's boot volume.
	// +kubebuilder:default:={sizeGiB: 50}
	// +optional
	RootVolume RootVolume `json:"rootVolume,omitzero"`
	// kubelet overrides kubelet settings on the nodes.
	// +optional
	Kubelet *KubeletConfiguration `json:"kubelet,omitempty"`
	// userData is an extra shell script run on first boot before the node joins the cluster.
	// The whole user data, bootstrap included, must stay within KakaoCloud's 16 KiB.
	// +kubebuilder:validation:MaxLength=8192
	// +optional
	UserData *string `json:"userData,omitempty"`
}

// Bootstrap is how a worker joins the cluster.
type Bootstrap struct {
	// kubernetesVersion is the worker Kubernetes minor version, e.g. "1.36". It must be the
	// control plane's minor version or one below, and offered by Kubernetes Engine when set.
	// +kubebuilder:validation:Pattern=`^[0-9]+\.[0-9]+$`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=16
	// +required
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
}

// SubnetSelectorTerm selects one subnet by id or by name.
// +kubebuilder:validation:XValidation:rule="has(self.id) != has(self.name)",message="a subnet selector term needs exactly one of 'id' or 'name'"
type SubnetSelectorTerm struct {
	// id of the subnet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9-]*$`
	// +optional
	ID string `json:"id,omitempty"`
	// name of the subnet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name string `json:"name,omitempty"`
}

// SecurityGroupSelectorTerm selects one security group by id or by name.
// +kubebuilder:validation:XValidation:rule="has(self.id) != has(self.name)",message="a security group selector term needs exactly one of 'id' or 'name'"
type SecurityGroupSelectorTerm struct {
	// id of the security group.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9-]*$`
	// +optional
	ID string `json:"id,omitempty"`
	// name of the security group.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name string `json:"name,omitempty"`
}

// RootVolume is the VM's boot volume.
type RootVolume struct {
	// sizeGiB is the size of the volume in GiB.
	// +kubebuilder:validation:Minimum=30
	// +kubebuilder:validation:Maximum=5120
	// +kubebuilder:default:=50
	// +optional
	SizeGiB int32 `json:"sizeGiB,omitempty"`
	// typeID is the KakaoCloud volume type; the account's default type when empty.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +optional
	TypeID string `json:"typeID,omitempty"`
}

// KubeletConfiguration overrides kubelet settings on the nodes of a KCNodeClass. The values
// also feed the allocatable resources the scheduler assumes for each instance type.
// +kubebuilder:validation:XValidation:rule="!has(self.imageGCHighThresholdPercent) || !has(self.imageGCLowThresholdPercent) || self.imageGCHighThresholdPercent > self.imageGCLowThresholdPercent",message="imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"
// +kubebuilder:validation:XValidation:rule="!has(self.evictionSoft) || (has(self.evictionSoftGracePeriod) && self.evictionSoft.all(k, k in self.evictionSoftGracePeriod))",message="every evictionSoft signal needs an evictionSoftGracePeriod"
// +kubebuilder:validation:XValidation:rule="!has(self.evictionSoftGracePeriod) || (has(self.evictionSoft) && self.evictionSoftGracePeriod.all(k, k in self.evictionSoft))",message="every evictionSoftGracePeriod needs an evictionSoft signal"
type KubeletConfiguration struct {
	// clusterDNS is the list of DNS server IPs pods use.
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=45
	// +kubebuilder:validation:XValidation:rule="self.all(x, isIP(x))",message="clusterDNS entries must be IP addresses, such as 10.96.0.10 or fd00::a"
	// +listType=atomic
	// +optional
	ClusterDNS []string `json:"clusterDNS,omitempty"`
	// maxPods is the most pods a node may run.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	MaxPods *int32 `json:"maxPods,omitempty"`
	// podsPerCore caps pods per vCPU; the lower of this and MaxPods wins. 0 means no cap.
	// +kubebuilder:validation:Minimum=0
	// +optional
	PodsPerCore *int32 `json:"podsPerCore,omitempty"`
	// systemReserved reserves resources for system daemons.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['cpu', 'memory', 'ephemeral-storage', 'pid'])",message="systemReserved keys must be cpu, memory, ephemeral-storage or pid"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !self[k].startsWith('-'))",message="systemReserved values cannot be negative quantities"
	// +kubebuilder:validation:XValidation:rule="self.all(k, isQuantity(self[k]))",message="systemReserved values must be quantities, such as 100m, 512Mi or 1Gi (pid: a count, such as 1000)"
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	SystemReserved map[string]string `json:"systemReserved,omitempty"`
	// kubeReserved reserves resources for Kubernetes daemons.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['cpu', 'memory', 'ephemeral-storage', 'pid'])",message="kubeReserved keys must be cpu, memory, ephemeral-storage or pid"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !self[k].startsWith('-'))",message="kubeReserved values cannot be negative quantities"
	// +kubebuilder:validation:XValidation:rule="self.all(k, isQuantity(self[k]))",message="kubeReserved values must be quantities, such as 100m, 512Mi or 1Gi (pid: a count, such as 1000)"
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	KubeReserved map[string]string `json:"kubeReserved,omitempty"`
	// evictionHard are the kubelet's hard eviction thresholds.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="evictionHard keys must be one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !self[k].startsWith('-'))",message="evictionHard values cannot be negative"
	// +kubebuilder:validation:XValidation:rule="self.all(k, self[k].matches('^[0-9]+(\\\\.[0-9]+)?%$') ? double(self[k].substring(0, self[k].size() - 1)) <= 100.0 : isQuantity(self[k]))",message="evictionHard values must be percentages of at most 100%, such as 5%, or quantities, such as 500Mi"
	// +kubebuilder:validation:MaxProperties=6
	// +optional
	EvictionHard map[string]string `json:"evictionHard,omitempty"`
	// evictionSoft are the kubelet's soft eviction thresholds.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="evictionSoft keys must be one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !self[k].startsWith('-'))",message="evictionSoft values cannot be negative"
	// +kubebuilder:validation:XValidation:rule="self.all(k, self[k].matches('^[0-9]+(\\\\.[0-9]+)?%$') ? double(self[k].substring(0, self[k].size() - 1)) <= 100.0 : isQuantity(self[k]))",message="evictionSoft values must be percentages of at most 100%, such as 5%, or quantities, such as 500Mi"
	// +kubebuilder:validation:MaxProperties=6
	// +optional
	EvictionSoft map[string]string `json:"evictionSoft,omitempty"`
	// evictionSoftGracePeriod is how long each soft threshold must hold before eviction.
	// +kubebuilder:validation:XValidation:rule="self.all(k, k in ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'])",message="evictionSoftGracePeriod keys must be one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available"
	// +kubebuilder:validation:MaxProperties=6
	// +optional
	EvictionSoftGracePeriod map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	// evictionMaxPodGracePeriod caps the grace period of pods evicted for a soft threshold.
	// +kubebuilder:validation:Minimum=0
	// +optional
	EvictionMaxPodGracePeriod *int32 `json:"evictionMaxPodGracePeriod,omitempty"`
	// imageGCHighThresholdPercent is the disk usage at which image garbage collection starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ImageGCHighThresholdPercent *int32 `json:"imageGCHighThresholdPercent,omitempty"`
	// imageGCLowThresholdPercent is the disk usage image garbage collection frees down to.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ImageGCLowThresholdPercent *int32 `json:"imageGCLowThresholdPercent,omitempty"`
	// cpuCFSQuota enables CPU CFS quota enforcement for containers with CPU limits.
	// +optional
	CPUCFSQuota *bool `json:"cpuCFSQuota,omitempty"`
}

// KCNodeClassStatus is what the controller resolved for a KCNodeClass.
type KCNodeClassStatus struct {
	// conditions are Ready, KubernetesVersionReady, ImagesReady, SubnetsReady,
	// SecurityGroupsReady, KubernetesVersionDeprecated and NodesOnControlPlaneVersion.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// kubernetesVersion is the worker minor version nodes are launched with.
	// +kubebuilder:validation:MinLength=1
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// controlPlaneVersion is the cluster's control-plane minor version.
	// +optional
	ControlPlaneVersion string `json:"controlPlaneVersion,omitempty"`
	// images are the worker images nodes may be launched from, one per architecture and
	// accelerator kind.
	// +listType=atomic
	// +optional
	Images []Image `json:"images,omitempty"`
	// subnets are the resolved subnets and their zones.
	// +listType=atomic
	// +optional
	Subnets []Subnet `json:"subnets,omitempty"`
	// securityGroups are the resolved security groups.
	// +listType=atomic
	// +optional
	SecurityGroups []SecurityGroup `json:"securityGroups,omitempty"`
	// signingKeys counts this node class's NodeClaims by the keyring key that signed their
	// VM's ownership marker, so that a keyring rotation can be followed: a key may leave the
	// keyring once no NodeClaim counts on it.
	// +listType=map
	// +listMapKey=keyID
	// +optional
	SigningKeys []SigningKeyUse `json:"signingKeys,omitempty"`
	// nodeVersions counts this node class's NodeClaims by the Kubernetes minor version of
	// their node: the kubelet's once the node has registered, before that the version the VM
	// was launched with, and the node class's own for NodeClaims not launched yet. NotReady,
	// registering and deleting nodes count: Kubernetes Engine refuses a control-plane upgrade
	// while any node is off the control plane's minor version, which the condition
	// NodesOnControlPlaneVersion sums up.
	// +listType=map
	// +listMapKey=version
	// +optional
	NodeVersions []NodeVersionCount `json:"nodeVersions,omitempty"`
}

// Image is a resolved worker image.
type Image struct {
	// id of the image.
	// +required
	ID string `json:"id"`
	// name of the image.
	// +optional
	Name string `json:"name,omitempty"`
	// architecture is the image's CPU architecture as KakaoCloud names it, e.g. x86_64 or
	// aarch64.
	// +optional
	Architecture string `json:"architecture,omitempty"`
	// gpu is true for images with GPU drivers.
	// +optional
	GPU bool `json:"gpu,omitempty"`
	// kubernetesVersion the image ships (minor or patch).
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
}

// Subnet is a resolved subnet.
type Subnet struct {
	// id of the subnet.
	// +required
	ID string `json:"id"`
	// name of the subnet.
	// +optional
	Name string `json:"name,omitempty"`
	// zone is the subnet's availability zone.
	// +required
	Zone string `json:"zone"`
	// cidrBlock is the subnet's IPv4 range. Of the subnets of one zone, a launch takes the one
	// with the most addresses left by this estimate: the range's addresses less this cluster's
	// VMs in it.
	// +optional
	CIDRBlock string `json:"cidrBlock,omitempty"`
}

// SecurityGroup is a resolved security group.
type SecurityGroup struct {
	// id of the security group.
	// +required
	ID string `json:"id"`
	// name of the security group; VM creation refers to security groups by name.
	// +required
	Name string `json:"name"`
}

// SigningKeyUse is how many NodeClaims have a VM signed with one key.
type SigningKeyUse struct {
	// keyID is the key's id in the signing keyring.
	// +kubebuilder:validation:MinLength=1
	// +required
	KeyID string `json:"keyID,omitempty"`
	// nodeClaims is how many of the node class's NodeClaims have a VM signed with the key; a
	// key no NodeClaim counts on is not listed.
	// +kubebuilder:validation:Minimum=1
	// +required
	NodeClaims int32 `json:"nodeClaims,omitempty"`
}

// NodeVersionCount is how many of a node class's NodeClaims are on one Kubernetes minor
// version.
type NodeVersionCount struct {
	// version is the Kubernetes minor version, e.g. "1.36".
	// +kubebuilder:validation:MinLength=1
	// +required
	Version string `json:"version,omitempty"`
	// nodeClaims is how many NodeClaims are on it; a version no NodeClaim is on is not listed.
	// +kubebuilder:validation:Minimum=1
	// +required
	NodeClaims int32 `json:"nodeClaims,omitempty"`
}

// KCNodeClass is the KakaoCloud node class: the Kubernetes version, worker images, subnets,
// security groups and VM settings of the nodes launched for the NodePools that reference it.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=kcnodeclasses,scope=Cluster,categories=karpenter,shortName=kcnc
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="a KCNodeClass name is at most 63 characters: its nodes carry it as the value of the label karpenter.kakaocloud.com/kcnodeclass"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.bootstrap.kubernetesVersion",description="Worker Kubernetes minor version"
// +kubebuilder:printcolumn:name="ControlPlane",type="string",JSONPath=".status.controlPlaneVersion",description="Control-plane Kubernetes version"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
// +kubebuilder:printcolumn:name="NodesOnCP",type="string",JSONPath=".status.conditions[?(@.type==\"NodesOnControlPlaneVersion\")].status",description="Whether every node of the class is on the control plane's minor version, as a control-plane upgrade requires"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="ImageID",type="string",JSONPath=".spec.imageID",priority=1
// +kubebuilder:printcolumn:name="Deprecated",type="string",JSONPath=".status.conditions[?(@.type==\"KubernetesVersionDeprecated\")].status",priority=1
type KCNodeClass struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the nodes of this class look like and where they go.
	// +required
	Spec KCNodeClassSpec `json:"spec,omitzero"`
	// status is what the controller resolved for the class.
	// +optional
	Status KCNodeClassStatus `json:"status,omitempty"`
}

// KCNodeClassList contains a list of KCNodeClasses.
// +kubebuilder:object:root=true
type KCNodeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KCNodeClass `json:"items"`
}
