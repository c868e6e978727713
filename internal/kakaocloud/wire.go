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

package kakaocloud

import (
	"encoding/json"
	"fmt"
	"time"
)

// This file is KakaoCloud's wire format: the JSON bodies of the IAM, BCS (VM), Image, VPC,
// Network and Kubernetes Engine APIs, shared by the client and the emulator. Field names follow
// the official SDK's models; fields the controller does not use are left out.

// Service names: the first label of each service's host, <svc>.<region>.kakaocloud.com.
const (
	ServiceIAM              = "iam"
	ServiceBCS              = "bcs"
	ServiceImage            = "image"
	ServiceVPC              = "vpc"
	ServiceNetwork          = "network"
	ServiceKubernetesEngine = "kubernetes-engine"
	// ServiceConfig is the configuration service, which tells a token's holder the endpoints
	// of the others (its host is heimdall.kr-central-2.kakaocloud.com for every region).
	ServiceConfig = "config"
)

// Services lists every service the client talks to.
var Services = []string{ServiceIAM, ServiceBCS, ServiceImage, ServiceVPC, ServiceNetwork, ServiceKubernetesEngine, ServiceConfig}

// API paths, relative to each service's base URL.
const (
	PathTokens          = "/identity/v3/auth/tokens"
	PathInstances       = "/api/v1/instances"
	PathFlavors         = "/api/v1/flavors"
	PathImages          = "/api/v1/images"
	PathSubnets         = "/api/v1/subnets"
	PathSecurityGroups  = "/api/v1/security-groups"
	PathClusters        = "/api/v1/clusters"
	PathVersions        = "/api/v1/versions"
	PathNodeImages      = "/api/v1/images" // on the kubernetes-engine host
	PathClientEndpoints = "/api/v1/client-endpoints/resolve"
)

// ClientEndpointResponse is the answer of GET /api/v1/client-endpoints/resolve on the
// configuration service: the endpoints of every service for the caller's token (its project,
// hence its region and realm). The call takes nothing but the token.
type ClientEndpointResponse struct {
	Success bool            `json:"success"`
	Message string          `json:"message,omitempty"`
	Data    *ClientEndpoint `json:"data,omitempty"`
}

// ClientEndpoint is the data of a ClientEndpointResponse: base URLs by service name (the
// Service* names).
type ClientEndpoint struct {
	ID               string            `json:"id"`
	ServiceEndpoints map[string]string `json:"service_endpoints"`
	Priority         int               `json:"priority"`
}

// Headers.
const (
	HeaderAuthToken    = "X-Auth-Token"
	HeaderSubjectToken = "X-Subject-Token"
	HeaderRetryAfter   = "Retry-After"
	// HeaderAPIVersion carries the version of the API models a client was written against,
	// as the official SDK's transport sends it on every request.
	HeaderAPIVersion = "X-Api-Version"
)

// APIVersion is the version of the official SDK's models this client follows (kc-sdk-go
// v1.3.0), sent as HeaderAPIVersion.
const APIVersion = "1.3.0"

// UserAgent names this client to KakaoCloud, as the official tools name themselves.
const UserAgent = "karpenter-provider-kakaocloud"

// TokenRequest is the body of POST /identity/v3/auth/tokens with an application credential
// (an IAM access key: its id and secret).
type TokenRequest struct {
	Auth TokenAuth `json:"auth"`
}

// TokenAuth is the auth part of a TokenRequest.
type TokenAuth struct {
	Identity TokenIdentity `json:"identity"`
}

// TokenIdentity names the authentication method and its credential.
type TokenIdentity struct {
	Methods               []string              `json:"methods"`
	ApplicationCredential ApplicationCredential `json:"application_credential"`
}

// ApplicationCredential is an IAM access key as the token API takes it.
type ApplicationCredential struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// TokenResponse is the body of a token issue; the token itself is the X-Subject-Token header.
type TokenResponse struct {
	Token TokenInfo `json:"token"`
}

