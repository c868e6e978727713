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

package provisioning

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/klog/v2"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/capacitybuffer"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pretty"
)

// Provisioner creates NodeClaims for pending pods, one batch at a time.
type Provisioner struct {
	Client client.Client
	// APIReader reads the API server directly: the NodeClaims a pass created that the cache
	// does not show yet are read with it. Client when nil.
	APIReader     client.Reader
	CloudProvider cloudprovider.CloudProvider
	Recorder      events.EventRecorder
	Clock         clock.Clock
	Batcher       *Batcher
	// Policies are --preference-policy and --min-values-policy.
	Policies simulation.Policies
	// SchedulerConfig is --scheduler-config: default topology spread constraints, nil when none.
	SchedulerConfig *simulation.SchedulerConfiguration
	// CapacityBuffers places the CapacityBuffers' virtual pods with the pending pods, and
	// says in each buffer's Provisioning condition how that went (the CapacityBuffer gate).
	CapacityBuffers bool
	// SchedulingTimes are told when each pending pod was first seen, decided about and placed,
	// for the pod metrics; nil keeps no times.
	SchedulingTimes *state.PodSchedulingTimes

	// nominated is where the last pass put each pod (simulation.Input.Nominated): the next
	// pass puts a pod still waiting there first, rather than open a second NodeClaim for it
	// when other pods came first. Only the provisioning loop reads and writes it.
	nominated map[types.UID]destination.Destination
	// launched are the NodeClaims created that the cache has not shown yet; each pass counts
	// them. Only the provisioning loop reads and writes it.
	launched launched
}

// +kubebuilder:rbac:groups="",resources=pods;nodes;namespaces;persistentvolumeclaims;persistentvolumes,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=daemonsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodeclaims,verbs=create
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools/finalizers,verbs=update
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools,verbs=get;list;watch

// NeedLeaderElection makes only the leader provision.
func (p *Provisioner) NeedLeaderElection() bool { return true }

// Start provisions each batch until ctx ends.
func (p *Provisioner) Start(ctx context.Context) error {
	for p.Batcher.Wait(ctx) {
		if _, err := p.Provision(ctx); err != nil {
			log.FromContext(ctx).Error(err, "provisioning failed")
			p.Batcher.Trigger() // try again with the next batch
		}
	}
	return nil
}

// Provision schedules the pending pods and creates the NodeClaims they need.
//
//nolint:gocyclo // the provisioning pass read top to bottom: read, simulate, record, create, each with its own way to fail
func (p *Provisioner) Provision(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	start := p.Clock.Now()
	cluster, err := state.Read(ctx, p.Client)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	apiReader := p.APIReader
	if apiReader == nil {
		apiReader = p.Client
	}
	if cluster.NodeClaims, err = p.launched.include(ctx, apiReader, cluster.NodeClaims); err != nil {
		return nil, err
	}
	pods := simulation.PodsToPlace(cluster, p.Clock.Now())
	p.SchedulingTimes.Acknowledge(pendingOnly(pods))
	var buffers []*autoscalingv1beta1.CapacityBuffer
	if p.CapacityBuffers {
		var virtual []*corev1.Pod
		if buffers, virtual, err = capacitybuffer.ReadVirtualPods(ctx, p.Client); err != nil {
			return nil, fmt.Errorf("reading the capacity buffers' pods: %w", err)
		}
		pods = append(pods, virtual...)
	}
	if len(pods) == 0 {
		return nil, p.updateBuffers(ctx, buffers, simulation.Results{})
	}
	input, waiting, err := p.Inputs().Input(ctx, cluster, pods)
	if err != nil {
		return nil, fmt.Errorf("building the simulation's input: %w", err)
	}
	for _, w := range waiting {
		p.failedScheduling(w.Pod, w.Why)
	}
	input.Nominated = NominatedNow(p.nominated, cluster)
	results := simulation.Simulate("provisioner", input)
	if len(results.NewNodeClaims) > 0 {
		// Upstream's lines, with how long the pass took to decide (the creates follow).
		newPods := 0
		for _, n := range results.NewNodeClaims {
			newPods += len(n.Pods)
		}
		log.FromContext(ctx).Info("found provisionable pod(s)", "Pods", pretty.Slice(podNames(pods), 5), "duration", p.Clock.Since(start).String())
		log.FromContext(ctx).Info("computed new nodeclaim(s) to fit pod(s)", "nodeclaims", len(results.NewNodeClaims), "pods", newPods)
	}
	nominations := make(map[types.UID]destination.Destination, len(results.Placed))
	simulation.PublishIgnored(results)

	for pod, err := range results.PodErrors {
		if pod.Spec.NodeName != "" || capacitybuffer.IsVirtual(pod) {
			// A pod of a node being deleted still runs there: it is told when it is pending.
			// A virtual pod is told nothing: its buffer's Provisioning condition says it.
			continue
		}
		msg := err.Error()
		if zones := zoneExplanation(pod, input.NodePools); zones != "" {
			msg += "; " + zones
		}
		p.SchedulingTimes.Decide(pod, false)
		p.failedScheduling(pod, msg)
	}
	for _, name := range results.IncompatibleNodePools {
		for _, np := range input.NodePools {
			if np.NodePool.Name == name {
				noCompatibleInstanceTypes(p.Recorder, np.NodePool)
			}
		}
	}
	for _, placed := range results.Placed {
		if placed.Pod.Spec.NodeName != "" || capacitybuffer.IsVirtual(placed.Pod) {
			continue
		}
		p.SchedulingTimes.Decide(placed.Pod, true)
		if placed.ExistingNode.IsZero() {
			continue
		}
		nominations[placed.Pod.UID] = placed.ExistingNode
		nominated(p.Recorder, placed.Pod, placed.ExistingNode)
	}
	nodeClaims, createErrs := p.createNodeClaims(ctx, results.NewNodeClaims)
	var created []*karpv1.NodeClaim
	for i, n := range results.NewNodeClaims {
		nodeClaim := nodeClaims[i]
		if createErrs[i] != nil {
			// Its pods stay pending and unnominated: the next batch places them again.
			continue
		}
		p.launched.add(nodeClaim)
		metrics.NodeClaimCreated(metrics.ReasonProvisioned, n.NodePoolName, nodeClaim.Annotations[karpv1.NodeClaimMinValuesRelaxedAnnotationKey] == "true")
		log.FromContext(ctx).Info("created nodeclaim", "NodePool", klog.KRef("", n.NodePoolName),
			"NodeClaim", klog.KRef("", nodeClaim.Name), "pods", len(n.Pods), "requests", n.Requests,
			"instance-types", len(n.InstanceTypes))
		for _, pod := range n.Pods {
			nominations[pod.UID] = destination.OfNodeClaim(nodeClaim)
			if pod.Spec.NodeName == "" && !capacitybuffer.IsVirtual(pod) {
				nominated(p.Recorder, pod, destination.OfNodeClaim(nodeClaim))
			}
		}
		created = append(created, nodeClaim)
	}
	p.nominated = nominations
	return created, errors.Join(append(createErrs, p.updateBuffers(ctx, buffers, *results))...)
}

