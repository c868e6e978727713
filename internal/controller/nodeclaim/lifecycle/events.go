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

package lifecycle

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// Reasons of the events the lifecycle records on NodeClaims.
const (
	// Upstream Karpenter's reason for a launch refused for lack of capacity.
	ReasonInsufficientCapacity     = "InsufficientCapacityError"
	ReasonNodeClassNotReady        = "NodeClassNotReady"
	ReasonLaunchFailed             = "LaunchFailed"
	ReasonAwaitingInstance         = "AwaitingInstance"
	ReasonThrottled                = "Throttled"
	ReasonNotLive                  = "NotLive"
	ReasonNodeDeleted              = "NodeDeleted"
	ReasonDraining                 = "Draining"
	ReasonAwaitingVolumeDetachment = "AwaitingVolumeDetachment"
	ReasonAwaitingNodeDeletion     = "AwaitingNodeDeletion"
	// Upstream's: a node registered without karpenter.sh/unregistered, which keeps pods off it
	// until its labels and taints are synced.
	ReasonUnregisteredTaintMissing = "UnregisteredTaintMissing"
	// Upstream's: the node reports much less of a resource than its NodeClaim was launched for.
	ReasonFailedConsistencyCheck = "FailedConsistencyCheck"
	// Upstream Karpenter's reasons for the drain's events on pods and nodes.
	ReasonEvicted                        = "Evicted"
	ReasonDisrupted                      = "Disrupted"
	ReasonFailedDraining                 = "FailedDraining"
	ReasonTerminationGracePeriodExpiring = "TerminationGracePeriodExpiring"
)

// launchAbandoned says the NodeClaim is deleted because its launch cannot succeed: reason is
// ReasonInsufficientCapacity, ReasonLaunchFailed or ReasonNodeClassNotReady.
func launchAbandoned(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, reason string, err error) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, reason, "Launch", "deleting the NodeClaim: %v", err)
}

// unregisteredTaintMissing says the node registered without the taint that keeps pods off it
// until registration has synced it: pods may have landed before its taints were on it.
func unregisteredTaintMissing(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonUnregisteredTaintMissing, "Register",
		"Missing %s taint which prevents registration related race conditions on Karpenter-managed nodes", karpv1.UnregisteredNoExecuteTaint.Key)
}

// failedConsistencyCheck says the NodeClaim's node is not the shape it was launched for.
func failedConsistencyCheck(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, issue string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonFailedConsistencyCheck, "Check", "%s", issue)
}

// nodeDeleted says the NodeClaim goes because its node is being deleted.
func nodeDeleted(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, node *corev1.Node) {
	recorder.Eventf(nodeClaim, node, corev1.EventTypeNormal, ReasonNodeDeleted, "Terminate", "deleting the NodeClaim: its node %s is being deleted", node.Name)
}

// draining says what the NodeClaim's termination waits for.
func draining(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, waiting string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeNormal, ReasonDraining, "Terminate", "%s", waiting)
}

// awaitingVolumeDetachment says which volumes the NodeClaim's termination waits for.
func awaitingVolumeDetachment(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, message string) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeNormal, ReasonAwaitingVolumeDetachment, "Terminate", "%s", message)
}

// awaitingNodeDeletion says that the NodeClaim's VM is gone and it waits for its node, which
// other finalizers hold.
func awaitingNodeDeletion(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, node *corev1.Node) {
	recorder.Eventf(nodeClaim, node, corev1.EventTypeNormal, ReasonAwaitingNodeDeletion, "Terminate",
		"the VM is gone; waiting for node %s, held by finalizers %s", node.Name, strings.Join(node.Finalizers, ", "))
}

// notLive says the NodeClaim is deleted because it was not launched or registered in time.
func notLive(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, what string, timeout time.Duration) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonNotLive, "Liveness", "deleting the NodeClaim: it was not %s within %s", what, timeout)
}

// awaitingInstance says a create's outcome is unknown and no VM is created again before until.
func awaitingInstance(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, until time.Time, err error) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonAwaitingInstance, "Launch",
		"the answer to creating the VM was lost or failed (%v); looking for the VM until %s before creating another",
		err, until.UTC().Format(time.RFC3339))
}

// launchThrottled says the cloud refused to create the VM for its rate limit, and when the
// launch tries again.
func launchThrottled(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, wait time.Duration, err error) {
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonThrottled, "Launch",
		"the cloud refused to create the VM for its rate limit (%v); creating it again in %s", err, wait)
}

// podEvicted says the drain evicted the pod, and why the node goes.
func podEvicted(recorder events.EventRecorder, pod *corev1.Pod, reason string) {
	recorder.Eventf(pod, nil, corev1.EventTypeNormal, ReasonEvicted, "Evict", "Evicted pod: %s", reason)
}

// podDeletedAheadOfDeadline says the drain deletes the pod so that it is gone by the deadline.
func podDeletedAheadOfDeadline(recorder events.EventRecorder, pod *corev1.Pod, grace int64, deadline time.Time) {
	recorder.Eventf(pod, nil, corev1.EventTypeNormal, ReasonDisrupted, "Delete",
		"Deleting the pod to accommodate the terminationTime %s of the node. The pod was granted %d seconds of grace-period of its %d terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.",
		deadline.UTC().Format(time.RFC3339), grace, ptr.Deref(pod.Spec.TerminationGracePeriodSeconds, corev1.DefaultTerminationGracePeriodSeconds))
}

// nodeFailedToDrain says what keeps the node from draining.
func nodeFailedToDrain(recorder events.EventRecorder, node *corev1.Node, err error) {
	recorder.Eventf(node, nil, corev1.EventTypeWarning, ReasonFailedDraining, "Drain", "Failed to drain node, %s", err)
}

// terminationGracePeriodExpiring says, on the node and its NodeClaim, when every pod will have
// been deleted whatever PodDisruptionBudgets and do-not-disrupt say.
func terminationGracePeriodExpiring(recorder events.EventRecorder, nodeClaim *karpv1.NodeClaim, node *corev1.Node, deadline time.Time) {
	message := fmt.Sprintf("All pods will be deleted by %s", deadline.UTC().Format(time.RFC3339))
	recorder.Eventf(node, nil, corev1.EventTypeWarning, ReasonTerminationGracePeriodExpiring, "Drain", "%s", message)
	recorder.Eventf(nodeClaim, nil, corev1.EventTypeWarning, ReasonTerminationGracePeriodExpiring, "Drain", "%s", message)
}
