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

package operator

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/operator-framework/operator-lib/conditions"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/capacitybuffer"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/instance/garbagecollection"
	nodemetrics "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/metrics/node"
	podmetrics "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/metrics/pod"
	statusmetrics "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/metrics/status"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/node/health"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/bootstraptoken"
	nodeclaimdisruption "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/expiration"
	nodeclaimgc "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/garbagecollection"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/podevents"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclass"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodepool"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodepool/static"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/operatorcondition"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/provisioning"
	karpevents "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/events"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/index"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/singleton"
)

// Options are the parts every controller is built from. Zero durations mean each
// controller's default.
type Options struct {
	// Client writes to the API server and reads through the manager's cache.
	Client client.Client
	// APIReader reads the API server directly, where a cached read could be stale.
	APIReader   client.Reader
	KakaoCloud  *kakaocloud.Client
	Catalog     *catalog.Catalog
	Keyring     signing.KeyringSource
	ClusterName string
	Recorder    events.EventRecorder
	// Clock tells every controller the time; the real clock when nil.
	Clock clock.Clock
	// CloudProvider, when set, is what every controller that launches, lists, deletes or
	// prices VMs uses instead of KakaoCloud's (a fake, in specs that call the controllers
	// themselves); the KCNodeClass controller still resolves against KakaoCloud.
	CloudProvider cloudprovider.CloudProvider
	// Bootstrap writes the join script; without it VMs get only their KCNodeClass's user data.
	Bootstrap kakao.Bootstrapper
	// BootstrapTokenTTL is how long the tokens Bootstrap mints are valid, which tells the
	// controller that deletes spent tokens which NodeClaims may still hold one at start.
	BootstrapTokenTTL time.Duration
	PriceOverrides    instancetype.PriceOverrideSource

	BatchIdle, BatchMax                  time.Duration
	DisruptionPoll, DisruptionValidation time.Duration
	NodeClassResync                      time.Duration
	LaunchTimeout, RegistrationTimeout   time.Duration
	// NodeRepair runs node repair; RepairTolerations are its KakaoCloud policies' tolerations.
	NodeRepair        bool
	RepairTolerations kakao.RepairTolerations
	// LegacyNodeRepair repairs with the controller of before upstream Karpenter v1.15 (every
	// unhealthy node's NodeClaim deleted at once, its drain forceful, no budgets) instead of
	// the disruption loop's repair method.
	LegacyNodeRepair bool
	// Policies are --preference-policy and --min-values-policy, for provisioning and
	// disruption alike; SchedulerConfig is --scheduler-config.
	Policies        simulation.Policies
	SchedulerConfig *simulation.SchedulerConfiguration
	// CapacityBuffers serves CapacityBuffers (the CapacityBuffer feature gate).
	CapacityBuffers bool

	// Upgradeable is the OLM OperatorCondition's Upgradeable condition; only under OLM.
	Upgradeable conditions.Condition
	// NextReleaseMinimum is the oldest Kubernetes minor the next release supports.
	NextReleaseMinimum string
}

// Controllers is every controller of the operator, with the cloud provider they share.
type Controllers struct {
	// WhatIf answers kubectl karpenter's whatif on the webhook server.
	WhatIf        *explain.Handler
	CloudProvider *kakao.CloudProvider
	Instances     *instance.Provider

	NodeClass          *nodeclass.Reconciler
	NodePool           *nodepool.Reconciler
	Static             *static.Reconciler
	Lifecycle          *lifecycle.Reconciler
	Provisioner        *provisioning.Provisioner
	Conditions         *nodeclaimdisruption.Reconciler
	PodEvents          *podevents.Reconciler
	Expiration         *expiration.Reconciler
	Disruption         *disruption.Controller
	InstanceCollector  *garbagecollection.Collector
	NodeClaimCollector *nodeclaimgc.Collector
	// Health is the legacy repair controller, nil unless node repair runs the legacy way.
	Health *health.Reconciler
	// OperatorCondition is nil when the operator does not run under OLM.
	OperatorCondition *operatorcondition.Reconciler
	// CapacityBuffer is nil unless the CapacityBuffer feature gate is on.
	CapacityBuffer *capacitybuffer.Reconciler
	// BootstrapToken is nil when VMs get no join script, hence no bootstrap token.
	BootstrapToken *bootstraptoken.Reconciler
	PodMetrics     *podmetrics.Reconciler
	NodeMetrics    *nodemetrics.Controller
	// StatusMetrics serve the operator_* status-condition and termination families.
	StatusMetrics []statusmetrics.Controller
}

