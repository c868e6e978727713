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
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/index"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// stuckTerminatingAfter is how long past its deletion timestamp (its deletion plus its grace
// period) a terminating pod is waited for: a pod still there then is on a node whose kubelet
// no longer acts, and waiting longer would hold the node forever, as upstream Karpenter
// reasons.
const stuckTerminatingAfter = time.Minute

// Priority classes whose pods are drained last, after every other pod has gone.
var criticalPriorityClasses = []string{"system-cluster-critical", "system-node-critical"}

// terminationTime is when the NodeClaim's terminationGracePeriod runs out (nil without one),
// recorded in the annotation upstream Karpenter uses so that it shows and survives restarts.
func (r *Reconciler) terminationTime(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*time.Time, error) {
	if value, ok := nodeClaim.Annotations[karpv1.NodeClaimTerminationTimestampAnnotationKey]; ok {
		at, err := time.Parse(time.RFC3339, value)
		if err == nil {
			return &at, nil
		}
		log.FromContext(ctx).Error(err, "ignoring an annotation that is not an RFC 3339 time", "annotation", karpv1.NodeClaimTerminationTimestampAnnotationKey)
	}
	if nodeClaim.Spec.TerminationGracePeriod == nil || nodeClaim.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	at := nodeClaim.DeletionTimestamp.Add(nodeClaim.Spec.TerminationGracePeriod.Duration).UTC()
	if err := nodeclaimutil.TerminateBy(ctx, r.Client, nodeClaim, at); client.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("recording the termination time of NodeClaim %s: %w", nodeClaim.Name, err)
	}
	return &at, nil
}

// drain empties the node the way upstream Karpenter does, and returns what it still waits for
// ("" once nothing is left to wait for):
//   - pods it waits for: not finished, not tolerating karpenter.sh/disrupted (they would only
//     come back), not static, not stuck terminating;
//   - a pod whose grace period would outlast the terminationGracePeriod deadline is deleted
//     with the time that is left (at least 1 s), bypassing PodDisruptionBudgets and
//     karpenter.sh/do-not-disrupt;
//   - the others are evicted through the Eviction API, one tier at a time: non-critical
//     non-DaemonSet pods, non-critical DaemonSet pods, critical non-DaemonSet pods, critical
//     DaemonSet pods, as graceful node shutdown orders them; do-not-disrupt pods are waited for.
//
// Deletions and evictions carry the pod's UID as a precondition, so that a new pod of the same
// name is never the one removed.
func (r *Reconciler) drain(ctx context.Context, nodeClaim *karpv1.NodeClaim, node *corev1.Node, deadline *time.Time) (string, error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.MatchingFields{index.PodNodeName: node.Name}); err != nil {
		return "", fmt.Errorf("listing the pods of node %s: %w", node.Name, err)
	}
	now := r.Clock.Now()
	var forced, graceful []*corev1.Pod
	for i := range pods.Items {
		pod := &pods.Items[i]
		switch {
		case !waitingEviction(pod, now):
		case needsForceDelete(pod, deadline, now):
			forced = append(forced, pod)
		default:
			graceful = append(graceful, pod)
		}
	}
	for _, pod := range forced {
		if err := r.forceDelete(ctx, nodeClaim, pod, *deadline); err != nil {
			return "", err
		}
	}
	var w waits
	for _, tier := range byDrainPriority(graceful) {
		if len(tier) == 0 {
			continue
		}
		for _, pod := range tier {
			if err := r.evictOrWait(ctx, nodeClaim, node, pod, &w); err != nil {
				return "", err
			}
		}
		break // the next tier waits until this one is gone
	}
	w.deleted = podNames(forced)
	return w.String(), nil
}

// waits is what a drain pass left waiting, by why.
type waits struct {
	evicted, blocked, held, terminating, deleted []string
}

func (w waits) String() string {
	var parts []string
	add := func(names []string, format string) {
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf(format, strings.Join(names, ", ")))
		}
	}
	add(w.blocked, "waiting to evict %s: a PodDisruptionBudget does not allow it yet")
	add(w.held, "waiting for %s, annotated "+karpv1.DoNotDisruptAnnotationKey+", to go: it is not evicted before the terminationGracePeriod deadline")
	add(w.terminating, "waiting for %s to terminate")
	add(w.evicted, "evicted %s")
	add(w.deleted, "deleted %s ahead of the terminationGracePeriod deadline")
	return strings.Join(parts, "; ")
}

// evictOrWait evicts one pod of the tier being drained, or notes why it waits.
func (r *Reconciler) evictOrWait(ctx context.Context, nodeClaim *karpv1.NodeClaim, node *corev1.Node, pod *corev1.Pod, w *waits) error {
	name := pod.Namespace + "/" + pod.Name
	protected, _, _ := podutil.DoNotDisrupt(pod, r.Clock.Now())
	switch {
	case !pod.DeletionTimestamp.IsZero():
		w.terminating = append(w.terminating, name)
		return nil
	case protected:
		// Not evicted; the drain stalls until the pod goes or the deadline passes.
		w.held = append(w.held, name)
		return nil
	}
	eviction := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: new(pod.UID)}},
	}
	err := r.Client.SubResource("eviction").Create(ctx, pod, eviction)
	countEvictionRequest(err)
	switch {
	case err == nil:
		podsDrained.WithLabelValues(evictionReason(nodeClaim)).Inc()
		podEvicted(r.Recorder, pod, evictionReason(nodeClaim))
		w.evicted = append(w.evicted, name)
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		// Gone, or another pod of the same name now: nothing of this one to evict.
	case apierrors.IsTooManyRequests(err):
		nodeFailedToDrain(r.Recorder, node, fmt.Errorf("evicting pod %s violates a PodDisruptionBudget", name))
		w.blocked = append(w.blocked, name)
	default:
		return fmt.Errorf("evicting pod %s: %w", name, err)
	}
	return nil
}