// TokenInfo describes an issued token.
type TokenInfo struct {
	ExpiresAt time.Time `json:"expires_at"`
	// IssuedAt is kept as the text it came as: the official SDK types it a plain string with no
	// format, and nothing here needs it as a time, so no spelling of it can fail a token issue.
	IssuedAt string     `json:"issued_at,omitempty"`
	Methods  []string   `json:"methods,omitempty"`
	Project  *IDAndName `json:"project,omitempty"`
}

// IDAndName is a reference to a named object.
type IDAndName struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// ErrorResponse is the error body of every service. BCS, Image, VPC, Network and Kubernetes
// Engine use a string code; IAM (Keystone) uses a numeric code and a title.
type ErrorResponse struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the content of an ErrorResponse.
type ErrorDetail struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
	Title   string    `json:"title,omitempty"`
}

// ErrorCode reads a string or a number.
type ErrorCode string

// UnmarshalJSON accepts both "NotFound" and 404.
func (c *ErrorCode) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = ErrorCode(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("reading an error code, neither a string nor a number: %w", err)
	}
	*c = ErrorCode(n.String())
	return nil
}

// Pagination is the paging block of list responses (BCS, Image, VPC, Network).
type Pagination struct {
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// Instance statuses. KakaoCloud reports them in lower case (its documentation also shows
// upper case); compare with strings.EqualFold.
const (
	InstanceStatusBuilding = "building"
	InstanceStatusActive   = "active"
	InstanceStatusError    = "error"
	InstanceStatusDeleting = "deleting"
	InstanceStatusStopped  = "stopped"
	InstanceStatusShelved  = "shelved_offloaded"
)

// Instance is a BCS virtual machine as get and list return it.
type Instance struct {
	ID               string             `json:"id"`
	Name             string             `json:"name"`
	Description      string             `json:"description"`
	Status           string             `json:"status"`
	VMState          string             `json:"vm_state,omitempty"`
	TaskState        string             `json:"task_state,omitempty"`
	PowerState       string             `json:"power_state,omitempty"`
	AvailabilityZone string             `json:"availability_zone"`
	InstanceType     string             `json:"instance_type,omitempty"`
	KeyName          string             `json:"key_name,omitempty"`
	Hostname         string             `json:"hostname,omitempty"`
	Flavor           InstanceFlavor     `json:"flavor"`
	Image            InstanceImage      `json:"image"`
	Addresses        []InstanceAddress  `json:"addresses,omitempty"`
	AttachedVolumes  []AttachedVolume   `json:"attached_volumes,omitempty"`
	SecurityGroups   []SecurityGroupRef `json:"security_groups,omitempty"`
	CreatedAt        time.Time          `json:"created_at"`
	UpdatedAt        time.Time          `json:"updated_at"`
}

// InstanceFlavor is the flavor block of an Instance.
type InstanceFlavor struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	VCPUs          int    `json:"vcpus"`
	MemoryMB       int64  `json:"memory_mb"`
	InstanceFamily string `json:"instance_family,omitempty"`
	HWType         string `json:"hw_type,omitempty"`
	HWCount        int    `json:"hw_count,omitempty"`
}

// InstanceImage is the image block of an Instance.
type InstanceImage struct {
	ID             string `json:"id"`
	Name           string `json:"name,omitempty"`
	OSArchitecture string `json:"os_architecture,omitempty"`
}

// InstanceAddress is a network address of an Instance.
type InstanceAddress struct {
	PrivateIP          string `json:"private_ip,omitempty"`
	PublicIP           string `json:"public_ip,omitempty"`
	NetworkInterfaceID string `json:"network_interface_id,omitempty"`
}

// AttachedVolume is a volume attached to an Instance.
type AttachedVolume struct {
	ID                    string `json:"id"`
	Name                  string `json:"name,omitempty"`
	Status                string `json:"status,omitempty"`
	Size                  int    `json:"size"`
	IsRoot                bool   `json:"is_root"`
	IsDeleteOnTermination bool   `json:"is_delete_on_termination"`
	Type                  string `json:"type,omitempty"`
}