// NewControllers builds the controllers from o.
func NewControllers(o Options) *Controllers {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.APIReader == nil {
		o.APIReader = o.Client
	}
	// One recorder for every controller, which drops repeats of the same event.
	o.Recorder = karpevents.NewRecorder(o.Recorder, 0, o.Clock)
	provider, instances := kakao.Assemble(kakao.Components{
		Kube: o.Client, Client: o.KakaoCloud, Catalog: o.Catalog, Keyring: o.Keyring, ClusterName: o.ClusterName,
		Recorder: o.Recorder, Clock: o.Clock, Bootstrap: o.Bootstrap, PriceOverrides: o.PriceOverrides, Repair: o.RepairTolerations,
	})
	var shared cloudprovider.CloudProvider = provider
	if o.CloudProvider != nil {
		shared = o.CloudProvider
	}
	var repair *health.Reconciler
	if o.NodeRepair && o.LegacyNodeRepair {
		repair = &health.Reconciler{Client: o.Client, CloudProvider: cloudprovider.Measured(shared, NodeHealth), Recorder: o.Recorder, Clock: o.Clock}
	}
	// The NodeClaim lifecycle records whether launched nodes register; the NodePool
	// controller turns that into NodeRegistrationHealthy.
	registrations := state.NewRegistrationHealth()
	// Static NodePools' NodeClaims are created by their replica controller and by the
	// disruption loop's replacements, counted against limits.nodes together.
	staticLaunches := &state.StaticLaunches{Reader: o.APIReader}
	var operatorCondition *operatorcondition.Reconciler
	if o.Upgradeable != nil {
		operatorCondition = &operatorcondition.Reconciler{
			Client: o.Client, Condition: o.Upgradeable,
			NextReleaseMinimum: cmp.Or(o.NextReleaseMinimum, operatorcondition.DefaultNextReleaseMinimum),
		}
	}
	// Provisioning notes when it saw, decided about and placed each pending pod; the pod
	// metrics time the pods' waits from them.
	schedulingTimes := state.NewPodSchedulingTimes(o.Clock)
	provisioner := &provisioning.Provisioner{
		Client: o.Client, APIReader: o.APIReader, CloudProvider: cloudprovider.Measured(shared, "provisioner"), Recorder: o.Recorder, Clock: o.Clock,
		Batcher: provisioning.NewBatcher(o.Clock, o.BatchIdle, o.BatchMax), Policies: o.Policies, SchedulerConfig: o.SchedulerConfig,
		CapacityBuffers: o.CapacityBuffers, SchedulingTimes: schedulingTimes,
	}
	// kubectl karpenter's whatif: provisioning's own input, built with the instance types as
	// the provisioner gets them, and a simulation that creates nothing.
	whatIf := &explain.Handler{Reviewer: o.Client, Explainer: &explain.Explainer{Reader: o.Client, Clock: o.Clock, NodeClassDrift: kakao.SpecDriftOf, Inputs: simulation.Builder{
		Reader: o.Client, InstanceTypes: cloudprovider.Measured(shared, "explain").GetInstanceTypes, Policies: o.Policies, SchedulerConfig: o.SchedulerConfig,
	}}}
	var buffers *capacitybuffer.Reconciler
	if o.CapacityBuffers {
		buffers = &capacitybuffer.Reconciler{Client: o.Client, Provision: provisioner.Batcher.Trigger, Clock: o.Clock}
	}
	var tokens *bootstraptoken.Reconciler
	if o.Bootstrap != nil {
		tokens = &bootstraptoken.Reconciler{Client: o.Client, Clock: o.Clock, TokenTTL: o.BootstrapTokenTTL,
			LaunchTimeout: cmp.Or(o.LaunchTimeout, lifecycle.DefaultLaunchTimeout)}
	}
	return &Controllers{
		BootstrapToken:    tokens,
		WhatIf:            whatIf,
		PodMetrics:        &podmetrics.Reconciler{Client: o.Client, Clock: o.Clock, SchedulingTimes: schedulingTimes},
		NodeMetrics:       &nodemetrics.Controller{Client: o.Client, Clock: o.Clock},
		StatusMetrics:     statusmetrics.NewControllers(o.Client, o.Clock),
		CapacityBuffer:    buffers,
		OperatorCondition: operatorCondition,
		Health:            repair,
		CloudProvider:     provider,
		Instances:         instances,
		NodeClass: &nodeclass.Reconciler{
			Client: o.Client, Catalog: o.Catalog, Images: o.KakaoCloud, Recorder: o.Recorder, ResyncPeriod: o.NodeClassResync,
		},
		NodePool: &nodepool.Reconciler{Client: o.Client, CloudProvider: cloudprovider.Measured(shared, NodePool), RegistrationHealth: registrations},
		Static:   &static.Reconciler{Client: o.Client, Launches: staticLaunches, CloudProvider: cloudprovider.Measured(shared, Static), Recorder: o.Recorder, Clock: o.Clock},
		Lifecycle: &lifecycle.Reconciler{
			Client: o.Client, CloudProvider: cloudprovider.Measured(shared, Lifecycle), Recorder: o.Recorder, Clock: o.Clock,
			LaunchTimeout: o.LaunchTimeout, RegistrationTimeout: o.RegistrationTimeout,
			RegistrationHealth: registrations,
		},
		Provisioner: provisioner,
		Conditions:  &nodeclaimdisruption.Reconciler{Client: o.Client, CloudProvider: cloudprovider.Measured(shared, Conditions), Recorder: o.Recorder, Clock: o.Clock},
		PodEvents:   &podevents.Reconciler{Client: o.Client, Clock: o.Clock},
		Expiration:  &expiration.Reconciler{Client: o.Client, Recorder: o.Recorder, Clock: o.Clock},
		Disruption: &disruption.Controller{
			Client: o.Client, APIReader: o.APIReader, StaticLaunches: staticLaunches, CloudProvider: cloudprovider.Measured(shared, Disruption), Recorder: o.Recorder, Clock: o.Clock,
			PollInterval: o.DisruptionPoll, ValidationDelay: o.DisruptionValidation,
			NodeRepair: o.NodeRepair && !o.LegacyNodeRepair, Policies: o.Policies, SchedulerConfig: o.SchedulerConfig,
			CapacityBuffers: o.CapacityBuffers,
		},
		InstanceCollector:  &garbagecollection.Collector{Client: o.Client, Instances: instances, Period: singleton.Period{Clock: o.Clock}},
		NodeClaimCollector: &nodeclaimgc.Collector{Client: o.Client, CloudProvider: cloudprovider.Measured(shared, NodeClaimCollector), Recorder: o.Recorder, Period: singleton.Period{Clock: o.Clock}},
	}
}

