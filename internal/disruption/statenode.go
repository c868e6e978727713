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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/repair"
	nodeutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/node"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
)

// StateNode is a managed node: a NodeClaim, its Node once registered, and its pods.
type StateNode struct {
	NodeClaim *karpv1.NodeClaim
	Node      *corev1.Node
	// Pods are the node's pods that have not finished, DaemonSet pods included.
	Pods []*corev1.Pod

	pool         *pool
	instanceType *cloudprovider.InstanceType
	price        float64
	priceKnown   bool
	inFlight     bool
	deleted      bool
	nominated    bool
	dest         *dest // where pods could land on this node, nil when nowhere
	// unhealthy is how the node meets a repair policy past its toleration, nil when it
	// does not (or repair is off).
	unhealthy *repair.Finding
	// hold caches what keeps the node from voluntary disruption (Snapshot.holdOf).
	hold *hold
}

// Name is the NodeClaim's name.
func (n *StateNode) Name() string { return n.NodeClaim.Name }

// NodePool is the node's NodePool, nil when it has none the snapshot knows.
func (n *StateNode) NodePool() *karpv1.NodePool {
	if n.pool == nil {
		return nil
	}
	return n.pool.np
}

// initialized reports whether the NodeClaim's node is up and initialized.
func (n *StateNode) initialized() bool {
	return n.Node != nil && meta.IsStatusConditionTrue(n.NodeClaim.Status.Conditions, karpv1.ConditionTypeInitialized)
}

// deleting reports whether the NodeClaim or its node is being deleted.
func (n *StateNode) deleting() bool {
	return n.deleted || !n.NodeClaim.DeletionTimestamp.IsZero() || (n.Node != nil && !n.Node.DeletionTimestamp.IsZero())
}

// settling reports whether the node is within its NodePool's consolidateAfter at now: a pod
// was bound to or removed from it, or it initialized, more recently than that.
func (n *StateNode) settling(now time.Time) bool {
	if n.pool == nil {
		return false
	}
	at, ok := nodeclaimutil.ConsolidateAfterEnds(n.NodeClaim, n.pool.np)
	return ok && now.Before(at)
}

// tainted reports whether the node carries karpenter.sh/disrupted.
func (n *StateNode) tainted() bool {
	return n.Node != nil && hasDisruptedTaint(n.Node)
}

// markedForDisruption reports whether the node is on its way out: deleting, tainted, or a
// candidate of a command under way.
func (n *StateNode) markedForDisruption() bool {
	return n.deleting() || n.tainted() || n.inFlight
}

func (n *StateNode) ready() bool {
	return n.Node != nil && nodeutil.IsReady(n.Node)
}

// displayName names the node for messages: NodeClaim/instance type/zone.
func (n *StateNode) displayName() string {
	s := n.NodeClaim.Name
	if t := n.NodeClaim.Labels[karpv1.LabelInstanceType]; t != "" {
		s += "/" + t
	}
	if z := n.NodeClaim.Labels[karpv1.LabelTopologyZone]; z != "" {
		s += "/" + z
	}
	return s
}

func hasDisruptedTaint(node *corev1.Node) bool {
	return nodeutil.HasTaint(node.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
}