// SecurityGroupRef names a security group on an instance; create takes names.
type SecurityGroupRef struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
}

// GetInstanceResponse is the body of GET /instances/{id}.
type GetInstanceResponse struct {
	Instance Instance `json:"instance"`
}

// ListInstancesResponse is the body of GET /instances.
type ListInstancesResponse struct {
	Instances  []Instance `json:"instances"`
	Pagination Pagination `json:"pagination"`
}

// CreateInstanceRequest is the body of POST /instances.
type CreateInstanceRequest struct {
	Instance CreateInstance `json:"instance"`
}

// CreateInstance describes the VM to create.
type CreateInstance struct {
	Name             string             `json:"name"`
	Description      string             `json:"description,omitempty"`
	ImageID          string             `json:"image_id"`
	FlavorID         string             `json:"flavor_id"`
	AvailabilityZone string             `json:"availability_zone,omitempty"`
	Subnets          []SubnetAttachment `json:"subnets"`
	Volumes          []VolumeSpec       `json:"volumes,omitempty"`
	SecurityGroups   []SecurityGroupRef `json:"security_groups"`
	KeyName          string             `json:"key_name,omitempty"`
	// UserData is the base64-encoded cloud-init script, at most 16 KiB.
	UserData string `json:"user_data,omitempty"`
}

// SubnetAttachment puts a VM's network interface in a subnet.
type SubnetAttachment struct {
	ID string `json:"id"`
}

// Volume source types of a VolumeSpec, as the official SDK's enum names them.
const (
	VolumeSourceImage  = "image"
	VolumeSourceBlank  = "blank"
	VolumeSourceVolume = "volume"
)

// VolumeSpec is a volume created with the VM. Only size is required (official SDK); a source
// type of image or blank also needs a type_id (official Terraform provider's documentation).
type VolumeSpec struct {
	Size                  int    `json:"size"`
	SourceType            string `json:"source_type,omitempty"`
	UUID                  string `json:"uuid,omitempty"`
	TypeID                string `json:"type_id,omitempty"`
	IsDeleteOnTermination bool   `json:"is_delete_on_termination"`
}

// BootVolume is the first volume of a create as the official Terraform provider sends it: a
// size, with no source type and no image, so that the VM boots from the create's image_id;
// typeID is sent only when given, the account's default volume type serving otherwise. The
// volume goes with the VM, so that nothing is left behind to bill.
func BootVolume(sizeGiB int, typeID string) VolumeSpec {
	return VolumeSpec{Size: sizeGiB, TypeID: typeID, IsDeleteOnTermination: true}
}

// CreateInstanceResponse is the body of a create: creation goes on asynchronously.
type CreateInstanceResponse struct {
	Instance CreatedInstance `json:"instance"`
}

// CreatedInstance identifies the VM a create started; the official SDK requires all three
// fields in the answer.
type CreatedInstance struct {
	ID             string             `json:"id"`
	SecurityGroups []SecurityGroupRef `json:"security_groups"`
	DiskConfig     string             `json:"disk_config"`
}

// Flavor is a BCS instance type.
type Flavor struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	VCPUs          int            `json:"vcpus"`
	MemoryMB       int64          `json:"memory_mb"`
	RootGB         int            `json:"root_gb,omitempty"`
	Architecture   string         `json:"architecture"`
	Manufacturer   string         `json:"manufacturer,omitempty"`
	Processor      string         `json:"processor,omitempty"`
	Group          string         `json:"group,omitempty"`
	InstanceType   string         `json:"instance_type"`
	InstanceFamily string         `json:"instance_family"`
	InstanceSize   string         `json:"instance_size"`
	IsBurstable    bool           `json:"is_burstable"`
	Zones          []string       `json:"availability_zone"`
	Available      map[string]int `json:"available,omitempty"`
	HWType         string         `json:"hw_type,omitempty"`
	HWCount        int            `json:"hw_count,omitempty"`
	HWName         string         `json:"hw_name,omitempty"`
	MaxInterfaces  int            `json:"maximum_network_interfaces,omitempty"`
}

