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

package state

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	podutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/pod"
)

// +kubebuilder:rbac:groups="",resources=pods;nodes;namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=daemonsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools;nodeclaims,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=csinodes,verbs=get;list;watch

// Cluster is one read of the cluster. Its objects come from the cache without copies: they
// are read-only.
type Cluster struct {
	NodePools  []*karpv1.NodePool
	NodeClaims []*karpv1.NodeClaim
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod
	// DaemonSetPods are one pod per DaemonSet, its template or, once it has one, the spec of
	// its newest pod: what it adds to every node it runs on.
	DaemonSetPods []*corev1.Pod
	PDBs          []*policyv1.PodDisruptionBudget
	// NamespaceLabels are the labels of every namespace, for pod affinity namespace
	// selectors.
	NamespaceLabels map[string]map[string]string
	// CSINodes are the nodes' CSINode objects by node name: their drivers' attach limits.
	CSINodes map[string]*storagev1.CSINode
}

// Read lists the cluster from reader (the manager's cache).
func Read(ctx context.Context, reader client.Reader) (*Cluster, error) {
	c := &Cluster{}
	pools := &karpv1.NodePoolList{}
	claims := &karpv1.NodeClaimList{}
	nodes := &corev1.NodeList{}
	pods := &corev1.PodList{}
	pdbs := &policyv1.PodDisruptionBudgetList{}
	daemonSets := &appsv1.DaemonSetList{}
	namespaces := &corev1.NamespaceList{}
	csiNodes := &storagev1.CSINodeList{}
	for _, l := range []struct {
		kind string
		list client.ObjectList
	}{
		{"NodePools", pools}, {"NodeClaims", claims}, {"nodes", nodes}, {"pods", pods}, {"PodDisruptionBudgets", pdbs},
		{"DaemonSets", daemonSets}, {"namespaces", namespaces}, {"CSINodes", csiNodes},
	} {
		if err := reader.List(ctx, l.list, client.UnsafeDisableDeepCopy); err != nil {
			return nil, fmt.Errorf("listing %s: %w", l.kind, err)
		}
	}
	c.NodePools = pointers(pools.Items)
	c.NodeClaims = pointers(claims.Items)
	c.Nodes = pointers(nodes.Items)
	c.Pods = pointers(pods.Items)
	c.PDBs = pointers(pdbs.Items)
	observed := newestPodsByOwner(c.Pods)
	for i := range daemonSets.Items {
		ds := &daemonSets.Items[i]
		c.DaemonSetPods = append(c.DaemonSetPods, DaemonSetPodAsObserved(ds, observed[ds.UID]))
	}
	c.NamespaceLabels = make(map[string]map[string]string, len(namespaces.Items))
	for _, ns := range namespaces.Items {
		c.NamespaceLabels[ns.Name] = ns.Labels
	}
	c.CSINodes = make(map[string]*storagev1.CSINode, len(csiNodes.Items))
	for _, csiNode := range pointers(csiNodes.Items) {
		// A CSINode is named after its node.
		c.CSINodes[csiNode.Name] = csiNode
	}
	return c, nil
}

// DaemonSetPod is the pod a DaemonSet adds to a node: its template, named and owned like the
// pods it creates, so that a node that already runs one can be told from one that does not.
func DaemonSetPod(ds *appsv1.DaemonSet) *corev1.Pod {
	return DaemonSetPodAsObserved(ds, nil)
}

// DaemonSetPodAsObserved is DaemonSetPod with the spec of one of the DaemonSet's pods when
// there is one (observed), as upstream Karpenter takes it: admission has filled in what the
// template leaves out, such as a LimitRange's default requests, which a node must have room
// for. The template's node affinity stays, as the DaemonSet controller pins each pod to its
// node through it.
func DaemonSetPodAsObserved(ds *appsv1.DaemonSet, observed *corev1.Pod) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(), Spec: *ds.Spec.Template.Spec.DeepCopy()}
	if observed != nil {
		pod.Spec = *observed.Spec.DeepCopy()
		pod.Spec.NodeName = ""
		pod.Spec.Affinity = ds.Spec.Template.Spec.Affinity.DeepCopy()
	} else {
		defaultRequestsToLimits(&pod.Spec)
	}
	pod.Name, pod.Namespace = ds.Name, ds.Namespace
	pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}
	return pod
}

// defaultRequestsToLimits gives a container that sets a limit and no request of a resource that
// request, as the API server's defaulting does to every pod it stores (a template is not
// defaulted so), so that a template's pod counts what its pods will request.
func defaultRequestsToLimits(spec *corev1.PodSpec) {
	for _, containers := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range containers {
			resources := &containers[i].Resources
			for name, limit := range resources.Limits {
				if _, set := resources.Requests[name]; set {
					continue
				}
				if resources.Requests == nil {
					resources.Requests = corev1.ResourceList{}
				}
				resources.Requests[name] = limit.DeepCopy()
			}
		}
	}
}

// newestPodsByOwner returns, by the UID of their controller, the most recently created pod of
// each that is neither finished nor deleting.
func newestPodsByOwner(pods []*corev1.Pod) map[types.UID]*corev1.Pod {
	newest := map[types.UID]*corev1.Pod{}
	for _, pod := range pods {
		owner := metav1.GetControllerOf(pod)
		if owner == nil || podutil.IsTerminal(pod) || !pod.DeletionTimestamp.IsZero() {
			continue
		}
		if current, ok := newest[owner.UID]; !ok || current.CreationTimestamp.Before(&pod.CreationTimestamp) {
			newest[owner.UID] = pod
		}
	}
	return newest
}

func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// BoundPods returns, by node name, the pods bound to each node that still run there (not
// succeeded or failed).
func (c *Cluster) BoundPods() map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, pod := range c.Pods {
		if pod.Spec.NodeName == "" || podutil.IsTerminal(pod) {
			continue
		}
		out[pod.Spec.NodeName] = append(out[pod.Spec.NodeName], pod)
	}
	return out
}
