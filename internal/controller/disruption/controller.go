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

package disruption

import (
	"context"
	"time"

	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	karpevents "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/events"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
)

// Defaults of the disruption loop.
const (
	DefaultPollInterval = 10 * time.Second
	// ConsolidatedRecheck is how long consolidation is skipped while the cluster looks the same
	// as when consolidation last found nothing to do.
	ConsolidatedRecheck = 5 * time.Minute
	// MaxBatch is the most consolidation commands one pass decides to validate together
	// (DecideBatch): it bounds a pass's work and its log when each decision is quick.
	MaxBatch = 50
	// StaleTaintGrace is how long a karpenter.sh/disrupted taint that no command and no
	// deletion accounts for stays before it is removed. Taints there on a process's first pass
	// are removed at once.
	StaleTaintGrace = 30 * time.Second
)

// Controller is the disruption loop. It runs on the leader only.
type Controller struct {
	Client client.Client
	// APIReader reads objects fresh for read-modify-write; Client when nil.
	APIReader     client.Reader
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	// PollInterval is the time between two passes; DefaultPollInterval when zero.
	PollInterval time.Duration
	// ValidationDelay is how long a consolidation command waits before it is checked again
	// and carried out; the decision's DefaultValidationDelay when zero.
	ValidationDelay time.Duration
	// ReplacementTimeout bounds the wait for replacements; DefaultReplacementTimeout when zero.
	ReplacementTimeout time.Duration
	// EventRepeat is how long the same explanation is not published again; the shared
	// recorder's default when zero.
	EventRepeat time.Duration
	// NodeRepair runs the repair method: unhealthy nodes replaced within the budgets of reason
	// Unhealthy. Off when node repair is off, or left to the legacy repair controller.
	NodeRepair bool
	// Policies are --preference-policy and --min-values-policy, as provisioning has them.
	Policies simulation.Policies
	// SchedulerConfig is --scheduler-config: default topology spread constraints, nil when none.
	SchedulerConfig *simulation.SchedulerConfiguration
	// CapacityBuffers keeps the room of CapacityBuffers (the CapacityBuffer feature gate).
	CapacityBuffers bool
	// StaticLaunches counts a static NodePool's replacement against limits.nodes with the
	// replica controller's creations; one of its own over APIReader when nil.
	StaticLaunches *state.StaticLaunches
	// Clock tells the time; the real clock when nil.
	Clock clock.Clock
	now   func() time.Time

	orchestrator *orchestrator
	recorder     events.EventRecorder
	validating   *validating
	consolidated *consolidatedState
	staleSince   map[string]time.Time
	// passed is set after the first pass of this process.
	passed bool
}

// validating are the consolidation commands of a batch (DecideBatch) waiting for their second
// look.
type validating struct {
	cmds      []*engine.Command
	decidedAt time.Time
}

// consolidatedState is when consolidation last found nothing to do, and on what cluster
// (Snapshot.Fingerprint).
type consolidatedState struct {
	fingerprint uint64
	at          time.Time
}

// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools/status,verbs=get;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=daemonsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// NeedLeaderElection makes only the leader disrupt.
func (c *Controller) NeedLeaderElection() bool { return true }

// Start runs passes until ctx ends.
func (c *Controller) Start(ctx context.Context) error {
	c.init()
	logger := log.FromContext(ctx).WithName("disruption")
	ctx = log.IntoContext(ctx, logger)
	for {
		next, err := c.pass(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Error(err, "disruption pass failed")
			next = c.PollInterval
		}
		select {
		case <-ctx.Done():
			return nil
		case <-c.Clock.After(next):
		}
	}
}

func (c *Controller) init() {
	if c.orchestrator != nil {
		return
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	c.now = c.Clock.Now
	if c.APIReader == nil {
		c.APIReader = c.Client
	}
	if c.StaticLaunches == nil {
		c.StaticLaunches = &state.StaticLaunches{Reader: c.APIReader}
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.ValidationDelay <= 0 {
		c.ValidationDelay = engine.DefaultValidationDelay
	}
	if c.ReplacementTimeout <= 0 {
		c.ReplacementTimeout = DefaultReplacementTimeout
	}
	// The loop re-evaluates every few seconds: its explanations go through a recorder that
	// drops repeats, the operator's shared one or one of its own.
	c.recorder = c.Recorder
	if _, shared := c.Recorder.(*karpevents.Recorder); !shared {
		c.recorder = karpevents.NewRecorder(c.Recorder, c.EventRepeat, c.Clock)
	}
	c.orchestrator = &orchestrator{client: c.Client, reader: c.APIReader, static: c.StaticLaunches, recorder: c.recorder, now: c.now, timeout: c.ReplacementTimeout}
	c.staleSince = map[string]time.Time{}
}

// Pass advances the commands under way, then decides (or validates) the next command and
// starts it.
func (c *Controller) Pass(ctx context.Context) error {
	_, err := c.pass(ctx)
	return err
}

// pass is Pass, and says when the next one is due: once the validation delay of the commands
// it decided is over, at once after it started a command or gave up a validated one (the next
// candidate need not wait a poll interval, which made every consolidation move take three
// passes and every drifted node one), and otherwise after PollInterval. It reads the cluster
// into the decision's input (input.go), lets the decision decide (internal/disruption),
// reports what it decided (report.go, poolstatus.go) and carries it out (orchestration.go).
func (c *Controller) pass(ctx context.Context) (time.Duration, error) {
	c.init()
	if c.orchestrator.advance(ctx) > 0 {
		// A command was just rolled back: its nodes stay untainted, and its failure (say, a
		// replacement that cannot register) is not tried again, for a poll interval, as
		// upstream's loop, which polls apart from its command queue, leaves them.
		return c.PollInterval, nil
	}

	// Read.
	in, err := c.readInput(ctx)
	if err != nil {
		return 0, err
	}
	snap := engine.NewSnapshot(in)
	// What the cluster shows whatever is decided: taints no command accounts for, and the
	// nodes a do-not-disrupt annotation or a PodDisruptionBudget holds.
	c.removeStaleTaints(ctx, snap.UnaccountedTaints())
	c.publishBlocked(ctx, in.NodePools, snap.BlockedByPool())

	// A batch waiting out its validation delay is validated once the delay is over, on the
	// cluster as it is now; nothing new is decided meanwhile.
	if v := c.validating; v != nil {
		if left := c.ValidationDelay - c.now().Sub(v.decidedAt); left > 0 {
			return min(left, c.PollInterval), nil
		}
		c.validating = nil
		valid, rejected := engine.ValidateBatch(in, snap, v.cmds)
		c.reportRejected(ctx, rejected)
		return 0, c.startAll(ctx, valid)
	}

	// Decide.
	fingerprint := snap.Fingerprint()
	skip := c.consolidated != nil && c.consolidated.fingerprint == fingerprint && c.now().Sub(c.consolidated.at) < ConsolidatedRecheck
	// More moves are decided while deciding takes less than the delay every one of them waits
	// out anyway, up to MaxBatch.
	started := c.now()
	d := engine.DecideBatch(in, snap, engine.Options{SkipConsolidation: skip, Clock: c.now}, func(decided int) bool {
		return decided < MaxBatch && c.now().Sub(started) < c.ValidationDelay
	})
	switch {
	case d.Consolidated:
		c.consolidated = &consolidatedState{fingerprint: fingerprint, at: c.now()}
	case !skip:
		c.consolidated = nil
	}

	// Report.
	c.report(ctx, d)

	// Carry out.
	return c.carryOut(ctx, d)
}
