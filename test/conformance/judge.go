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

// Package conformance judges the scheduling simulation with the real kube-scheduler.
//
// Each seed builds a random cluster and workload, runs the simulation the provisioner and the
// disruption controller run, and replays every placement it decided through the
// kube-scheduler's own framework (the default profile's PreFilter and Filter plugins, in
// process) on the existing nodes plus the nodes the decision would launch. A placement the
// kube-scheduler refuses, a pod left pending that an existing node would take, or a node label
// no NodePool or instance type defines is a disagreement.
//
// It is its own Go module so that k8s.io/kubernetes stays out of the operator's dependencies.
package conformance

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedulermetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
)

// Judge asks the kube-scheduler's framework whether a pod may run on a node.
type Judge struct {
	framework framework.Framework
	lister    *swappableLister
}

// swappableLister lets one framework look at the snapshot of whichever cluster a question is about.
type swappableLister struct{ fwk.SharedLister }

// unsupported are default plugins for features the simulation does not claim (dynamic resource
// allocation, workload gangs): they need managers a plain clientset does not give them.
var unsupported = []string{names.DynamicResources, names.GangScheduling, names.TopologyPlacementGenerator, names.PodGroupPodsCount}

// NewJudge builds the default scheduler profile over a fake clientset holding objects (the
// volumes, claims, storage classes and namespaces the plugins list).
func NewJudge(ctx context.Context, objects ...runtime.Object) (*Judge, error) {
	// The framework counts plugin calls in the scheduler's metrics, which must exist first.
	schedulermetrics.Register()
	cfg, err := latest.Default()
	if err != nil {
		return nil, err
	}
	profile := cfg.Profiles[0]
	profile.Plugins.MultiPoint.Enabled = slices.DeleteFunc(profile.Plugins.MultiPoint.Enabled, func(p config.Plugin) bool { return slices.Contains(unsupported, p.Name) })
	client := fake.NewClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	lister := &swappableLister{SharedLister: internalcache.NewEmptySnapshot()}
	fw, err := frameworkruntime.NewFramework(ctx, frameworkplugins.NewInTreeRegistry(), &profile,
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSnapshotSharedLister(lister),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(100)),
	)
	if err != nil {
		return nil, fmt.Errorf("building the kube-scheduler framework: %w", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &Judge{framework: fw, lister: lister}, nil
}

// Cluster is what the kube-scheduler sees: nodes and the pods bound to them.
type Cluster struct {
	Nodes []*corev1.Node
	Pods  []*corev1.Pod // bound: spec.nodeName set

	// snapshot is the kube-scheduler's snapshot of Nodes and Pods as they were when it was
	// taken (seen), kept up to date by Bind: a question asked after Bind reuses it instead of
	// taking a new one of the whole cluster. Nodes or pods added otherwise make it stale.
	snapshot *internalcache.Snapshot
	seen     clusterMark
}

// clusterMark identifies the cluster's lists as a snapshot saw them: their lengths, their
// arrays and their last elements.
type clusterMark struct {
	nodes, pods int
	firstNode   **corev1.Node
	firstPod    **corev1.Pod
	lastNode    *corev1.Node
	lastPod     *corev1.Pod
}

func (c *Cluster) mark() clusterMark {
	m := clusterMark{nodes: len(c.Nodes), pods: len(c.Pods)}
	if len(c.Nodes) > 0 {
		m.lastNode, m.firstNode = c.Nodes[len(c.Nodes)-1], &c.Nodes[0]
	}
	if len(c.Pods) > 0 {
		m.lastPod, m.firstPod = c.Pods[len(c.Pods)-1], &c.Pods[0]
	}
	return m
}

// Bind returns a copy of pod bound to node, added to the cluster.
func (c *Cluster) Bind(pod *corev1.Pod, node string) *corev1.Pod {
	bound := pod.DeepCopy()
	bound.Spec.NodeName = node
	current := c.snapshot != nil && c.seen == c.mark()
	c.Pods = append(c.Pods, bound)
	if current && c.assume(bound) {
		c.seen = c.mark()
	}
	return bound
}

// assume adds a pod bound to a node of the snapshot to it, as the snapshot of the cluster with
// the pod would hold it (its node's pods and the snapshot's affinity and volume indexes), and
// reports whether it could: the kube-scheduler keys assumed pods by UID, so a pod without one
// leaves the snapshot stale.
func (c *Cluster) assume(pod *corev1.Pod) bool {
	if pod.UID == "" {
		return false
	}
	if _, err := c.snapshot.NodeInfos().Get(pod.Spec.NodeName); err != nil {
		return false
	}
	// As a new snapshot adds a pod: its affinity terms parsed, an error in them ignored.
	info, _ := framework.NewPodInfo(pod)
	return c.snapshot.AssumePod(info) == nil
}

// schedulerSnapshot is the kube-scheduler's snapshot of the cluster now.
func (c *Cluster) schedulerSnapshot() *internalcache.Snapshot {
	if c.snapshot == nil || c.seen != c.mark() {
		c.snapshot = internalcache.NewSnapshot(c.Pods, c.Nodes)
		c.seen = c.mark()
	}
	return c.snapshot
}

// Fits runs PreFilter and the Filter plugins for pod on node; nil when the kube-scheduler would
// place it there.
func (j *Judge) Fits(ctx context.Context, c *Cluster, pod *corev1.Pod, node string) error {
	state, ok, err := j.prefilter(ctx, c, pod)
	if err != nil || !ok {
		return err
	}
	return j.filter(ctx, state, pod, node)
}

// Feasible names the nodes the kube-scheduler would accept pod on.
func (j *Judge) Feasible(ctx context.Context, c *Cluster, pod *corev1.Pod) ([]string, error) {
	state, ok, err := j.prefilter(ctx, c, pod)
	if !ok {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range c.Nodes {
		if j.filter(ctx, state, pod, n.Name) == nil {
			out = append(out, n.Name)
		}
	}
	return out, nil
}

// prefilter loads the cluster into the framework and runs PreFilter. ok is false (with the
// reason in err for Fits) when PreFilter already rules out every node.
func (j *Judge) prefilter(ctx context.Context, c *Cluster, pod *corev1.Pod) (fwk.CycleState, bool, error) {
	j.lister.SharedLister = c.schedulerSnapshot()
	state := framework.NewCycleState()
	_, status, _ := j.framework.RunPreFilterPlugins(ctx, state, pod)
	if !status.IsSuccess() && !status.IsSkip() {
		return nil, false, fmt.Errorf("prefilter %s: %s", status.Plugin(), status.Message())
	}
	return state, true, nil
}

func (j *Judge) filter(ctx context.Context, state fwk.CycleState, pod *corev1.Pod, node string) error {
	info, err := j.lister.NodeInfos().Get(node)
	if err != nil {
		return fmt.Errorf("node %s is not in the cluster", node)
	}
	if status := j.framework.RunFilterPlugins(ctx, state, pod, info); !status.IsSuccess() {
		return fmt.Errorf("%s: %s", status.Plugin(), status.Message())
	}
	return nil
}

// nodeNames lists the cluster's node names, sorted.
func (c *Cluster) nodeNames() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Name
	}
	slices.Sort(out)
	return out
}
