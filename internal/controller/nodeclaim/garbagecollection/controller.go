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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/singleton"
)

// DefaultInterval is how often NodeClaims are checked against KakaoCloud's VMs.
const DefaultInterval = 2 * time.Minute

// DefaultGrace is how long after its registration a NodeClaim is left alone: a listing may
// not show a VM at once.
const DefaultGrace = 30 * time.Second

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch

// Collector checks, every Interval, the registered NodeClaims against the VMs KakaoCloud has.
type Collector struct {
	Client        client.Client
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	singleton.Period
}

// Start collects every Interval until ctx ends.
func (c *Collector) Start(ctx context.Context) error {
	return c.Period.Every(ctx, DefaultInterval, "garbage collection of nodeclaims failed", singleton.Discarding(c.Collect))
}

// Collect deletes the NodeClaims, registered longer than Grace ago, whose VM KakaoCloud no
// longer has and whose node is not Ready, and returns their names. A VM missing from the
// listing is asked for by its id before its NodeClaim goes: only a VM that is really gone (or
// being deleted) counts, not one the listing left out (a marker that does not verify).
//
//nolint:gocyclo // the conditions under which a NodeClaim's VM counts as gone, each a guard against deleting a NodeClaim whose VM a listing only left out
func (c *Collector) Collect(ctx context.Context) ([]string, error) {
	claims := &karpv1.NodeClaimList{}
	if err := c.Client.List(ctx, claims); err != nil {
		return nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	listed, err := c.CloudProvider.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the cloud provider's VMs: %w", err)
	}
	present := make(map[string]bool, len(listed))
	for _, nodeClaim := range listed {
		present[nodeClaim.Status.ProviderID] = true
	}
	var deleted []string
	var errs []error
	for i := range claims.Items {
		nodeClaim := &claims.Items[i]
		registered := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeRegistered)
		if !nodeClaim.DeletionTimestamp.IsZero() || nodeClaim.Status.ProviderID == "" || present[nodeClaim.Status.ProviderID] ||
			registered == nil || registered.Status != "True" || c.InGrace(registered.LastTransitionTime.Time, DefaultGrace) {
			continue
		}
		ready, err := c.nodeReady(ctx, nodeClaim)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ready {
			continue
		}
		// Still there, or not known (err): leave it.
		if _, err := c.CloudProvider.Get(ctx, nodeClaim.Status.ProviderID); !cloudprovider.IsNodeClaimNotFound(err) {
			if err != nil {
				errs = append(errs, fmt.Errorf("getting the VM of NodeClaim %s: %w", nodeClaim.Name, err))
			}
			continue
		}
		instanceGone(c.Recorder, nodeClaim)
		log.FromContext(ctx).Info("garbage collecting nodeclaim with no cloudprovider representation",
			"NodeClaim", klog.KRef("", nodeClaim.Name), "provider-id", nodeClaim.Status.ProviderID)
		// By UID: a NodeClaim made since under the same name has a VM of its own.
		deletion, err := nodeclaimutil.Delete(ctx, c.Client, nodeClaim)
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting nodeclaim %s, whose VM is gone: %w", nodeClaim.Name, err))
			continue
		}
		if deletion.Accepted() {
			deleted = append(deleted, nodeClaim.Name)
		}
	}
	return deleted, errors.Join(errs...)
}

// nodeReady reports whether the NodeClaim's node exists and is Ready: a node still reporting
// Ready means its VM runs, whatever the listing says.
func (c *Collector) nodeReady(ctx context.Context, nodeClaim *karpv1.NodeClaim) (bool, error) {
	if nodeClaim.Status.NodeName == "" {
		return false, nil
	}
	node := &corev1.Node{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: nodeClaim.Status.NodeName}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("getting node %s of NodeClaim %s: %w", nodeClaim.Status.NodeName, nodeClaim.Name, err)
	}
	return nodeutil.IsReady(node), nil
}
