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

package garbagecollection

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/singleton"
)

// Defaults: how often to look, and how old a VM must be before it can be a leftover, which
// leaves a launch in flight time to record its VM on the NodeClaim.
const (
	DefaultInterval = 2 * time.Minute
	DefaultGrace    = 30 * time.Second
)

var leakedInstancesDeleted = metrics.Counter("karpenter_kakaocloud_leaked_instances_deleted_total",
	"VMs this cluster owned that no NodeClaim accounted for, deleted by garbage collection.").WithLabelValues()

// Collector finds and deletes leftover VMs.
type Collector struct {
	Client    client.Reader
	Instances *instance.Provider
	singleton.Period
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch

// Start collects every Interval until ctx ends.
func (c *Collector) Start(ctx context.Context) error {
	return c.Period.Every(ctx, DefaultInterval, "garbage collection of leaked instances failed", singleton.Discarding(c.Collect))
}

// Collect deletes the owned VMs that no NodeClaim accounts for and returns their ids. A VM is
// accounted for when a NodeClaim records its provider id, or is named for a NodeClaim that
// records no VM yet (a launch in flight adopts it). A VM named for a NodeClaim that records
// another VM is a second VM for it (its create's answer was lost and KakaoCloud listed it only
// after the launch had made another) and is deleted.
func (c *Collector) Collect(ctx context.Context) ([]string, error) {
	owned, err := c.Instances.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the cluster's VMs: %w", err)
	}
	claims := &karpv1.NodeClaimList{}
	if err := c.Client.List(ctx, claims); err != nil {
		return nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	providerIDs := map[string]bool{}
	// recorded maps a VM name to whether its NodeClaim records a VM yet.
	recorded := map[string]bool{}
	for _, nodeClaim := range claims.Items {
		providerIDs[nodeClaim.Status.ProviderID] = true
		recorded[instance.VMName(nodeClaim.Name)] = nodeClaim.Status.ProviderID != ""
	}

	var deleted []string
	var errs []error
	for _, o := range owned {
		inst := o.Instance
		launching, named := recorded[inst.Name]
		if strings.EqualFold(inst.Status, kakaocloud.InstanceStatusDeleting) ||
			providerIDs[cloudprovider.ProviderID(inst.ID)] || (named && !launching) || c.InGrace(inst.CreatedAt, DefaultGrace) {
			continue
		}
		if err := c.Instances.Delete(ctx, inst.ID, inst.Name); err != nil && !errors.Is(err, kakaocloud.ErrNotFound) {
			errs = append(errs, fmt.Errorf("deleting leaked VM %s (%s): %w", inst.ID, inst.Name, err))
			continue
		}
		leakedInstancesDeleted.Inc()
		log.FromContext(ctx).Info("garbage collected leaked instance", "instance", inst.ID, "name", inst.Name,
			"instance-type", inst.Flavor.Name, "zone", inst.AvailabilityZone, "duplicate", named)
		deleted = append(deleted, inst.ID)
	}
	return deleted, errors.Join(errs...)
}
