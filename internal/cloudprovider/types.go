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

package cloudprovider

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// CloudProvider launches and removes the VMs behind NodeClaims.
type CloudProvider interface {
	// Create launches a VM for the NodeClaim and returns the NodeClaim as launched: its
	// providerID, instance type, zone and capacity labels, capacity and allocatable. Calling it
	// again for the same NodeClaim (after a crash or a retry) returns the same VM.
	Create(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*karpv1.NodeClaim, error)
	// Delete removes the NodeClaim's VM. NodeClaimNotFoundError means it is gone.
	Delete(ctx context.Context, nodeClaim *karpv1.NodeClaim) error
	// Get returns the NodeClaim of a VM by provider id.
	Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error)
	// List returns the NodeClaims of every VM this cluster owns.
	List(ctx context.Context) ([]*karpv1.NodeClaim, error)
	// GetInstanceTypes returns every instance type a NodePool may launch, with offerings
	// marked unavailable where they cannot be launched now.
	GetInstanceTypes(ctx context.Context, nodePool *karpv1.NodePool) ([]*InstanceType, error)
	// CheckLaunch looks at the VM of a launched NodeClaim whose node has not registered: nil
	// while it builds or runs, an InsufficientCapacityError when the cloud accepted it and then
	// found no capacity for its offering (which is then marked unavailable), a
	// LaunchFailedError when it failed otherwise; other errors say it could not be looked at.
	CheckLaunch(ctx context.Context, nodeClaim *karpv1.NodeClaim) error
	// IsDrifted says why a NodeClaim's VM no longer matches its KCNodeClass, and what
	// differs (a Drift without a reason when it matches).
	IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (Drift, error)
	// RepairPolicies say when a registered node is unhealthy enough to be replaced.
	RepairPolicies() []RepairPolicy
	// InstanceState is the state of a registered NodeClaim's VM as the cloud reports it, for
	// the repair policies that look at it; a VM the cloud no longer lists has none ("").
	InstanceState(ctx context.Context, nodeClaim *karpv1.NodeClaim) (string, error)
	// Name identifies the provider in logs and metrics.
	Name() string
}

// DriftReason says why a VM drifted.
type DriftReason string

// Drift is the cloud provider's answer on a NodeClaim's VM: the reason it drifted ("" when it
// has not) and a message saying what differs, as the Drifted condition carries them.
type Drift struct {
	Reason  DriftReason
	Message string
}

// RepairPolicy is a way a registered node is unhealthy: its condition ConditionType has had
// ConditionStatus for longer than TolerationDuration, and, when InstanceStates is set, its VM
// is in one of them (a node that stopped reporting because its VM failed need not be waited
// for as long as one that may come back).
type RepairPolicy struct {
	ConditionType      corev1.NodeConditionType
	ConditionStatus    corev1.ConditionStatus
	InstanceStates     []string
	TolerationDuration time.Duration
	// TerminationGracePeriod bounds the drain of a node this policy repairs, as upstream
	// Karpenter's repair policies do: nil leaves the NodeClaim's terminationGracePeriod as it
	// is; otherwise the shorter of the two applies, so that repair never waits on evictions
	// without end; 0 deletes the pods at once, for a node whose kubelet can evict nothing.
	TerminationGracePeriod *time.Duration
	// Priority orders the repairs of unhealthy nodes, higher first (0 to 100).
	Priority int
}

// InstanceType is a VM shape and where it can be launched.
type InstanceType struct {
	// Name is the flavor name, e.g. m2a.large.
	Name string
	// Labels are the single-valued well-known labels of a node of this type: instance type,
	// architecture, OS and the provider's family, size, cpu, memory and GPU labels.
	Labels map[string]string
	// Offerings are the zones (and capacity types) the type is sold in.
	Offerings Offerings
	// Capacity is what the node reports: cpu, memory, pods, ephemeral-storage, nvidia.com/gpu.
	Capacity corev1.ResourceList
	// Overhead is what the kubelet and the system hold back from Capacity.
	Overhead Overhead
}

// Overhead is the part of a node's capacity pods cannot use.
type Overhead struct {
	KubeReserved      corev1.ResourceList
	SystemReserved    corev1.ResourceList
	EvictionThreshold corev1.ResourceList
}

// Total is the sum of all overheads.
func (o Overhead) Total() corev1.ResourceList {
	return resources.Merge(o.KubeReserved, o.SystemReserved, o.EvictionThreshold)
}

// Allocatable is what pods can request on a node of this type.
func (it *InstanceType) Allocatable() corev1.ResourceList {
	allocatable := it.Capacity.DeepCopy()
	for name, q := range it.Overhead.Total() {
		if v, ok := allocatable[name]; ok {
			v.Sub(q)
			if v.Sign() < 0 {
				v = resource.Quantity{}
			}
			allocatable[name] = v
		}
	}
	return allocatable
}