// createNodeClaims creates the pass's NodeClaims all at once, as upstream's provisioner does:
// one at a time, a pass that opens fifty NodeClaims spends the API server's round trip fifty
// times over before the last VM is asked for. The NodeClaims and errors are in news' order;
// one that fails does not stop the others.
func (p *Provisioner) createNodeClaims(ctx context.Context, news []*simulation.NewNodeClaim) ([]*karpv1.NodeClaim, []error) {
	nodeClaims := make([]*karpv1.NodeClaim, len(news))
	errs := make([]error, len(news))
	for i, n := range news {
		nodeClaims[i] = n.ToNodeClaim()
		// What stays when ctx ends before its create starts.
		errs[i] = fmt.Errorf("creating a NodeClaim for NodePool %s: %w", n.NodePoolName, context.Canceled)
	}
	workqueue.ParallelizeUntil(ctx, len(news), len(news), func(i int) {
		errs[i] = nil
		if err := p.Client.Create(ctx, nodeClaims[i]); err != nil {
			errs[i] = fmt.Errorf("creating a NodeClaim for NodePool %s: %w", news[i].NodePoolName, err)
		}
	})
	return nodeClaims, errs
}

// podNames are the pods' namespace/name.
func podNames(pods []*corev1.Pod) []string {
	names := make([]string, len(pods))
	for i, pod := range pods {
		names[i] = klog.KObj(pod).String()
	}
	return names
}

// NominatedNow is where the last pass put each pod (nominated), as a pass over cluster finds
// the places: a pod put on a NodeClaim in flight whose node has registered since goes on that
// node first.
func NominatedNow(nominated map[types.UID]destination.Destination, cluster *state.Cluster) map[types.UID]destination.Destination {
	nodeByProviderID := make(map[string]*corev1.Node, len(cluster.Nodes))
	for _, node := range cluster.Nodes {
		if node.Spec.ProviderID != "" {
			nodeByProviderID[node.Spec.ProviderID] = node
		}
	}
	// The NodeClaims that registered a node, by the key of their destination, with the
	// NodeClaim to tell a NodeClaim made again under the same name.
	type registration struct {
		nodeClaim, node destination.Destination
	}
	registered := map[destination.Destination]registration{}
	for _, nodeClaim := range cluster.NodeClaims {
		if node, ok := nodeByProviderID[nodeClaim.Status.ProviderID]; ok && nodeClaim.Status.ProviderID != "" {
			claim := destination.OfNodeClaim(nodeClaim)
			registered[claim.Key()] = registration{nodeClaim: claim, node: destination.OfNode(node)}
		}
	}
	if len(registered) == 0 {
		return nominated
	}
	out := make(map[types.UID]destination.Destination, len(nominated))
	for uid, where := range nominated {
		out[uid] = where
		if r, ok := registered[where.Key()]; ok && r.nodeClaim.Same(where) {
			out[uid] = r.node
		}
	}
	return out
}

