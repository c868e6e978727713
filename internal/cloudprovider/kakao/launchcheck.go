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
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// launchStatusTTL is how old a listing of the VMs may be when a launch, a repair or drift is
// checked: every NodeClaim is checked from one list call per period, not one call each.
const launchStatusTTL = 5 * time.Second

// launchStatuses is the last listing of this cluster's VMs, by ID.
type launchStatuses struct {
	mu     sync.Mutex
	at     time.Time
	byID   map[string]kakaocloud.Instance
	listed bool
}

// CheckLaunch looks at the NodeClaim's VM in a listing at most launchStatusTTL old. A VM in
// error is a failed launch: when its action log says the cloud had no capacity (assumption
// A7, A18), the offering is marked unavailable and an InsufficientCapacityError returned, so
// that the NodeClaim is deleted and its pods go to the next type or zone; otherwise a
// LaunchFailedError with the action log's message. A VM missing from the listing is left to
// registration's timeout: a new VM may not be listed yet.
func (p *CloudProvider) CheckLaunch(ctx context.Context, nodeClaim *karpv1.NodeClaim) (err error) {
	defer func() { err = throttled(err) }()
	id, err := instanceID(nodeClaim.Status.ProviderID)
	if err != nil {
		return nil
	}
	inst, ok, err := p.launchStatus(ctx, id)
	if err != nil || !ok || !strings.EqualFold(inst.Status, kakaocloud.InstanceStatusError) {
		return err
	}
	message, err := p.instances.FailureMessage(ctx, id)
	if err != nil && !errors.Is(err, kakaocloud.ErrNotFound) {
		return fmt.Errorf("looking up why the launch failed: %w", err)
	}
	flavor, zone := nodeClaim.Labels[karpv1.LabelInstanceType], nodeClaim.Labels[karpv1.LabelTopologyZone]
	if message == "" {
		message = "the VM went to error and its action log gives no reason"
	}
	if kakaocloud.IsCapacityMessage(message) {
		p.unavailable.MarkUnavailable(flavor, zone, karpv1.CapacityTypeOnDemand, message)
		return &cloudprovider.InsufficientCapacityError{Err: fmt.Errorf("VM %s (%s in %s) went to error: %s", id, flavor, zone, message)}
	}
	return &cloudprovider.LaunchFailedError{Err: fmt.Errorf("VM %s (%s in %s) went to error: %s", id, flavor, zone, message)}
}

// launchStatus returns the VM from the cached listing, listing again when it is older than
// launchStatusTTL; concurrent callers share one list call.
func (p *CloudProvider) launchStatus(ctx context.Context, id string) (kakaocloud.Instance, bool, error) {
	s := &p.launches
	s.mu.Lock()
	defer s.mu.Unlock()
	// A listing from the future (the clock was set back) is as stale as an old one.
	if age := p.clock.Since(s.at); !s.listed || age > launchStatusTTL || age < 0 {
		owned, err := p.instances.List(ctx)
		if err != nil {
			return kakaocloud.Instance{}, false, fmt.Errorf("listing the cluster's VMs: %w", err)
		}
		s.byID = make(map[string]kakaocloud.Instance, len(owned))
		for _, o := range owned {
			s.byID[o.Instance.ID] = o.Instance
		}
		s.at, s.listed = p.clock.Now(), true
	}
	inst, ok := s.byID[id]
	return inst, ok, nil
}

// listedOrGot returns the VM from the shared listing, or, for a VM too new to be in it, from a
// get, remembered in the listing until the next one: a NodeClaim asked about many times while
// its VM boots costs one get, not one each time.
func (p *CloudProvider) listedOrGot(ctx context.Context, id string) (kakaocloud.Instance, error) {
	inst, listed, err := p.launchStatus(ctx, id)
	if err != nil || listed {
		return inst, err
	}
	if inst, err = p.instances.Get(ctx, id); err != nil {
		return inst, fmt.Errorf("looking up the launched VM: %w", err)
	}
	s := &p.launches
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID != nil {
		s.byID[id] = inst
	}
	return inst, nil
}
