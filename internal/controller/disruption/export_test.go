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

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
)

// What the envtest suite's pass benchmark reads of a Controller besides Pass, to time the
// pieces of a pass by calling what Pass calls.

// ReadSnapshotInput is the first step of Pass: the cluster from the cache, each NodePool's
// instance types from the cloud provider, what the orchestration has under way.
func (c *Controller) ReadSnapshotInput(ctx context.Context) (engine.SnapshotInput, error) {
	c.init()
	return c.readInput(ctx)
}

// Validating are the commands waiting out their validation delay, nil when none.
func (c *Controller) Validating() []*engine.Command {
	if c.validating == nil {
		return nil
	}
	return c.validating.cmds
}

// PassDue is Pass, and when the next pass is due.
func (c *Controller) PassDue(ctx context.Context) (time.Duration, error) { return c.pass(ctx) }

// TaintNodes is how a command taints its candidates' nodes, given the copies of them its
// decision was made on.
func TaintNodes(ctx context.Context, writer client.Client, reader client.Reader, nodes ...*corev1.Node) error {
	cmd := &engine.Command{}
	for _, node := range nodes {
		cmd.Candidates = append(cmd.Candidates, &engine.Candidate{StateNode: &engine.StateNode{Node: node}})
	}
	return (&orchestrator{client: writer, reader: reader}).taint(ctx, cmd)
}