// Names of the controllers, as Register takes them.
const (
	NodeClass          = "nodeclass"
	NodePool           = "nodepool"
	Static             = "nodepool.static"
	Lifecycle          = "nodeclaim.lifecycle"
	Provisioning       = "provisioning"
	Conditions         = "nodeclaim.disruption"
	PodEvents          = "nodeclaim.podevents"
	Expiration         = "nodeclaim.expiration"
	Disruption         = "disruption"
	InstanceCollector  = "garbagecollection"
	NodeClaimCollector = "nodeclaim.garbagecollection"
	NodeHealth         = "node.health"
	OperatorCondition  = "operatorcondition"
	CapacityBuffer     = "capacitybuffer"
	BootstrapToken     = "nodeclaim.bootstraptoken"
	PodMetrics         = "metrics.pod"
	NodeMetrics        = "metrics.node"
	StatusMetrics      = "metrics.status"
)

// IndexFields registers every cache index the controllers read through (package index), on
// the manager's cache, once, before any controller is registered: cmd/main.go does, and the
// suites' environment.
func IndexFields(ctx context.Context, indexer client.FieldIndexer) error {
	for _, field := range index.Fields() {
		if err := indexer.IndexField(ctx, field.Object, field.Name, field.Extract); err != nil {
			return fmt.Errorf("indexing %T by %s: %w", field.Object, field.Name, err)
		}
	}
	return nil
}

