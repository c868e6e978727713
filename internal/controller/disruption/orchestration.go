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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
)

// DefaultReplacementTimeout is how long a command waits for its replacements to initialize
// before it gives up and rolls back.
const DefaultReplacementTimeout = 10 * time.Minute

// NominationGrace is how long replacements stay off the candidate list after their command
// deleted the nodes they replace and those are gone: the evicted pods take a moment to be
// recreated and scheduled onto them.
const NominationGrace = time.Minute

// DestinationNominationGrace is how long the existing nodes a command's pods were placed on
// stay off the candidate list after the command deleted its candidates: long enough for the
// evicted pods to be recreated and bound there, as upstream's nomination window is.
const DestinationNominationGrace = 20 * time.Second

// carryOut starts what the decision decided: a consolidation batch first waits out the
// validation delay (a later pass validates it and starts what still holds, startAll); any
// other command starts now, a repair only if its NodePool's circuit breaker still lets it
// (repairHeldNow).
func (c *Controller) carryOut(ctx context.Context, d *engine.Decision) (time.Duration, error) {
	switch {
	case d.Command == nil:
		return c.PollInterval, nil
	case d.Command.NeedsValidation():
		for _, cmd := range d.Batch {
			log.FromContext(ctx).V(1).Info("validating consolidation after a delay", "delay", c.ValidationDelay, "command", cmd.String())
		}
		c.validating = &validating{cmds: d.Batch, decidedAt: c.now()}
		return min(c.ValidationDelay, c.PollInterval), nil
	}
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

// startAll starts the commands of a batch that still hold after their validation. A command
// that fails to start does not keep the others from starting: each holds with or without it.
func (c *Controller) startAll(ctx context.Context, cmds []*engine.Command) error {
	var errs []error
	for _, cmd := range cmds {
		errs = append(errs, c.orchestrator.start(ctx, cmd))
	}
	return errors.Join(errs...)
}

// repairHeldNow counts a repair command's NodePool again, from the API server, right before the
// command starts, and holds it when the circuit breaker now trips. The decision counted the
// cache as the pass began; a fault spreading over several nodes lands on them one write at a
// time, and a node replaced in between is one the breaker exists to keep.
func (c *Controller) repairHeldNow(ctx context.Context, cmd *engine.Command) (bool, error) {
	if cmd.Repair == nil {
		return false, nil
	}
	cand := cmd.Candidates[0]
	why, err := repair.Held(ctx, c.APIReader, c.CloudProvider.RepairPolicies(), cand.NodePool())
	if err != nil {
		return false, fmt.Errorf("counting the unhealthy nodes again: %w", err)
	}
	if why == "" {
		return false, nil
	}
	message := fmt.Sprintf("The node is unhealthy (%s), but %s", cmd.Repair, why)
	log.FromContext(ctx).Info("holding repair: the circuit breaker tripped while the pass decided",
		"NodeClaim", klog.KObj(cand.NodeClaim), "why", why)
	nodeHeld(c.recorder, cand.NodeClaim, corev1.EventTypeNormal, repair.ReasonNodeRepairBlocked, message)
	if cand.Node != nil {
		nodeHeld(c.recorder, cand.Node, corev1.EventTypeNormal, repair.ReasonNodeRepairBlocked, message)
	}
	return true, nil
}

// removeStaleTaints removes the karpenter.sh/disrupted taint from the nodes that carry it
// though no command under way and no deletion accounts for it (Snapshot.UnaccountedTaints: a
// restart in the middle of a command leaves them), once they have been seen so for
// StaleTaintGrace.
func (c *Controller) removeStaleTaints(ctx context.Context, tainted []*engine.StateNode) {
	seen := sets.New[string]()
	for _, n := range tainted {
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

// orchestrator carries out commands: taint the candidates' nodes karpenter.sh/disrupted:
// NoSchedule, launch the replacements, wait until they are initialized, then delete the
// candidates' NodeClaims (their termination drains the nodes and deletes the VMs). When a
// step fails, the candidates are untainted and the replacements left as they are.
type orchestrator struct {
	client   client.Client
	reader   client.Reader // fresh reads for read-modify-write
	static   *state.StaticLaunches
	recorder events.EventRecorder
	now      func() time.Time
	timeout  time.Duration

	running   []*running
	completed []*completed

	// deleted are the NodeClaims this loop deleted, until the cache no longer holds them:
	// the pass after a deletion can come before the cache shows it (see deletedNodeClaims).
	// Candidates are deleted from several goroutines at once, hence the lock.
	deletedMu sync.Mutex
	deleted   sets.Set[string]
}

// markDeleted remembers that name was deleted.
func (o *orchestrator) markDeleted(name string) {
	o.deletedMu.Lock()
	defer o.deletedMu.Unlock()
	if o.deleted == nil {
		o.deleted = sets.New[string]()
	}
	o.deleted.Insert(name)
}

// deletedNodeClaims names the NodeClaims this loop deleted that the cache still holds
// (existing), and forgets the others. A decision treats them as deleting even where the
// cache has not yet seen the deletion: without it, the pass that follows an empty node's
// removal at once would find the node again and disrupt it a second time.
func (o *orchestrator) deletedNodeClaims(existing sets.Set[string]) sets.Set[string] {
	o.deletedMu.Lock()
	defer o.deletedMu.Unlock()
	for name := range o.deleted {
		if !existing.Has(name) {
			o.deleted.Delete(name)
		}
	}
	return o.deleted.Clone()
}

// running is a command waiting for its replacements.
type running struct {
	id           string
	cmd          *engine.Command
	replacements []string
	started      time.Time
}

// completed remembers a finished command's replacements while its candidates drain.
type completed struct {
	replacements []string
	candidates   []string
	// destinations are the existing nodes its candidates' pods were placed on, nominated
	// until destinationsUntil.
	destinations      []destination.Destination
	destinationsUntil time.Time
	until             time.Time
}

var commandIDs atomic.Int64

// inFlight names the candidates and replacements of the commands under way.
func (o *orchestrator) inFlight() sets.Set[string] {
	out := sets.New[string]()
	for _, r := range o.running {
		out.Insert(r.cmd.Names()...)
		out.Insert(r.replacements...)
	}
	return out
}

// nominated names the replacements of finished commands whose candidates still exist, or
// vanished less than NominationGrace ago, and the existing nodes the pods of the commands
// under way, and of those whose candidates vanished less than DestinationNominationGrace ago,
// were placed on (a node, or a NodeClaim whose node had not registered), as upstream
// nominates the nodes its pods are headed for: a node about to receive pods is not a
// candidate, which would no longer hold by the time its validation is over.
func (o *orchestrator) nominated(existing sets.Set[string]) (nodeClaims sets.Set[string], nodes sets.Set[destination.Destination]) {
	out, nodes := sets.New[string](), sets.New[destination.Destination]()
	for _, r := range o.running {
		nodes.Insert(destinations(r.cmd)...)
	}
	now := o.now()
	kept := o.completed[:0]
	for _, c := range o.completed {
		if slices.ContainsFunc(c.candidates, existing.Has) {
			// Still draining: its pods are still on their way.
			c.until, c.destinationsUntil = now.Add(NominationGrace), now.Add(DestinationNominationGrace)
		}
		if now.After(c.until) {
			continue
		}
		out.Insert(c.replacements...)
		if now.Before(c.destinationsUntil) {
			nodes.Insert(c.destinations...)
		}
		kept = append(kept, c)
	}
	o.completed = kept
	return out, nodes
}

// destinations are the existing nodes the command's pods were placed on.
func destinations(cmd *engine.Command) []destination.Destination {
	var out []destination.Destination
	for _, p := range existingPlacements(cmd) {
		out = append(out, p.ExistingNode)
	}
	return out
}

// existingPlacements are the command's placements on existing nodes.
func existingPlacements(cmd *engine.Command) []simulation.Placement {
	var out []simulation.Placement
	for _, p := range cmd.Placed {
		if !p.ExistingNode.IsZero() {
			out = append(out, p)
		}
	}
	return out
}

// headed are where the commands under way put their candidates' pods on existing nodes
// (SnapshotInput.Headed).
func (o *orchestrator) headed() []simulation.Placement {
	var out []simulation.Placement
	for _, r := range o.running {
		out = append(out, existingPlacements(r.cmd)...)
	}
	return out
}

// start begins a command: taints, replacements, and, when it has none, the deletion.
func (o *orchestrator) start(ctx context.Context, cmd *engine.Command) error {
	id := strconv.FormatInt(commandIDs.Add(1), 10)
	logger := log.FromContext(ctx).WithValues("command", id, "reason", cmd.ReasonLabel(), "decision", cmd.Decision(), "method", cmd.Method)
	ctx = log.IntoContext(ctx, logger)
	logger.Info(cmd.String(), "nodeclaims", cmd.Names(), "savings", cmd.Savings)
	decisionsTotal.WithLabelValues(cmd.Decision(), cmd.ReasonLabel(), cmd.ConsolidationType()).Inc()
	for _, nodePool := range cmd.NodePools() {
		decisionsByNodePool.WithLabelValues(nodePool, cmd.Decision(), cmd.ReasonLabel(), cmd.ConsolidationType()).Inc()
	}

	r := &running{id: id, cmd: cmd, started: o.now()}
	if cmd.Repair != nil {
		o.announceRepair(cmd)
	}
	if err := o.taint(ctx, cmd); err != nil {
		o.rollback(ctx, r, fmt.Sprintf("tainting the nodes failed: %v", err))
		return err
	}
	o.markDisrupted(ctx, cmd)
	for _, n := range cmd.Replacements {
		name, err := o.launch(ctx, n, cmd.ReasonLabel())
		if err != nil {
			o.rollback(ctx, r, fmt.Sprintf("creating a replacement failed: %v", err))
			return err
		}
		r.replacements = append(r.replacements, name)
	}
	if len(r.replacements) == 0 {
		return o.finish(ctx, r)
	}
	for _, c := range cmd.Candidates {
		msg := fmt.Sprintf("%s (%s): launching %s before the node is drained", cmd.Reason, cmd.Method, strings.Join(r.replacements, ", "))
		launching(o.recorder, c.NodeClaim, msg)
	}
	o.running = append(o.running, r)
	return nil
}

// announceRepair tells the node and its NodeClaim why repair replaces it, and how its pods go.
func (o *orchestrator) announceRepair(cmd *engine.Command) {
	how := "its pods are drained through the Eviction API"
	switch bound := cmd.DrainBound; {
	case bound != nil && *bound == 0:
		how = "its pods are deleted without waiting on evictions, PodDisruptionBudgets or karpenter.sh/do-not-disrupt (its repair policy's termination grace period is 0)"
	case bound != nil:
		how = fmt.Sprintf("its pods are drained through the Eviction API for at most %s, then deleted", *bound)
	}
	first := "it has no pods to move"
	if len(cmd.Replacements) > 0 {
		first = fmt.Sprintf("%d replacement(s) are launched and initialized first", len(cmd.Replacements))
	} else if cmd.Pods() > 0 {
		first = "its pods fit other nodes"
	}
	message := fmt.Sprintf("Replacing the unhealthy node: %s; %s, then %s", cmd.Repair, first, how)
	for _, c := range cmd.Candidates {
		repairing(o.recorder, c.NodeClaim, message)
		if c.Node != nil {
			repairing(o.recorder, c.Node, message)
		}
	}
}

// advance moves each running command on: once its replacements are initialized the
// candidates are deleted; a replacement that disappears, or that does not initialize in time,
// rolls the command back.
func (o *orchestrator) advance(ctx context.Context) (rolledBack int) {
	var still []*running
	for _, r := range o.running {
		logger := log.FromContext(ctx).WithValues("command", r.id, "reason", r.cmd.ReasonLabel(), "decision", r.cmd.Decision(), "method", r.cmd.Method)
		rctx := log.IntoContext(ctx, logger)
		ready, why := o.replacementsReady(ctx, r)
		switch {
		case why != "":
			o.rollback(rctx, r, why)
			rolledBack++
		case ready:
			if err := o.finish(rctx, r); err != nil {
				logger.Error(err, "deleting the disrupted nodeclaims failed; retrying")
				still = append(still, r)
			}
		case o.now().Sub(r.started) > o.timeout:
			o.rollback(rctx, r, fmt.Sprintf("the replacements did not initialize within %s", o.timeout))
			rolledBack++
		default:
			still = append(still, r)
		}
	}
	o.running = still
	return rolledBack
}

// replacementsReady reports whether every replacement is initialized, or why the command
// cannot go on.
func (o *orchestrator) replacementsReady(ctx context.Context, r *running) (bool, string) {
	ready := true
	for _, name := range r.replacements {
		nodeClaim := &karpv1.NodeClaim{}
		err := o.client.Get(ctx, client.ObjectKey{Name: name}, nodeClaim)
		if apierrors.IsNotFound(err) {
			// The cache may not have seen the NodeClaim created a moment ago: ask the API server.
			err = o.reader.Get(ctx, client.ObjectKey{Name: name}, nodeClaim)
		}
		if err != nil {
			if apierrors.IsNotFound(err) {
				return false, fmt.Sprintf("replacement nodeclaim %s was deleted before it initialized (its launch failed)", name)
			}
			return false, ""
		}
		if !nodeClaim.DeletionTimestamp.IsZero() {
			return false, fmt.Sprintf("replacement nodeclaim %s is being deleted before it initialized (its launch failed)", name)
		}
		if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized) {
			ready = false
			waitingReadiness(o.recorder, nodeClaim)
		}
	}
	return ready, ""
}

// finish deletes the candidates' NodeClaims; their termination drains the nodes.
//
//nolint:gocyclo // deleting the candidates, then recording the command's metrics and events, each only for what it did
func (o *orchestrator) finish(ctx context.Context, r *running) error {
	err := eachCandidate(ctx, r.cmd, func(c *engine.Candidate) error {
		nodeClaim := c.NodeClaim
		if bound := r.cmd.DrainBound; bound != nil {
			// Before the deletion, so that termination reads the bound from its first pass; on
			// a copy, as the candidate is the cache's.
			if err := nodeclaimutil.TerminateBy(ctx, o.client, nodeClaim.DeepCopy(), o.now().Add(*bound)); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("bounding the drain of nodeclaim %s: %w", nodeClaim.Name, err)
			}
		}
		deletion, err := nodeclaimutil.Delete(ctx, o.client, nodeClaim)
		if err != nil {
			return fmt.Errorf("deleting nodeclaim %s: %w", nodeClaim.Name, err)
		}
		if deletion != nodeclaimutil.Replaced {
			o.markDeleted(nodeClaim.Name)
		}
		if deletion.Accepted() {
			disruption := metrics.Disruption{Reason: r.cmd.ReasonLabel(), NodePool: c.NodePool().Name, CapacityType: nodeClaim.Labels[karpv1.LabelCapacityType],
				TerminationMode: metrics.TerminationMode(nodeClaim.Spec.TerminationGracePeriod), Pods: len(c.Reschedulable)}
			if r.cmd.ConsolidationType() != "" {
				disruption.ConsolidationPolicy = metrics.SnakeCase(string(c.NodePool().Spec.Disruption.ConsolidationPolicy))
			}
			disruption.Record()
			if r.cmd.Repair != nil {
				// The drain bound repair applies, not the NodeClaim's own, says how it ends.
				mode := disruption.TerminationMode
				if bound := r.cmd.DrainBound; bound != nil {
					mode = metrics.TerminationMode(&metav1.Duration{Duration: *bound})
				}
				repair.RecordRepair(*r.cmd.Repair, nodeClaim, mode)
			}
			msg := fmt.Sprintf("%s (%s): deleting the NodeClaim; its node is drained through the Eviction API", r.cmd.Reason, r.cmd.Method)
			if len(r.replacements) > 0 {
				msg += " now that its replacement " + strings.Join(r.replacements, ", ") + " is initialized"
			}
			terminating(o.recorder, nodeClaim, msg)
		}
		return nil
	})
	if err != nil {
		return err
	}
	log.FromContext(ctx).Info("deleting disrupted nodeclaims", "nodeclaims", r.cmd.Names(), "replacements", r.replacements)
	if r.cmd.ConsolidationType() != "" {
		for nodePool, saved := range r.cmd.SavingsByNodePool() {
			consolidationSavings.WithLabelValues(nodePool).Add(saved)
		}
	}
	if dests := destinations(r.cmd); len(r.replacements) > 0 || len(dests) > 0 {
		o.completed = append(o.completed, &completed{replacements: r.replacements, candidates: r.cmd.Names(), destinations: dests, destinationsUntil: o.now().Add(DestinationNominationGrace), until: o.now().Add(NominationGrace)})
	}
	return nil
}

// rollback undoes a command: the candidates' taints and DisruptionReason removed. Its
// replacements stay, as upstream's queue leaves them: NodeClaims of their own from then on,
// which liveness deletes if they never register and consolidation once they are not needed.
func (o *orchestrator) rollback(ctx context.Context, r *running, why string) {
	logger := log.FromContext(ctx)
	logger.Error(errors.New(why), "abandoning disruption command, rolling back", "nodeclaims", r.cmd.Names(), "replacements", r.replacements)
	queueFailures.WithLabelValues(r.cmd.Decision(), r.cmd.ReasonLabel(), r.cmd.ConsolidationType()).Inc()
	_ = eachCandidate(ctx, r.cmd, func(c *engine.Candidate) error {
		if err := o.untaint(ctx, c.Node.Name); err != nil {
			logger.Error(err, "removing the disrupted taint", "Node", klog.KRef("", c.Node.Name))
		}
		if err := o.clearDisruptionReason(ctx, c.Name()); err != nil {
			logger.Error(err, "clearing the DisruptionReason condition", "NodeClaim", klog.KRef("", c.Name()))
		}
		failed(o.recorder, c.NodeClaim,
			fmt.Sprintf("%s (%s) abandoned and rolled back: %s", r.cmd.Reason, r.cmd.Method, why))
		return nil
	})
}

// commandParallelism is how many of a command's candidates are written to at once. A
// consolidation command may hold a hundred candidates, each a few requests (taint, condition,
// delete); one after another they kept a pass busy for seconds while the API server waited.
const commandParallelism = 16

// eachCandidate calls f for every candidate of the command, commandParallelism at a time, and
// returns every error f returned.
func eachCandidate(ctx context.Context, cmd *engine.Command, f func(*engine.Candidate) error) error {
	errs := make([]error, len(cmd.Candidates))
	workqueue.ParallelizeUntil(ctx, commandParallelism, len(cmd.Candidates), func(i int) {
		errs[i] = f(cmd.Candidates[i])
	})
	return errors.Join(errs...)
}

// taint puts karpenter.sh/disrupted:NoSchedule on every candidate's node.
func (o *orchestrator) taint(ctx context.Context, cmd *engine.Command) error {
	return eachCandidate(ctx, cmd, func(c *engine.Candidate) error {
		if err := o.updateNode(ctx, c.Node.Name, c.Node, func(node *corev1.Node) bool {
			if nodeutil.HasTaint(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint) {
				return false
			}
			node.Spec.Taints = append(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
			return true
		}); err != nil {
			return fmt.Errorf("tainting node %s: %w", c.Node.Name, err)
		}
		log.FromContext(ctx).Info("tainted node", "Node", klog.KRef("", c.Node.Name),
			"taint.Key", karpv1.DisruptedNoScheduleTaint.Key, "taint.Effect", karpv1.DisruptedNoScheduleTaint.Effect)
		return nil
	})
}

// untaint removes karpenter.sh/disrupted from a node.
func (o *orchestrator) untaint(ctx context.Context, nodeName string) error {
	err := o.updateNode(ctx, nodeName, nil, func(node *corev1.Node) bool {
		kept := nodeutil.WithoutTaint(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
		if len(kept) == len(node.Spec.Taints) {
			return false
		}
		node.Spec.Taints = kept
		return true
	})
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("untainting node %s: %w", nodeName, err)
	}
	return nil
}

// updateNode patches a node with optimistic locking (a merge patch replaces the taint list
// whole), from the copy the decision read when there is one (toChange), and reads it again
// and retries on a conflict.
func (o *orchestrator) updateNode(ctx context.Context, name string, cached *corev1.Node, mutate func(*corev1.Node) bool) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		stored, node, err := toChange(ctx, o.reader, name, cached, &corev1.Node{}, mutate)
		// A conflict says the copy was stale: the next try reads the node again.
		cached = nil
		if err != nil || node == nil {
			return err
		}
		return o.client.Patch(ctx, node, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{}))
	})
	if err != nil {
		return fmt.Errorf("patching %s: %w", name, err)
	}
	return nil
}

