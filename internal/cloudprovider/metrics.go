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
	"time"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

var (
	methodDuration = metrics.HistogramVec("karpenter_cloudprovider_duration_seconds",
		"Duration of cloud provider method calls, by the controller that called, the method and the provider.",
		nil, "controller", "method", "provider")
	methodErrors = metrics.Counter("karpenter_cloudprovider_errors_total",
		"Errors returned by cloud provider method calls, by controller, method, provider, error category and NodePool.",
		"controller", "method", "provider", "error", "nodepool")
)

// The error label's values, one per error the controllers tell apart.
const (
	ErrorNodeClaimNotFound    = "NodeClaimNotFoundError"
	ErrorNodeClassNotReady    = "NodeClassNotReadyError"
	ErrorInsufficientCapacity = "InsufficientCapacityError"
	ErrorUnknown              = "unknown"
)

// ErrorCategory is the error label of err.
func ErrorCategory(err error) string {
	switch {
	case IsNodeClaimNotFound(err):
		return ErrorNodeClaimNotFound
	case IsNodeClassNotReady(err):
		return ErrorNodeClassNotReady
	case IsInsufficientCapacity(err):
		return ErrorInsufficientCapacity
	default:
		return ErrorUnknown
	}
}

// Measured is provider as one controller calls it: every method timed and every error counted
// under the controller's name. Each controller gets its own, so that no context has to carry
// the name through.
func Measured(provider CloudProvider, controller string) CloudProvider {
	return &measured{CloudProvider: provider, controller: controller}
}

type measured struct {
	CloudProvider
	controller string
}

// observe times a call that started at start and counts its error, if any.
func (m *measured) observe(method string, start time.Time, nodePool string, err error) {
	methodDuration.WithLabelValues(m.controller, method, m.Name()).Observe(time.Since(start).Seconds())
	if err != nil {
		methodErrors.WithLabelValues(m.controller, method, m.Name(), ErrorCategory(err), nodePool).Inc()
	}
}

func nodePoolOf(nodeClaim *karpv1.NodeClaim) string {
	if nodeClaim == nil {
		return ""
	}
	return nodeClaim.Labels[karpv1.LabelNodePool]
}

func (m *measured) Create(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	start := time.Now()
	launched, err := m.CloudProvider.Create(ctx, nodeClaim)
	m.observe("Create", start, nodePoolOf(nodeClaim), err)
	return launched, err
}

func (m *measured) Delete(ctx context.Context, nodeClaim *karpv1.NodeClaim) error {
	start := time.Now()
	err := m.CloudProvider.Delete(ctx, nodeClaim)
	m.observe("Delete", start, nodePoolOf(nodeClaim), err)
	return err
}

func (m *measured) Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error) {
	start := time.Now()
	nodeClaim, err := m.CloudProvider.Get(ctx, providerID)
	m.observe("Get", start, nodePoolOf(nodeClaim), err)
	return nodeClaim, err
}

func (m *measured) List(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	start := time.Now()
	nodeClaims, err := m.CloudProvider.List(ctx)
	m.observe("List", start, "", err)
	return nodeClaims, err
}

func (m *measured) GetInstanceTypes(ctx context.Context, nodePool *karpv1.NodePool) ([]*InstanceType, error) {
	start := time.Now()
	instanceTypes, err := m.CloudProvider.GetInstanceTypes(ctx, nodePool)
	name := ""
	if nodePool != nil {
		name = nodePool.Name
	}
	m.observe("GetInstanceTypes", start, name, err)
	return instanceTypes, err
}

func (m *measured) CheckLaunch(ctx context.Context, nodeClaim *karpv1.NodeClaim) error {
	start := time.Now()
	err := m.CloudProvider.CheckLaunch(ctx, nodeClaim)
	m.observe("CheckLaunch", start, nodePoolOf(nodeClaim), err)
	return err
}

func (m *measured) IsDrifted(ctx context.Context, nodeClaim *karpv1.NodeClaim) (Drift, error) {
	start := time.Now()
	drift, err := m.CloudProvider.IsDrifted(ctx, nodeClaim)
	m.observe("IsDrifted", start, nodePoolOf(nodeClaim), err)
	return drift, err
}

func (m *measured) InstanceState(ctx context.Context, nodeClaim *karpv1.NodeClaim) (string, error) {
	start := time.Now()
	state, err := m.CloudProvider.InstanceState(ctx, nodeClaim)
	m.observe("InstanceState", start, nodePoolOf(nodeClaim), err)
	return state, err
}
