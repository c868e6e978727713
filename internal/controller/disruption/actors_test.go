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

package disruption_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// clusterActors plays, every 100 ms, what envtest does not run:
//   - kubelets: a launched NodeClaim's VM registers as a Node (its labels, the unregistered
//     taint), turns Ready with the NodeClaim's allocatable, and loses the not-ready taint;
//   - the kube-scheduler: a pending pod is bound to the Ready node with the most free CPU
//     whose taints it tolerates and whose labels match its nodeSelector, or is marked
//     Unschedulable (which starts provisioning);
//   - ReplicaSets: each deployment keeps its replica count, recreating evicted pods.
type clusterActors struct {
	client client.Client

	mu          sync.Mutex
	deployments map[string]*deployment
	serial      int
	// unbooted VMs do not register as nodes while set: a launch that never comes up.
	unbooted atomic.Bool
}

type deployment struct {
	replicas int
	template corev1.Pod
}

func newClusterActors(c client.Client) *clusterActors {
	return &clusterActors{client: c, deployments: map[string]*deployment{}}
}

func (a *clusterActors) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		a.kubelets(ctx)
		a.stopPods(ctx)
		a.replicaSets(ctx)
		a.scheduler(ctx)
	}
}

// deploy keeps replicas pods of the template, named name-<n> and labelled app=name.
func (a *clusterActors) deploy(name string, replicas int, template corev1.Pod) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deployments[name] = &deployment{replicas: replicas, template: template}
}

func (a *clusterActors) scale(name string, replicas int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deployments[name].replicas = replicas
}

func (a *clusterActors) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deployments = map[string]*deployment{}
	a.unbooted.Store(false)
}

func (a *clusterActors) kubelets(ctx context.Context) {
	claims := &karpv1.NodeClaimList{}
	nodes := &corev1.NodeList{}
	if a.client.List(ctx, claims) != nil || a.client.List(ctx, nodes) != nil {
		return
	}
	byProviderID := map[string]*corev1.Node{}
	for i := range nodes.Items {
		byProviderID[nodes.Items[i].Spec.ProviderID] = &nodes.Items[i]
	}
	for i := range claims.Items {
		nodeClaim := &claims.Items[i]
		if nodeClaim.Status.ProviderID == "" || !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched) {
			continue
		}
		node := byProviderID[nodeClaim.Status.ProviderID]
		if node == nil {
			if !nodeClaim.DeletionTimestamp.IsZero() || a.unbooted.Load() {
				continue
			}
			labels := maps.Clone(nodeClaim.Labels)
			labels[corev1.LabelHostname] = "node-" + nodeClaim.Name
			node = &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "node-" + nodeClaim.Name, Labels: labels},
				Spec:       corev1.NodeSpec{ProviderID: nodeClaim.Status.ProviderID, Taints: []corev1.Taint{karpv1.UnregisteredNoExecuteTaint}},
			}
			if err := a.client.Create(ctx, node); err != nil {
				continue
			}
		}
		if !nodeReady(node) {
			node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
			node.Status.Allocatable = nodeClaim.Status.Allocatable
			node.Status.Capacity = nodeClaim.Status.Capacity
			_ = a.client.Status().Update(ctx, node)
			continue
		}
		if slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady }) {
			node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
			_ = a.client.Update(ctx, node)
		}
	}
}