// toChange is what a write of mutate's change starts from: stored, the copy it was made from,
// under whose resourceVersion the write goes, and changed, that copy with the change. Given
// the cached copy the decision read, it starts from that: a command's candidates come from
// the cache, which is almost always current, and reading each again made starting a command
// of a hundred candidates twice the requests; a stale copy costs a conflict. A cached copy
// that needs no change is not believed, since the object may have changed back since: it is
// read fresh into empty. changed is nil when the fresh copy needs no change either.
func toChange[T client.Object](ctx context.Context, reader client.Reader, name string, cached, empty T, mutate func(T) bool) (stored, changed T, err error) {
	var none T
	if any(cached) != any(none) {
		changed = cached.DeepCopyObject().(T)
		if mutate(changed) {
			return cached, changed, nil
		}
	}
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, empty); err != nil {
		return none, none, fmt.Errorf("reading it: %w", err)
	}
	changed = empty.DeepCopyObject().(T)
	if !mutate(changed) {
		return none, none, nil
	}
	return empty, changed, nil
}

// markDisrupted sets the DisruptionReason condition on the candidates (best effort: it is for
// people reading the NodeClaim).
func (o *orchestrator) markDisrupted(ctx context.Context, cmd *engine.Command) {
	_ = eachCandidate(ctx, cmd, func(c *engine.Candidate) error {
		err := o.updateNodeClaimStatus(ctx, c.Name(), c.NodeClaim, func(nodeClaim *karpv1.NodeClaim) bool {
			return conditions.Set(&nodeClaim.Status.Conditions, nodeClaim.Generation, metav1.Condition{
				Type: karpv1.ConditionTypeDisruptionReason, Status: metav1.ConditionTrue, Reason: string(cmd.Reason),
				Message: fmt.Sprintf("being disrupted by %s (%s)", cmd.Method, cmd.Decision()),
			})
		})
		if err != nil {
			log.FromContext(ctx).Error(err, "setting the DisruptionReason condition", "NodeClaim", klog.KRef("", c.Name()))
		}
		return nil
	})
}

