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

package disruption

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims;persistentvolumes;namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch

// volumeRequirements says where the pods' persistent volumes keep them: a bound volume's node
// affinity (a zonal disk stays in its zone), or an unbound claim's StorageClass allowed
// topologies. Pods without claims are left out. Lists are read once, from the cache.
func (c *Controller) volumeRequirements(ctx context.Context, pods []*corev1.Pod) (map[*corev1.Pod]scheduling.Requirements, error) {
	var withClaims []*corev1.Pod
	for _, pod := range pods {
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
				withClaims = append(withClaims, pod)
				break
			}
		}
	}
	out := map[*corev1.Pod]scheduling.Requirements{}
	if len(withClaims) == 0 {
		return out, nil
	}
	claims := &corev1.PersistentVolumeClaimList{}
	volumes := &corev1.PersistentVolumeList{}
	classes := &storagev1.StorageClassList{}
	for _, list := range []client.ObjectList{claims, volumes, classes} {
		if err := c.Client.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			return nil, err
		}
	}
	claimByKey := map[string]*corev1.PersistentVolumeClaim{}
	for i := range claims.Items {
		claimByKey[claims.Items[i].Namespace+"/"+claims.Items[i].Name] = &claims.Items[i]
	}
	volumeByName := map[string]*corev1.PersistentVolume{}
	for i := range volumes.Items {
		volumeByName[volumes.Items[i].Name] = &volumes.Items[i]
	}
	classByName := map[string]*storagev1.StorageClass{}
	for i := range classes.Items {
		classByName[classes.Items[i].Name] = &classes.Items[i]
	}
	for _, pod := range withClaims {
		reqs := scheduling.Requirements{}
		for _, v := range pod.Spec.Volumes {
			name := ""
			switch {
			case v.PersistentVolumeClaim != nil:
				name = v.PersistentVolumeClaim.ClaimName
			case v.Ephemeral != nil:
				name = pod.Name + "-" + v.Name // the claim the ephemeral volume controller creates
			default:
				continue
			}
			pvc := claimByKey[pod.Namespace+"/"+name]
			if pvc == nil {
				continue
			}
			if pvc.Spec.VolumeName != "" {
				pv := volumeByName[pvc.Spec.VolumeName]
				if pv != nil && pv.Spec.NodeAffinity != nil && pv.Spec.NodeAffinity.Required != nil && len(pv.Spec.NodeAffinity.Required.NodeSelectorTerms) > 0 {
					// Terms are ORed; like pod node affinity, the first one is used.
					reqs.Add(scheduling.FromNodeSelectorRequirements(pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions...).Values()...)
				}
				continue
			}
			if pvc.Spec.StorageClassName == nil {
				continue
			}
			if sc := classByName[*pvc.Spec.StorageClassName]; sc != nil && len(sc.AllowedTopologies) > 0 {
				var exprs []corev1.NodeSelectorRequirement
				for _, e := range sc.AllowedTopologies[0].MatchLabelExpressions {
					exprs = append(exprs, corev1.NodeSelectorRequirement{Key: e.Key, Operator: corev1.NodeSelectorOpIn, Values: e.Values})
				}
				reqs.Add(scheduling.FromNodeSelectorRequirements(exprs...).Values()...)
			}
		}
		if len(reqs) > 0 {
			out[pod] = reqs
		}
	}
	return out, nil
}
