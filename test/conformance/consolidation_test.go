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

package conformance

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
)

var (
	scaleNodes    = flag.Int("scale-nodes", 1000, "nodes of the cluster the consolidation-at-scale judge draws")
	scaleCommands = flag.Int("scale-commands", 2, "consolidation batches the consolidation-at-scale judge carries out in turn")
	scaleBatch    = flag.Int("scale-batch", 8, "most commands the consolidation-at-scale judge decides in one batch")
)

// TestConsolidationAtScaleAgreesWithKubeScheduler judges the disruption loop on a running
// cluster of -scale-nodes nodes (workload.ConsolidationCluster from -seed, the cluster
// BenchmarkConsolidationPass times on a real API server): three NodePools, DaemonSets on
// every node, Deployments with PodDisruptionBudgets, zone spreads and zonal anti-affinity. It
// makes the decisions the loop makes (DecideBatch, then ValidateBatch on the snapshot the loop
// takes after the validation delay), replays every pod of each validated command through the
// kube-scheduler's filters on the nodes that remain plus the replacements, carries the
// command out before judging the next, and does it again, -scale-commands times.
func TestConsolidationAtScaleAgreesWithKubeScheduler(t *testing.T) {
	ctx := t.Context()
	seed := *firstSeed
	c := workload.ConsolidationCluster(*scaleNodes, seed)
	w := &world{seed: seed, rng: rand.New(rand.NewPCG(seed, seed)), now: c.Now, instanceTypes: c.InstanceTypes,
		nodePools: c.NodePools, nodeClaims: c.NodeClaims, nodes: c.Nodes, pods: c.Pods, pdbs: c.PDBs, namespaces: c.Namespaces}
	for _, ds := range c.DaemonSets {
		w.daemonSets = append(w.daemonSets, state.DaemonSetPod(ds))
	}
	j, err := NewJudge(ctx, w.objects()...)
	if err != nil {
		t.Fatal(err)
	}
	var total tally
	for i := range *scaleCommands {
		in := w.snapshotInput(ctx)
		start := time.Now()
		d := disruption.DecideBatch(in, nil, disruption.Options{}, func(n int) bool { return n < *scaleBatch })
		batch := d.Batch
		decided := time.Since(start)
		if d.Command == nil {
			if i == 0 {
				t.Fatalf("%d nodes: no command found (%d nodes held)", len(w.nodes), len(d.Blocked))
			}
			break
		}
		var validated time.Duration
		if d.Command.NeedsValidation() {
			later := in
			later.Now = in.Now.Add(disruption.DefaultValidationDelay)
			start = time.Now()
			var rejected []disruption.Rejection
			if batch, rejected = disruption.ValidateBatch(later, nil, batch); len(rejected) > 0 {
				r := rejected[0]
				t.Fatalf("%s of %d nodes, on a cluster that did not change, no longer holds after the validation delay: %s", r.Command.Method, len(r.Command.Candidates), r.Why)
			}
			validated = time.Since(start)
		}
		t.Logf("%d nodes, %d pods: %d commands decided in %s, validated in %s", len(w.nodes), len(w.pods), len(batch), decided.Round(time.Millisecond), validated.Round(time.Millisecond))
		for _, cmd := range batch {
			judged := total.placements
			start = time.Now()
			w.judgeCommand(ctx, j, cmd, &total)
			t.Logf("  %s, %s of %d nodes, %d replacements, savings %.3f; %d placements judged in %s",
				cmd.Method, cmd.Decision(), len(cmd.Candidates), len(cmd.Replacements), cmd.Savings, total.placements-judged, time.Since(start).Round(time.Millisecond))
		}
	}
	total.seeds = 1
	total.report(t, fmt.Sprintf("consolidation at scale (%d nodes, seed %d)", *scaleNodes, seed))
}
