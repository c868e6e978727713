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

package simulation

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// +kubebuilder:rbac:groups="",resources=services;replicationcontrollers,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets;statefulsets,verbs=get;list;watch

// ReadWorkloads lists what the kube-scheduler deduces a pod's default topology spread
// selector from: Services, ReplicationControllers, ReplicaSets and StatefulSets. Read only
// when --scheduler-config sets default constraints, so that a cluster without them keeps no
// cache of these.
func ReadWorkloads(ctx context.Context, reader client.Reader) (Workloads, error) {
	w := Workloads{Owners: map[OwnerKey]OwnerSelector{}}
	services := &corev1.ServiceList{}
	rcs := &corev1.ReplicationControllerList{}
	rss := &appsv1.ReplicaSetList{}
	sss := &appsv1.StatefulSetList{}
	for _, l := range []struct {
		kind string
		list client.ObjectList
	}{{"Services", services}, {"ReplicationControllers", rcs}, {"ReplicaSets", rss}, {"StatefulSets", sss}} {
		if err := reader.List(ctx, l.list, client.UnsafeDisableDeepCopy); err != nil {
			return w, fmt.Errorf("listing %s: %w", l.kind, err)
		}
	}
	for i := range services.Items {
		w.Services = append(w.Services, &services.Items[i])
	}
	for _, rc := range rcs.Items {
		w.Owners[OwnerKey{APIVersion: "v1", Kind: "ReplicationController", Namespace: rc.Namespace, Name: rc.Name}] = OwnerSelector{Labels: rc.Spec.Selector}
	}
	for _, rs := range rss.Items {
		w.Owners[OwnerKey{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: rs.Namespace, Name: rs.Name}] = OwnerSelector{Selector: rs.Spec.Selector}
	}
	for _, ss := range sss.Items {
		w.Owners[OwnerKey{APIVersion: "apps/v1", Kind: "StatefulSet", Namespace: ss.Namespace, Name: ss.Name}] = OwnerSelector{Selector: ss.Spec.Selector}
	}
	return w, nil
}

// WithClusterDefaultSpread gives the pods without topology spread constraints of their own the
// cluster's default constraints (--scheduler-config), on copies, as the kube-scheduler will
// constrain them. A selector that cannot be deduced is logged and its pod left as it is, as
// the kube-scheduler leaves it.
func WithClusterDefaultSpread(ctx context.Context, reader client.Reader, config *SchedulerConfiguration, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	defaults := config.DefaultConstraints()
	if len(defaults) == 0 {
		return pods, nil
	}
	workloads, err := ReadWorkloads(ctx, reader)
	if err != nil {
		return nil, err
	}
	pods, err = WithDefaultSpread(pods, defaults, workloads)
	if err != nil {
		log.FromContext(ctx).Error(err, "deducing default topology spread selectors")
	}
	return pods, nil
}