// ListFlavorsResponse is the body of GET /flavors.
type ListFlavorsResponse struct {
	Flavors    []Flavor   `json:"flavors"`
	Pagination Pagination `json:"pagination"`
}

// GetFlavorResponse is the body of GET /flavors/{id}.
type GetFlavorResponse struct {
	Flavor Flavor `json:"flavor"`
}

// Image is an image of the Image service.
type Image struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Status       string    `json:"status"`
	Visibility   string    `json:"visibility,omitempty"`
	MinDisk      int       `json:"min_disk,omitempty"`
	InstanceType string    `json:"instance_type,omitempty"`
	OSInfo       OSInfo    `json:"os_info"`
	CreatedAt    time.Time `json:"created_at"`
}

// OSInfo describes an image's operating system.
type OSInfo struct {
	Type         string `json:"type,omitempty"`
	Distro       string `json:"distro,omitempty"`
	Architecture string `json:"architecture,omitempty"`
	AdminUser    string `json:"admin_user,omitempty"`
}

// ListImagesResponse is the body of GET /images on the Image service.
type ListImagesResponse struct {
	Images     []Image    `json:"images"`
	Pagination Pagination `json:"pagination"`
}

// GetImageResponse is the body of GET /images/{id} on the Image service.
type GetImageResponse struct {
	Image Image `json:"image"`
}

// Subnet is a VPC subnet; each is in one availability zone.
type Subnet struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	AvailabilityZone   string `json:"availability_zone"`
	CIDRBlock          string `json:"cidr_block"`
	VPCID              string `json:"vpc_id"`
	VPCName            string `json:"vpc_name,omitempty"`
	ProvisioningStatus string `json:"provisioning_status"`
	OperatingStatus    string `json:"operating_status,omitempty"`
}

// ListSubnetsResponse is the body of GET /subnets.
type ListSubnetsResponse struct {
	Subnets    []Subnet   `json:"subnets"`
	Pagination Pagination `json:"pagination"`
}

// GetSubnetResponse is the body of GET /subnets/{id}.
type GetSubnetResponse struct {
	Subnet Subnet `json:"subnet"`
}

// SecurityGroup is a network security group.
type SecurityGroup struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// ListSecurityGroupsResponse is the body of GET /security-groups.
type ListSecurityGroupsResponse struct {
	SecurityGroups []SecurityGroup `json:"security_groups"`
	Pagination     Pagination      `json:"pagination"`
}

// GetSecurityGroupResponse is the body of GET /security-groups/{id}.
type GetSecurityGroupResponse struct {
	SecurityGroup SecurityGroup `json:"security_group"`
}

// Cluster phases of Kubernetes Engine.
const (
	ClusterPhasePending      = "Pending"
	ClusterPhaseProvisioning = "Provisioning"
	ClusterPhaseProvisioned  = "Provisioned"
	ClusterPhaseUpdating     = "Updating"
	ClusterPhaseDeleting     = "Deleting"
	ClusterPhaseFailed       = "Failed"
)

// Cluster is a Kubernetes Engine cluster; Version is its control plane's.
type Cluster struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	Description          string            `json:"description,omitempty"`
	ControlPlaneEndpoint Endpoint          `json:"control_plane_endpoint"`
	Network              ClusterNetwork    `json:"network"`
	Version              KubernetesVersion `json:"version"`
	Status               ClusterStatus     `json:"status"`
	VPCInfo              ClusterVPC        `json:"vpc_info"`
	IsUpgradable         bool              `json:"is_upgradable"`
	FailureMessage       string            `json:"failure_message,omitempty"`
	CreatedAt            time.Time         `json:"created_at"`
}

// Endpoint is a host and port.
type Endpoint struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// ClusterNetwork is a cluster's network settings.
type ClusterNetwork struct {
	CNI         string `json:"cni,omitempty"`
	PodCIDR     string `json:"pod_cidr,omitempty"`
	ServiceCIDR string `json:"service_cidr,omitempty"`
}