// countEvictionRequest counts an eviction request by the API's answer: its HTTP code.
func countEvictionRequest(err error) {
	code := http.StatusOK
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code = int(status.Status().Code)
	} else if err != nil {
		// No answer from the API server (a timeout, a dropped connection): nothing to count.
		return
	}
	podsEvictionRequests.WithLabelValues(strconv.Itoa(code)).Inc()
}

// forceDelete deletes a pod whose grace period would outlast the deadline, granting it what is
// left until the deadline, or its own shorter grace period, and at least 1 s: a grace of 0
// would remove the pod from the API before its containers stop, and a replacement could run
// beside it.
func (r *Reconciler) forceDelete(ctx context.Context, nodeClaim *karpv1.NodeClaim, pod *corev1.Pod, deadline time.Time) error {
	own := ptr.Deref(pod.Spec.TerminationGracePeriodSeconds, corev1.DefaultTerminationGracePeriodSeconds)
	grace := max(min(int64(deadline.Sub(r.Clock.Now()).Seconds()), own), 1)
	podDeletedAheadOfDeadline(r.Recorder, pod, grace, deadline)
	err := r.Client.Delete(ctx, pod, client.GracePeriodSeconds(grace), client.Preconditions{UID: new(pod.UID)})
	if client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting pod %s/%s ahead of the terminationGracePeriod deadline: %w", pod.Namespace, pod.Name, err)
	}
	if err == nil {
		podsDrained.WithLabelValues(evictionReason(nodeClaim)).Inc()
	}
	log.FromContext(ctx).V(1).Info("deleting pod", "Pod", klog.KObj(pod),
		"pod.terminationGracePeriodSeconds", ptr.Deref(pod.Spec.TerminationGracePeriodSeconds, 0),
		"delete.gracePeriodSeconds", grace, "nodeclaim.terminationTime", deadline)
	return nil
}

// waitingEviction reports whether the drain waits for the pod: it has not finished, does not
// tolerate karpenter.sh/disrupted, is not a static pod, and is not stuck terminating.
func waitingEviction(pod *corev1.Pod, now time.Time) bool {
	if !podutil.IsDrained(pod) {
		return false
	}
	for i := range pod.Spec.Tolerations {
		if pod.Spec.Tolerations[i].ToleratesTaint(klog.Background(), &karpv1.DisruptedNoScheduleTaint, false) {
			return false
		}
	}
	return pod.DeletionTimestamp.IsZero() || now.Sub(pod.DeletionTimestamp.Time) <= stuckTerminatingAfter
}

// needsForceDelete reports whether the pod must be deleted now to be gone by the deadline:
// its grace period, counted from now, ends after it; or it is terminating with a deletion
// timestamp after it.
func needsForceDelete(pod *corev1.Pod, deadline *time.Time, now time.Time) bool {
	if deadline == nil {
		return false
	}
	if !pod.DeletionTimestamp.IsZero() {
		return pod.DeletionTimestamp.After(*deadline)
	}
	grace := time.Duration(ptr.Deref(pod.Spec.TerminationGracePeriodSeconds, corev1.DefaultTerminationGracePeriodSeconds)) * time.Second
	return now.After(deadline.Add(-grace))
}

// byDrainPriority splits pods into the tiers they are evicted in.
func byDrainPriority(pods []*corev1.Pod) [4][]*corev1.Pod {
	var tiers [4][]*corev1.Pod
	for _, pod := range pods {
		tier := 0
		if isCritical(pod) {
			tier = 2
		}
		if podutil.IsOwnedByDaemonSet(pod) {
			tier++
		}
		tiers[tier] = append(tiers[tier], pod)
	}
	return tiers
}

func isCritical(pod *corev1.Pod) bool {
	return slices.Contains(criticalPriorityClasses, pod.Spec.PriorityClassName)
}

// evictionReason is why the NodeClaim is going, for the pods' events: the disruption reason
// the disruption controller recorded, else a forceful termination (a deleted Node or
// NodeClaim).
func evictionReason(nodeClaim *karpv1.NodeClaim) string {
	if c := meta.FindStatusCondition(nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason); c != nil && c.Status == metav1.ConditionTrue {
		return c.Reason
	}
	return "Forceful Termination"
}

func podNames(pods []*corev1.Pod) []string {
	names := make([]string, 0, len(pods))
	for _, pod := range pods {
		names = append(names, pod.Namespace+"/"+pod.Name)
	}
	return names
}