func (o *orchestrator) clearDisruptionReason(ctx context.Context, name string) error {
	return o.updateNodeClaimStatus(ctx, name, nil, func(nodeClaim *karpv1.NodeClaim) bool {
		return meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason)
	})
}

// updateNodeClaimStatus patches a NodeClaim's status under the resourceVersion of the copy
// the change was made from (toChange); on a conflict nodeclaimutil.PatchStatus carries the
// change onto the current NodeClaim, the one retry. A NodeClaim being deleted is left as it is.
func (o *orchestrator) updateNodeClaimStatus(ctx context.Context, name string, cached *karpv1.NodeClaim, mutate func(*karpv1.NodeClaim) bool) error {
	stored, nodeClaim, err := toChange(ctx, o.reader, name, cached, &karpv1.NodeClaim{}, func(nodeClaim *karpv1.NodeClaim) bool {
		return nodeClaim.DeletionTimestamp.IsZero() && mutate(nodeClaim)
	})
	if err == nil && nodeClaim != nil {
		err = nodeclaimutil.PatchStatus(ctx, o.client, stored, nodeClaim)
	}
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("writing the status of NodeClaim %s: %w", name, err)
	}
	return nil
}

// launch creates a replacement NodeClaim as provisioning creates one (ToNodeClaim), counted
// under the command's reason. A static
// NodePool's is counted against limits.nodes once more, as it is created: the decision read a
// cache, which may not show the replica controller's latest NodeClaims.
func (o *orchestrator) launch(ctx context.Context, n *simulation.NewNodeClaim, reason string) (string, error) {
	nodeClaim := n.ToNodeClaim()
	var err error
	if n.NodePool.Spec.Replicas == nil {
		err = o.client.Create(ctx, nodeClaim)
	} else {
		err = o.static.Do(ctx, n.NodePoolName, func(nodeClaims []*karpv1.NodeClaim) error {
			if room, why, limited := state.StaticNodeRoom(n.NodePool, nodeClaims); limited && room == 0 {
				return errors.New(why)
			}
			return o.client.Create(ctx, nodeClaim)
		})
	}
	if err != nil {
		return "", fmt.Errorf("creating a NodeClaim for NodePool %s: %w", n.NodePoolName, err)
	}
	metrics.NodeClaimCreated(reason, n.NodePoolName, nodeClaim.Annotations[karpv1.NodeClaimMinValuesRelaxedAnnotationKey] == "true")
	log.FromContext(ctx).Info("created nodeclaim", "NodePool", klog.KRef("", n.NodePoolName),
		"NodeClaim", klog.KRef("", nodeClaim.Name), "pods", len(n.Pods), "requests", n.Requests,
		"instance-types", engine.InstanceTypeNames(n, 5))
	return nodeClaim.Name, nil
}