// Register puts the controllers on the manager, which runs them once started: every one, or
// only those named. They read through the indexes IndexFields registers.
func (c *Controllers) Register(ctx context.Context, mgr ctrl.Manager, only ...string) error {
	for _, r := range []struct {
		name     string
		register func() error
	}{
		{NodeClass, func() error { return c.NodeClass.SetupWithManager(mgr) }},
		{NodePool, func() error { return c.NodePool.SetupWithManager(mgr) }},
		{Static, func() error { return c.Static.SetupWithManager(mgr) }},
		{Lifecycle, func() error { return c.Lifecycle.SetupWithManager(mgr) }},
		{Provisioning, func() error { return c.Provisioner.SetupWithManager(mgr) }},
		{Conditions, func() error { return c.Conditions.SetupWithManager(mgr) }},
		{PodEvents, func() error { return c.PodEvents.SetupWithManager(mgr) }},
		{Expiration, func() error { return c.Expiration.SetupWithManager(mgr) }},
		{Disruption, func() error { return mgr.Add(c.Disruption) }},
		{InstanceCollector, func() error { return mgr.Add(c.InstanceCollector) }},
		{NodeClaimCollector, func() error { return mgr.Add(c.NodeClaimCollector) }},
		{NodeHealth, func() error {
			if c.Health == nil {
				return nil
			}
			return c.Health.SetupWithManager(mgr)
		}},
		{OperatorCondition, func() error {
			if c.OperatorCondition == nil {
				return nil
			}
			return c.OperatorCondition.SetupWithManager(mgr)
		}},
		{CapacityBuffer, func() error {
			if c.CapacityBuffer == nil {
				return nil
			}
			// Without its CRD the controller's watch would fail the manager's start with a
			// message that does not say which gate asked for it.
			if _, err := mgr.GetRESTMapper().RESTMapping(schema.GroupKind{Group: autoscalingv1beta1.Group, Kind: "CapacityBuffer"}); err != nil {
				return fmt.Errorf("the CapacityBuffer feature gate is on, but the API server does not serve %s CapacityBuffers (install the CRD capacitybuffers.%s, or turn the gate off): %w",
					autoscalingv1beta1.GroupVersion, autoscalingv1beta1.Group, err)
			}
			return c.CapacityBuffer.SetupWithManager(mgr)
		}},
		{BootstrapToken, func() error {
			if c.BootstrapToken == nil {
				return nil
			}
			return c.BootstrapToken.SetupWithManager(mgr)
		}},
		{PodMetrics, func() error { return c.PodMetrics.SetupWithManager(mgr) }},
		{NodeMetrics, func() error {
			c.NodeMetrics.HasSynced = func(ctx context.Context) bool {
				// Synced informers answer at once; a second bounds the wait for one that is not.
				ctx, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				return mgr.GetCache().WaitForCacheSync(ctx)
			}
			return mgr.Add(c.NodeMetrics)
		}},
		{StatusMetrics, func() error {
			for _, s := range c.StatusMetrics {
				if err := s.SetupWithManager(mgr); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		if len(only) > 0 && !slices.Contains(only, r.name) {
			continue
		}
		if err := r.register(); err != nil {
			return fmt.Errorf("registering controller %s: %w", r.name, err)
		}
	}
	return nil
}