// pendingOnly are the pods of pods that wait for a node: not those of nodes being deleted,
// which still run, nor the CapacityBuffers' virtual ones.
func pendingOnly(pods []*corev1.Pod) []*corev1.Pod {
	var pending []*corev1.Pod
	for _, pod := range pods {
		if pod.Spec.NodeName == "" && !capacitybuffer.IsVirtual(pod) {
			pending = append(pending, pod)
		}
	}
	return pending
}

// updateBuffers sets each buffer's Provisioning condition from where the pass placed its
// virtual pods.
func (p *Provisioner) updateBuffers(ctx context.Context, buffers []*autoscalingv1beta1.CapacityBuffer, results simulation.Results) error {
	placements := capacitybuffer.Placements(results)
	now := metav1.NewTime(p.Clock.Now())
	var errs []error
	for _, cb := range buffers {
		condition := capacitybuffer.ProvisioningCondition(cb, placements[client.ObjectKeyFromObject(cb)], now)
		if condition == nil {
			continue
		}
		stored := cb.DeepCopy()
		if !meta.SetStatusCondition(&cb.Status.Conditions, *condition) {
			continue
		}
		if err := p.Client.Status().Patch(ctx, cb, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})); client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
			// A conflict is the buffer's controller writing first: the next pass sets it.
			errs = append(errs, fmt.Errorf("setting the Provisioning condition of CapacityBuffer %s: %w", client.ObjectKeyFromObject(cb), err))
		}
	}
	return errors.Join(errs...)
}

// failedScheduling tells the pod why provisioning gives it no node.
func (p *Provisioner) failedScheduling(pod *corev1.Pod, why string) {
	failedScheduling(p.Recorder, pod, why)
}

// zoneExplanation says, for a pod that asks for zones, which NodePools' node classes have no
// subnet in any of them: the commonest reason a zone-constrained pod gets no node.
func zoneExplanation(pod *corev1.Pod, pools []simulation.NodePoolInput) string {
	reqs := scheduling.FromPodRequiredAffinity(pod)
	if !reqs.Has(corev1.LabelTopologyZone) {
		return ""
	}
	want := reqs.Get(corev1.LabelTopologyZone)
	var parts []string
	for _, np := range pools {
		offered := map[string]bool{}
		for _, it := range np.InstanceTypes {
			for _, of := range it.Offerings {
				offered[of.Zone] = true
			}
		}
		zones := make([]string, 0, len(offered))
		matched := false
		for z := range offered {
			zones = append(zones, z)
			matched = matched || want.Has(z)
		}
		if !matched {
			slices.Sort(zones)
			parts = append(parts, simulation.FormatNodePoolReason(simulation.NodePoolReason{NodePool: np.NodePool.Name,
				Reason: fmt.Sprintf("the subnets of its KCNodeClass %s are in zones [%s], none of which the pod allows (%s)",
					np.NodePool.Spec.Template.Spec.NodeClassRef.Name, strings.Join(zones, " "), want)}))
		}
	}
	return strings.Join(parts, "; ")
}

// podTrigger starts a batch whenever a provisionable pod appears or changes, and again every
// RetryPendingAfter while it stays provisionable.
type podTrigger struct {
	client  client.Client
	batcher *Batcher
}

func (t *podTrigger) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := t.client.Get(ctx, req.NamespacedName, pod); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("getting pod %s: %w", req.NamespacedName, err)
	}
	if !podutil.IsProvisionable(pod) {
		return reconcile.Result{}, nil
	}
	t.batcher.TriggerPod(pod.UID)
	// Looked at again while it waits, as upstream Karpenter does: what kept it pending (a
	// failed launch, a NodePool not ready yet, limits) may change without the pod changing.
	return reconcile.Result{RequeueAfter: RetryPendingAfter}, nil
}

// RetryPendingAfter is how often a pod that is still pending starts another provisioning pass.
const RetryPendingAfter = 10 * time.Second

// SetupWithManager registers the provisioner and its pod trigger.
func (p *Provisioner) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.Add(p); err != nil {
		return fmt.Errorf("adding the provisioner to the manager: %w", err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("provisioning.trigger").
		For(&corev1.Pod{}).
		// The pods of a node being deleted are placed as soon as its deletion starts, before
		// any of them is evicted and pending (PodsToPlace).
		Watches(&karpv1.NodeClaim{}, handler.Funcs{UpdateFunc: func(_ context.Context, e event.UpdateEvent, _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if e.ObjectOld.GetDeletionTimestamp() == nil && e.ObjectNew.GetDeletionTimestamp() != nil {
				p.Batcher.Trigger()
			}
		}}).
		Complete(&podTrigger{client: mgr.GetClient(), batcher: p.Batcher}); err != nil {
		return fmt.Errorf("building the pod trigger: %w", err)
	}
	return nil
}

// Inputs builds what a provisioning pass simulates, from the provisioner's cloud provider,
// reader and policies; kubectl karpenter's whatif builds it the same way.
func (p *Provisioner) Inputs() simulation.Builder {
	return simulation.Builder{Reader: p.Client, InstanceTypes: p.CloudProvider.GetInstanceTypes, Policies: p.Policies, SchedulerConfig: p.SchedulerConfig}
}
