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
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/klog/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	karpevents "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/events"
	health "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
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
	// and carried out; DefaultValidationDelay when zero.
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
	cmds      []*Command
	decidedAt time.Time
}

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
		c.ValidationDelay = DefaultValidationDelay
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
// passes and every drifted node one), and otherwise after PollInterval.
//
//nolint:gocyclo // the loop's one pass read top to bottom (advance, snapshot, validate, decide, start), each step returning when the next is due
func (c *Controller) pass(ctx context.Context) (time.Duration, error) {
	c.init()
	if c.orchestrator.advance(ctx) > 0 {
		// A command was just rolled back: its nodes stay untainted, and its failure (say, a
		// replacement that cannot register) is not tried again, for a poll interval, as
		// upstream's loop, which polls apart from its command queue, leaves them.
		return c.PollInterval, nil
	}

	in, err := c.snapshotInput(ctx)
	if err != nil {
		return 0, err
	}
	snap := NewSnapshot(in)
	c.removeStaleTaints(ctx, snap)
	c.publishBlocked(ctx, snap)

	if v := c.validating; v != nil {
		if left := c.ValidationDelay - c.now().Sub(v.decidedAt); left > 0 {
			return min(left, c.PollInterval), nil
		}
		c.validating = nil
		return 0, c.carryOut(ctx, in, snap, v.cmds)
	}

	fingerprint := snap.Fingerprint()
	skip := c.consolidated != nil && c.consolidated.fingerprint == fingerprint && c.now().Sub(c.consolidated.at) < ConsolidatedRecheck
	// More moves are decided while deciding takes less than the delay every one of them waits
	// out anyway, up to MaxBatch.
	started := c.now()
	d, batch := DecideBatch(in, snap, Options{SkipConsolidation: skip, Clock: c.now}, func(decided int) bool {
		return decided < MaxBatch && c.now().Sub(started) < c.ValidationDelay
	})
	c.report(snap, d)
	// Every method ran when no command came out of a pass that did not skip consolidation.
	c.keepVerdicts(ctx, snap, d, d.Command == nil && !skip)
	switch {
	case d.Consolidated:
		c.consolidated = &consolidatedState{fingerprint: fingerprint, at: c.now()}
	case !skip:
		c.consolidated = nil
	}
	if d.Command == nil {
		return c.PollInterval, nil
	}
	if d.Command.NeedsValidation() {
		for _, cmd := range batch {
			c.approved(cmd)
			log.FromContext(ctx).V(1).Info("validating consolidation after a delay", "delay", c.ValidationDelay, "command", cmd.String())
		}
		c.validating = &validating{cmds: batch, decidedAt: c.now()}
		return min(c.ValidationDelay, c.PollInterval), nil
	}
	c.approved(d.Command)
	if held, err := c.repairHeldNow(ctx, d.Command); err != nil || held {
		return c.PollInterval, err
	}
	if err := c.orchestrator.start(ctx, d.Command); err != nil {
		return c.PollInterval, err
	}
	// As upstream requeues at once after a disruption: the next drifted node does not wait a
	// poll interval, so drift replaces nodes side by side up to the budgets, not one per pass.
	return 0, nil
}

// carryOut validates a batch's commands on the cluster as it is now, after their delay, and
// starts those that still hold; the others are given up with their reasons. A command that
// fails to start does not keep the others from starting: each holds with or without it.
func (c *Controller) carryOut(ctx context.Context, in SnapshotInput, snap *Snapshot, cmds []*Command) error {
	valid, rejected := ValidateBatch(in, snap, cmds)
	for _, r := range rejected {
		log.FromContext(ctx).Info("abandoning consolidation: it no longer holds after the validation delay",
			"reason", r.Command.ReasonLabel(), "method", r.Command.Method, "nodeclaims", r.Command.Names(), "why", r.Why)
		failedValidations.WithLabelValues(r.Command.ConsolidationType()).Add(float64(len(r.Command.Candidates)))
		message := fmt.Sprintf("Consolidation rejected: %s, reason: %s (savings: %.2f)", r.Command, r.Why, r.Command.Savings)
		for _, cand := range r.Command.Candidates {
			consolidationRejected(c.recorder, cand.NodeClaim, message)
			if cand.Node != nil {
				consolidationRejected(c.recorder, cand.Node, message)
			}
		}
	}
	var errs []error
	for _, cmd := range valid {
		errs = append(errs, c.orchestrator.start(ctx, cmd))
	}
	return errors.Join(errs...)
}

