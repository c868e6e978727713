/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package provisioning

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// volumeTopology returns the pods whose volumes can be placed, with where their volumes force
// them: a bound PersistentVolume's node affinity, or an unbound claim's StorageClass allowed
// topologies (WaitForFirstConsumer provisions where the pod lands). A pod whose claim does not
// exist yet is left out with an event; the kube-scheduler could not place it either.
func (p *Provisioner) volumeTopology(ctx context.Context, pods []*corev1.Pod) ([]*corev1.Pod, map[*corev1.Pod]scheduling.Requirements, error) {
	out := make([]*corev1.Pod, 0, len(pods))
	reqs := map[*corev1.Pod]scheduling.Requirements{}
	for _, pod := range pods {
		r, err := p.podVolumeRequirements(ctx, pod)
		if err != nil {
			if missing := (*missingVolumeError)(nil); errors.As(err, &missing) {
				p.Recorder.Eventf(pod, nil, corev1.EventTypeWarning, "FailedScheduling", "Provision", "Failed to schedule pod, %s", err)
				continue
			}
			return nil, nil, err
		}
		if len(r) > 0 {
			reqs[pod] = r
		}
		out = append(out, pod)
	}
	return out, reqs, nil
}

type missingVolumeError struct{ msg string }

func (e *missingVolumeError) Error() string { return e.msg }

func (p *Provisioner) podVolumeRequirements(ctx context.Context, pod *corev1.Pod) (scheduling.Requirements, error) {
	out := scheduling.Requirements{}
	for _, v := range pod.Spec.Volumes {
		var claimName string
		switch {
		case v.PersistentVolumeClaim != nil:
			claimName = v.PersistentVolumeClaim.ClaimName
		case v.Ephemeral != nil:
			claimName = pod.Name + "-" + v.Name // the claim the ephemeral volume controller creates
		default:
			continue
		}
		pvc := &corev1.PersistentVolumeClaim{}
		if err := p.Client.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: claimName}, pvc); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, &missingVolumeError{msg: fmt.Sprintf("waiting for PersistentVolumeClaim %s/%s", pod.Namespace, claimName)}
			}
			return nil, err
		}
		if pvc.Spec.VolumeName != "" {
			pv := &corev1.PersistentVolume{}
			if err := p.Client.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv); err != nil {
				if apierrors.IsNotFound(err) {
					return nil, &missingVolumeError{msg: fmt.Sprintf("waiting for PersistentVolume %s of claim %s/%s", pvc.Spec.VolumeName, pod.Namespace, claimName)}
				}
				return nil, err
			}
			if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil && len(na.Required.NodeSelectorTerms) > 0 {
				// Terms are ORed; like pod node affinity, the first one is used.
				out.Add(scheduling.FromNodeSelectorRequirements(na.Required.NodeSelectorTerms[0].MatchExpressions...).Values()...)
			}
			continue
		}
		if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
			continue
		}
		sc := &storagev1.StorageClass{}
		if err := p.Client.Get(ctx, client.ObjectKey{Name: *pvc.Spec.StorageClassName}, sc); err != nil {
			if apierrors.IsNotFound(err) {
				continue // the claim waits on its class; it does not constrain the node
			}
			return nil, err
		}
		if len(sc.AllowedTopologies) > 0 {
			var exprs []corev1.NodeSelectorRequirement
			for _, e := range sc.AllowedTopologies[0].MatchLabelExpressions {
				exprs = append(exprs, corev1.NodeSelectorRequirement{Key: e.Key, Operator: corev1.NodeSelectorOpIn, Values: e.Values})
			}
			out.Add(scheduling.FromNodeSelectorRequirements(exprs...).Values()...)
		}
	}
	return out, nil
}