// PriceOf is what a node of this type costs in the zone and capacity type its labels name (any
// capacity type when they name none); false when the type is not sold there.
func (it *InstanceType) PriceOf(nodeLabels map[string]string) (float64, bool) {
	if it == nil {
		return 0, false
	}
	zone, capacityType := nodeLabels[karpv1.LabelTopologyZone], nodeLabels[karpv1.LabelCapacityType]
	for _, of := range it.Offerings {
		if of.Zone == zone && (capacityType == "" || of.CapacityType == capacityType) {
			return of.Price, true
		}
	}
	return 0, false
}

// Offering is an instance type in one zone with one capacity type.
type Offering struct {
	Zone         string
	CapacityType string
	// Price is a relative cost value used to choose between types, not a bill.
	Price float64
	// Available is false while the offering cannot be launched (recent capacity errors).
	Available bool
}

// Offerings is a list of offerings.
type Offerings []Offering

// Available returns the offerings that can be launched now.
func (o Offerings) Available() Offerings {
	var out Offerings
	for _, of := range o {
		if of.Available {
			out = append(out, of)
		}
	}
	return out
}

// Cheapest returns the lowest-priced offering; false when there is none.
func (o Offerings) Cheapest() (Offering, bool) {
	if len(o) == 0 {
		return Offering{}, false
	}
	best := o[0]
	for _, of := range o[1:] {
		if of.Price < best.Price {
			best = of
		}
	}
	return best, true
}

// NodeClaimNotFoundError says a NodeClaim's VM does not exist (any more).
type NodeClaimNotFoundError struct{ Err error }

func (e *NodeClaimNotFoundError) Error() string { return fmt.Sprintf("nodeclaim not found: %v", e.Err) }
func (e *NodeClaimNotFoundError) Unwrap() error { return e.Err }

// IsNodeClaimNotFound reports whether err is a NodeClaimNotFoundError.
func IsNodeClaimNotFound(err error) bool { return isA[*NodeClaimNotFoundError](err) }

// InsufficientCapacityError says no offering the NodeClaim allows could be launched; the
// NodeClaim is deleted so that the next scheduling round tries elsewhere.
type InsufficientCapacityError struct{ Err error }

func (e *InsufficientCapacityError) Error() string {
	return fmt.Sprintf("insufficient capacity: %v", e.Err)
}
func (e *InsufficientCapacityError) Unwrap() error { return e.Err }

// IsInsufficientCapacity reports whether err is an InsufficientCapacityError.
func IsInsufficientCapacity(err error) bool { return isA[*InsufficientCapacityError](err) }

// LaunchFailedError is a VM that the cloud accepted and that then failed to come up, for a
// reason other than capacity; Err carries the cloud's message.
type LaunchFailedError struct{ Err error }

func (e *LaunchFailedError) Error() string { return fmt.Sprintf("launch failed: %v", e.Err) }
func (e *LaunchFailedError) Unwrap() error { return e.Err }

// IsLaunchFailed reports whether err is a LaunchFailedError.
func IsLaunchFailed(err error) bool { return isA[*LaunchFailedError](err) }

// NodeClassNotReadyError says the NodeClaim's KCNodeClass cannot launch nodes now.
type NodeClassNotReadyError struct{ Err error }

func (e *NodeClassNotReadyError) Error() string {
	return fmt.Sprintf("node class not ready: %v", e.Err)
}
func (e *NodeClassNotReadyError) Unwrap() error { return e.Err }

// IsNodeClassNotReady reports whether err is a NodeClassNotReadyError.
func IsNodeClassNotReady(err error) bool { return isA[*NodeClassNotReadyError](err) }

// CreatePendingError says a create may have made a VM the cloud does not list yet: the launch
// must look again, without creating, until Until.
type CreatePendingError struct {
	Until time.Time
	Err   error
}

func (e *CreatePendingError) Error() string { return e.Err.Error() }
func (e *CreatePendingError) Unwrap() error { return e.Err }

// IsCreatePending reports whether err is a CreatePendingError.
func IsCreatePending(err error) bool {
	var e *CreatePendingError
	return errors.As(err, &e)
}

// ThrottledError says the cloud refused a call for its rate limit before doing anything:
// nothing was made or deleted, and the call is to be made again after RetryAfter (0 when the
// cloud did not say), by the same worker's next pass rather than by the workqueue's backoff,
// which would keep growing for as long as the throttling lasts.
type ThrottledError struct {
	RetryAfter time.Duration
	Err        error
}

func (e *ThrottledError) Error() string { return fmt.Sprintf("throttled: %v", e.Err) }
func (e *ThrottledError) Unwrap() error { return e.Err }

// Throttled returns how long a ThrottledError in err asks to wait, and whether there is one.
func Throttled(err error) (time.Duration, bool) {
	var e *ThrottledError
	if !errors.As(err, &e) {
		return 0, false
	}
	return e.RetryAfter, true
}

// ProviderID returns the provider id of a KakaoCloud VM.
func ProviderID(instanceID string) string { return kcv1.ProviderIDPrefix + instanceID }

// isA reports whether err, or an error it wraps, is of type T.
func isA[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}