// stopPods does what a kubelet does with a pod being deleted: once its grace period is over
// (its deletion timestamp), the pod's containers are stopped and the pod object removed.
func (a *clusterActors) stopPods(ctx context.Context) {
	pods := &corev1.PodList{}
	if a.client.List(ctx, pods) != nil {
		return
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Spec.NodeName != "" && !pod.DeletionTimestamp.IsZero() && !time.Now().Before(pod.DeletionTimestamp.Time) {
			_ = a.client.Delete(ctx, pod, client.GracePeriodSeconds(0))
		}
	}
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (a *clusterActors) replicaSets(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, d := range a.deployments {
		pods := &corev1.PodList{}
		if err := a.client.List(ctx, pods, client.InNamespace("default"), client.MatchingLabels{"app": name}); err != nil {
			continue
		}
		var live []corev1.Pod
		for _, p := range pods.Items {
			if p.DeletionTimestamp.IsZero() {
				live = append(live, p)
			}
		}
		for i := len(live); i < d.replicas; i++ {
			a.serial++
			pod := d.template.DeepCopy()
			pod.Name = fmt.Sprintf("%s-%d", name, a.serial)
			pod.Namespace = "default"
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels["app"] = name
			_ = a.client.Create(ctx, pod)
		}
		for i := d.replicas; i < len(live); i++ {
			_ = a.client.Delete(ctx, &live[i], client.GracePeriodSeconds(0))
		}
	}
}

func (a *clusterActors) scheduler(ctx context.Context) {
	pods := &corev1.PodList{}
	nodes := &corev1.NodeList{}
	if a.client.List(ctx, pods) != nil || a.client.List(ctx, nodes) != nil {
		return
	}
	used := map[string]corev1.ResourceList{}
	count := map[string]int64{}
	var pending []*corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		switch {
		case !p.DeletionTimestamp.IsZero():
		case p.Spec.NodeName == "":
			pending = append(pending, p)
		default:
			l := used[p.Spec.NodeName]
			if l == nil {
				l = corev1.ResourceList{}
			}
			for k, q := range scheduling.PodRequests(p) {
				v := l[k]
				v.Add(q)
				l[k] = v
			}
			used[p.Spec.NodeName] = l
			count[p.Spec.NodeName]++
		}
	}
	slices.SortFunc(pending, func(x, y *corev1.Pod) int { return x.CreationTimestamp.Compare(y.CreationTimestamp.Time) })
	for _, p := range pending {
		var best *corev1.Node
		var bestFree int64
		for i := range nodes.Items {
			n := &nodes.Items[i]
			if !nodeReady(n) || !n.DeletionTimestamp.IsZero() || n.Spec.Unschedulable {
				continue
			}
			if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, p.Spec.Tolerations, func(t *corev1.Taint) bool {
				return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
			}, false); untolerated {
				continue
			}
			if !selectorMatches(p.Spec.NodeSelector, n.Labels) {
				continue
			}
			free, fits := int64(0), true
			for k, q := range scheduling.PodRequests(p) {
				have := n.Status.Allocatable[k]
				have.Sub(used[n.Name][k])
				if have.Cmp(q) < 0 {
					fits = false
				}
				if k == corev1.ResourceCPU {
					have.Sub(q)
					free = have.MilliValue()
				}
			}
			if pods := n.Status.Allocatable.Pods(); !pods.IsZero() && count[n.Name] >= pods.Value() {
				fits = false
			}
			if fits && (best == nil || free > bestFree) {
				best, bestFree = n, free
			}
		}
		if best == nil {
			if !unschedulable(p) {
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.Now()}}
				_ = a.client.Status().Update(ctx, p)
			}
			continue
		}
		if err := a.client.SubResource("binding").Create(ctx, p, &corev1.Binding{Target: corev1.ObjectReference{Kind: "Node", Name: best.Name}}); err != nil {
			if !apierrors.IsConflict(err) {
				continue
			}
		}
		l := used[best.Name]
		if l == nil {
			l = corev1.ResourceList{}
		}
		for k, q := range scheduling.PodRequests(p) {
			v := l[k]
			v.Add(q)
			l[k] = v
		}
		used[best.Name] = l
		count[best.Name]++
	}
}

func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}

func selectorMatches(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// podTemplate is a pod requesting cpu (and a little memory), deleted at once when evicted (no
// kubelet runs to finish a graceful deletion).
func podTemplate(cpu string, opts ...func(*corev1.Pod)) corev1.Pod {
	p := corev1.Pod{Spec: corev1.PodSpec{
		TerminationGracePeriodSeconds: ptr.To[int64](0),
		Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("256Mi")},
		}}},
	}}
	for _, o := range opts {
		o(&p)
	}
	return p
}

func onPool(pool string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector[karpv1.LabelNodePool] = pool
	}
}

func tolerating(key, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: corev1.TaintEffectNoSchedule})
	}
}

func annotated(k, v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { metav1.SetMetaDataAnnotation(&p.ObjectMeta, k, v) }
}
