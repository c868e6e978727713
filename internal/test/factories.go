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

package test

import (
	"maps"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// The objects below are built with defaults that work against the emulator's built-in
// catalog; each option overrides what a spec cares about.

// RandomName returns prefix and five random lowercase letters, the shape of the names
// Kubernetes generates.
func RandomName(prefix string) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	suffix := make([]byte, 5)
	for i := range suffix {
		suffix[i] = letters[rand.IntN(len(letters))]
	}
	return prefix + "-" + string(suffix)
}

// KCNodeClass is a node class of Kubernetes 1.36 in subnet karpenter-subnet-a with security
// group karpenter-workers and a 50 GiB root volume.
func KCNodeClass(opts ...func(*kcv1.KCNodeClass)) *kcv1.KCNodeClass {
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: RandomName("nodeclass")},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
			RootVolume:                 kcv1.RootVolume{SizeGiB: 50},
		},
	}
	for _, opt := range opts {
		opt(nodeClass)
	}
	return nodeClass
}

// NodeClassRef is the reference to a KCNodeClass.
func NodeClassRef(nodeClass *kcv1.KCNodeClass) *karpv1.NodeClassReference {
	return &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name}
}

// NodePool is a NodePool of linux/amd64 on-demand nodes of nodeClass.
func NodePool(nodeClass *kcv1.KCNodeClass, opts ...func(*karpv1.NodePool)) *karpv1.NodePool {
	nodePool := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: RandomName("pool")},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				NodeClassRef: NodeClassRef(nodeClass),
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
					{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
				},
			}},
		},
	}
	for _, opt := range opts {
		opt(nodePool)
	}
	return nodePool
}

// NodeClaim is a NodeClaim of NodePool "default" on nodeClass, asking for 1 CPU.
func NodeClaim(nodeClass *kcv1.KCNodeClass, opts ...func(*karpv1.NodeClaim)) *karpv1.NodeClaim {
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:   RandomName("default"),
			Labels: map[string]string{karpv1.LabelNodePool: "default"},
		},
		Spec: karpv1.NodeClaimSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{"default"}},
			},
			Resources:    karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			NodeClassRef: NodeClassRef(nodeClass),
		},
	}
	for _, opt := range opts {
		opt(nodeClaim)
	}
	return nodeClaim
}

// Node is the node a kubelet registers for nodeClaim: its provider id, hostname and
// labels, with the unregistered taint; not Ready yet.
func Node(nodeClaim *karpv1.NodeClaim, opts ...func(*corev1.Node)) *corev1.Node {
	name := "node-" + nodeClaim.Name
	labels := map[string]string{corev1.LabelHostname: name}
	maps.Copy(labels, nodeClaim.Labels)
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.NodeSpec{
			ProviderID: nodeClaim.Status.ProviderID,
			Taints:     []corev1.Taint{karpv1.UnregisteredNoExecuteTaint},
		},
	}
	for _, opt := range opts {
		opt(node)
	}
	return node
}

// NodeReady sets what the kubelet reports once the node is up: Ready, with allocatable.
func NodeReady(allocatable corev1.ResourceList) func(*corev1.Node) {
	return func(node *corev1.Node) {
		now := metav1.Now()
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: now, LastTransitionTime: now}}
		node.Status.Allocatable = allocatable
		node.Status.Capacity = allocatable
	}
}

// Pod is a pod of one pause container asking for 100m CPU, in namespace default, bound to
// no node.
func Pod(opts ...func(*corev1.Pod)) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: RandomName("pod"), Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
			}},
		},
	}
	for _, opt := range opts {
		opt(pod)
	}
	return pod
}

// OnNode binds a pod to the node, Running.
func OnNode(node *corev1.Node) func(*corev1.Pod) {
	return func(pod *corev1.Pod) {
		pod.Spec.NodeName = node.Name
		pod.Status.Phase = corev1.PodRunning
	}
}

// OwnedBy makes the pod controlled by an owner of that kind (DaemonSet, ReplicaSet, Node).
func OwnedBy(apiVersion, kind, name string) func(*corev1.Pod) {
	return func(pod *corev1.Pod) {
		pod.OwnerReferences = append(pod.OwnerReferences, metav1.OwnerReference{
			APIVersion: apiVersion, Kind: kind, Name: name, UID: "00000000-0000-0000-0000-000000000001", Controller: new(true),
		})
	}
}

// Labelled adds labels to the pod.
func Labelled(labels map[string]string) func(*corev1.Pod) {
	return func(pod *corev1.Pod) {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		maps.Copy(pod.Labels, labels)
	}
}

// Annotated adds an annotation to the pod.
func Annotated(key, value string) func(*corev1.Pod) {
	return func(pod *corev1.Pod) { metav1.SetMetaDataAnnotation(&pod.ObjectMeta, key, value) }
}

// GracePeriod sets the pod's terminationGracePeriodSeconds.
func GracePeriod(seconds int64) func(*corev1.Pod) {
	return func(pod *corev1.Pod) { pod.Spec.TerminationGracePeriodSeconds = new(seconds) }
}

// PodDisruptionBudget allows maxUnavailable disruptions of the pods with the labels.
func PodDisruptionBudget(labels map[string]string, maxUnavailable int) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: RandomName("pdb"), Namespace: metav1.NamespaceDefault},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: labels},
			MaxUnavailable: new(intstr.FromInt32(int32(maxUnavailable))),
		},
	}
}