// ClusterStatus carries the cluster's phase.
type ClusterStatus struct {
	Phase string `json:"phase"`
}

// ClusterVPC is the VPC of a cluster.
type ClusterVPC struct {
	ID      string          `json:"id"`
	Subnets []ClusterSubnet `json:"subnets,omitempty"`
}

// ClusterSubnet is a subnet of a cluster's VPC.
type ClusterSubnet struct {
	ID               string `json:"id"`
	AvailabilityZone string `json:"availability_zone"`
	CIDRBlock        string `json:"cidr_block,omitempty"`
}

// KubernetesVersion is a version Kubernetes Engine offers (or the one a cluster runs).
type KubernetesVersion struct {
	MinorVersion string `json:"minor_version"`
	PatchVersion string `json:"patch_version"`
	IsDeprecated bool   `json:"is_deprecated"`
	EOL          string `json:"eol,omitempty"`
	NextVersion  string `json:"next_version,omitempty"`
}

// GetClusterResponse is the body of GET /clusters/{name}.
type GetClusterResponse struct {
	Cluster Cluster `json:"cluster"`
}

// ListClustersResponse is the body of GET /clusters.
type ListClustersResponse struct {
	Clusters []Cluster `json:"clusters"`
}

// ListVersionsResponse is the body of GET /versions.
type ListVersionsResponse struct {
	Versions []KubernetesVersion `json:"versions"`
}

// NodeImage is a worker image Kubernetes Engine offers for a Kubernetes version.
type NodeImage struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	K8sVersion    string `json:"k8s_version"`
	OSDistro      string `json:"os_distro,omitempty"`
	OSType        string `json:"os_type,omitempty"`
	OSVersion     string `json:"os_version,omitempty"`
	KernelVersion string `json:"kernel_version,omitempty"`
	Architecture  string `json:"architecture"`
	InstanceType  string `json:"instance_type"`
	IsGPUType     bool   `json:"is_gpu_type"`
}

// ListNodeImagesResponse is the body of GET /images on the Kubernetes Engine host.
type ListNodeImagesResponse struct {
	Images []NodeImage `json:"images"`
}

// UpdateInstanceRequest is the body of PUT /instances/{id}: a new name and/or description.
type UpdateInstanceRequest struct {
	Instance UpdateInstance `json:"instance"`
}

// UpdateInstance holds the fields an update changes.
type UpdateInstance struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// UpdateInstanceResponse is the answer to PUT /instances/{id}. It is not a GET's instance: the
// official SDK's model of it is the compute service's own (a flavor of vcpus, ram, disk and
// original_name; no status, image or instance_type), so only what an update changes, and the
// states, are read from it.
type UpdateInstanceResponse struct {
	Instance UpdatedInstance `json:"instance"`
}

// UpdatedInstance is the instance of an UpdateInstanceResponse.
type UpdatedInstance struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	VMState     string         `json:"vm_state,omitempty"`
	TaskState   string         `json:"task_state,omitempty"`
	PowerState  string         `json:"power_state,omitempty"`
	Flavor      *UpdatedFlavor `json:"flavor,omitempty"`
	Hostname    string         `json:"hostname,omitempty"`
}

// UpdatedFlavor is the flavor of an UpdatedInstance, in the compute service's terms.
type UpdatedFlavor struct {
	VCPUs        int    `json:"vcpus"`
	RAM          int64  `json:"ram"`
	Disk         int    `json:"disk,omitempty"`
	OriginalName string `json:"original_name"`
}

// ActionLog is one entry of GET /instances/{id}/action-logs; its message explains failures
// such as an instance that went to error.
type ActionLog struct {
	Action    string    `json:"action"`
	RequestID string    `json:"request_id,omitempty"`
	StartTime time.Time `json:"start_time"`
	Message   string    `json:"message,omitempty"`
}

// ListActionLogsResponse is the body of GET /instances/{id}/action-logs.
type ListActionLogsResponse struct {
	Actions []ActionLog `json:"actions"`
}