// snapshotInput reads what a decision needs: the cluster (state.Read, from the cache and
// never modified), each NodePool's instance types, and what the orchestration has under way.
func (c *Controller) snapshotInput(ctx context.Context) (SnapshotInput, error) {
	in := SnapshotInput{Now: c.now(), InstanceTypes: map[string][]*cloudprovider.InstanceType{}, Policies: c.Policies}
	cluster, err := state.Read(ctx, c.Client)
	if err != nil {
		return in, fmt.Errorf("reading the cluster: %w", err)
	}
	in.NodePools, in.NodeClaims, in.Nodes = cluster.NodePools, cluster.NodeClaims, cluster.Nodes
	// The pods the simulations move are constrained as the kube-scheduler will constrain them.
	if in.Pods, err = simulation.WithClusterDefaultSpread(ctx, c.Client, c.SchedulerConfig, cluster.Pods); err != nil {
		return in, fmt.Errorf("giving the pods the default topology spread constraints: %w", err)
	}
	in.PDBs, in.DaemonSetPods, in.NamespaceLabels = cluster.PDBs, cluster.DaemonSetPods, cluster.NamespaceLabels
	if c.CapacityBuffers {
		var buffers []*corev1.Pod
		if _, buffers, err = capacitybuffer.ReadVirtualPods(ctx, c.Client); err != nil {
			return in, fmt.Errorf("reading the capacity buffers' pods: %w", err)
		}
		if in.BufferPods, err = simulation.WithClusterDefaultSpread(ctx, c.Client, c.SchedulerConfig, buffers); err != nil {
			return in, fmt.Errorf("giving the capacity buffers' pods the default topology spread constraints: %w", err)
		}
	}
	for _, np := range in.NodePools {
		types, err := c.CloudProvider.GetInstanceTypes(ctx, np)
		if err != nil {
			log.FromContext(ctx).Error(err, "listing instance types; the NodePool's nodes cannot be priced or replaced now", "NodePool", klog.KObj(np))
			continue
		}
		in.InstanceTypes[np.Name] = types
	}
	existing := sets.New[string]()
	for _, nodeClaim := range in.NodeClaims {
		existing.Insert(nodeClaim.Name)
	}
	if in.VolumeRequirements, in.PodVolumes, err = c.podVolumes(ctx, in.Pods); err != nil {
		return in, err
	}
	in.CSINodes = cluster.CSINodes
	if c.NodeRepair {
		if in.Repair, err = c.repairInput(ctx, in); err != nil {
			return in, err
		}
	}
	in.InFlight, in.Headed = c.orchestrator.inFlight(), c.orchestrator.headed()
	in.Deleted = c.orchestrator.deletedNodeClaims(existing)
	var headedFor sets.Set[destination.Destination]
	in.Nominated, headedFor = c.orchestrator.nominated(existing)
	in.Nominated.Insert(headedTo(in.NodeClaims, headedFor)...)
	return in, nil
}

// headedTo names the NodeClaims pods are headed for: those of the destinations, whether the
// pods were placed on the NodeClaim or on its node.
func headedTo(nodeClaims []*karpv1.NodeClaim, destinations sets.Set[destination.Destination]) []string {
	byKey := map[destination.Destination][]destination.Destination{}
	for d := range destinations {
		byKey[d.Key()] = append(byKey[d.Key()], d)
	}
	headed := func(d destination.Destination) bool { return slices.ContainsFunc(byKey[d.Key()], d.Same) }
	var out []string
	for _, nodeClaim := range nodeClaims {
		if (nodeClaim.Status.NodeName != "" && headed(destination.NodeNamed(nodeClaim.Status.NodeName))) || headed(destination.OfNodeClaim(nodeClaim)) {
			out = append(out, nodeClaim.Name)
		}
	}
	return out
}

// repairInput finds the nodes unhealthy past a repair policy's toleration and the NodePools
// whose circuit breaker holds repair. Only a node that meets a policy's condition costs a
// look at its VM's state.
//
//nolint:gocyclo // each NodeClaim goes through the repair policies' checks in order, the cheap ones before the call to KakaoCloud; split, the order would no longer show
func (c *Controller) repairInput(ctx context.Context, in SnapshotInput) (*RepairInput, error) {
	out := &RepairInput{Unhealthy: map[string]health.Finding{}, Held: map[string]string{}}
	policies := c.CloudProvider.RepairPolicies()
	total, unhealthy := map[string]int{}, map[string]int{}
	for _, node := range in.Nodes {
		if pool, ok := node.Labels[karpv1.LabelNodePool]; ok {
			total[pool]++
			if health.MeetsAPolicy(policies, node) {
				unhealthy[pool]++
			}
		}
	}
	nodes := make(map[string]*corev1.Node, len(in.Nodes))
	for _, node := range in.Nodes {
		if node.Spec.ProviderID != "" {
			nodes[node.Spec.ProviderID] = node
		}
	}
	for _, nodeClaim := range in.NodeClaims {
		node := nodes[nodeClaim.Status.ProviderID]
		if node == nil || nodeClaim.Status.ProviderID == "" || !nodeClaim.DeletionTimestamp.IsZero() || !health.MeetsAPolicy(policies, node) {
			continue
		}
		found, _, err := health.Evaluate(ctx, c.CloudProvider, node, nodeClaim, in.Now)
		if err != nil {
			return nil, fmt.Errorf("evaluating the health of node %s: %w", node.Name, err)
		}
		if found != nil {
			out.Unhealthy[nodeClaim.Name] = *found
		}
	}
	for _, np := range in.NodePools {
		why, err := health.Breaker(np, total[np.Name], unhealthy[np.Name])
		if err != nil {
			why = "repair is held: " + err.Error()
		}
		if why != "" {
			out.Held[np.Name] = why
		}
	}
	return out, nil
}

// report publishes what a decision found: explanations as events, eligible nodes and allowed
// disruptions as metrics.
//
//nolint:gocyclo // one metric or event family after another, each guarded by whether the decision has it
func (c *Controller) report(snap *Snapshot, d *Decision) {
	for reason, n := range d.Eligible {
		eligibleNodes.WithLabelValues(strings.ToLower(string(reason))).Set(float64(n))
	}
	for _, e := range d.Evaluations {
		evaluationDuration.WithLabelValues(strings.ToLower(string(e.Reason)), e.ConsolidationType()).Observe(e.Duration.Seconds())
	}
	for _, name := range snap.poolNames {
		for _, reason := range []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonDrifted, karpv1.DisruptionReasonUnderutilized, karpv1.DisruptionReasonUnhealthy} {
			budget := snap.budget(name, reason)
			allowedDisruptions.WithLabelValues(name, strings.ToLower(string(reason))).Set(float64(budget.Nodes))
			nodesConsumingBudgets.WithLabelValues(name, strings.ToLower(string(reason))).Set(float64(budget.disrupting))
		}
	}
	for _, b := range d.Blocked {
		eventType := corev1.EventTypeNormal
		if b.Reason == EventDisruptionReplacementFailed {
			eventType = corev1.EventTypeWarning
		}
		nodeHeld(c.recorder, b.Node.NodeClaim, eventType, b.Reason, b.Message)
		if b.Node.Node != nil {
			nodeHeld(c.recorder, b.Node.Node, eventType, b.Reason, b.Message)
		}
	}
	for _, p := range d.BudgetBlocked {
		budgetBlocked(c.recorder, p.NodePool, p.Message)
	}
	for _, notice := range snap.notices {
		podNotified(c.recorder, notice)
	}
	for _, score := range snap.scored {
		decision := "approved"
		if !score.Approved() {
			decision = "rejected"
		}
		consolidationMoves.WithLabelValues(decision, score.NodePool, string(karpv1.ConsolidationPolicyBalanced)).Inc()
		consolidationScore.WithLabelValues(decision, score.NodePool, string(karpv1.ConsolidationPolicyBalanced)).Observe(score.Value())
	}
	for _, m := range d.TimedOut {
		t := "multi"
		if m == MethodSingleNode {
			t = "single"
		}
		consolidationTimeouts.WithLabelValues(t).Inc()
	}
}

// approved tells the candidates of a command that Balanced consolidation approves their
// removal, with the move's score in their NodePool.
func (c *Controller) approved(cmd *Command) {
	for _, score := range cmd.Scores {
		for _, cand := range cmd.Candidates {
			if cand.pool.np.Name != score.NodePool {
				continue
			}
			message := "Balanced consolidation approves removing this node: " + score.String()
			consolidationApproved(c.recorder, cand.NodeClaim, message)
			if cand.Node != nil {
				consolidationApproved(c.recorder, cand.Node, message)
			}
		}
	}
}

// removeStaleTaints removes the karpenter.sh/disrupted taint from nodes that no command under
// way and no deletion accounts for (a restart in the middle of a command leaves them), once
// they have been seen so for StaleTaintGrace.
func (c *Controller) removeStaleTaints(ctx context.Context, snap *Snapshot) {
	seen := sets.New[string]()
	for _, n := range snap.nodes {
		if n.Node == nil || !n.tainted() || n.deleting() || n.inFlight {
			continue
		}
		name := n.Node.Name
		seen.Insert(name)
		since, ok := c.staleSince[name]
		if !ok {
			since = c.now()
			// A taint already there on this process's first pass was put by an earlier
			// leader, whose commands ended with it: stale now, as upstream Karpenter treats
			// it. Waiting out the grace instead would never end under repeated restarts.
			if !c.passed {
				since = since.Add(-StaleTaintGrace)
			}
			c.staleSince[name] = since
		}
		if c.now().Sub(since) < StaleTaintGrace {
			continue
		}
		fresh := &karpv1.NodeClaim{}
		if err := c.APIReader.Get(ctx, client.ObjectKeyFromObject(n.NodeClaim), fresh); err != nil || !fresh.DeletionTimestamp.IsZero() {
			continue
		}
		if err := c.orchestrator.untaint(ctx, name); err != nil {
			log.FromContext(ctx).Error(err, "removing a stale disrupted taint", "Node", klog.KRef("", name))
			continue
		}
		_ = c.orchestrator.clearDisruptionReason(ctx, n.Name())
		log.FromContext(ctx).Info("removed a disrupted taint no command accounts for", "Node", klog.KRef("", name))
		delete(c.staleSince, name)
	}
	for name := range c.staleSince {
		if !seen.Has(name) {
			delete(c.staleSince, name)
		}
	}
	c.passed = true
}
