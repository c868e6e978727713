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

package volumetopology

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims;persistentvolumes,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch

// Volumes is one read of the cluster's claims, volumes and storage classes.
type Volumes struct {
	claims  map[string]*corev1.PersistentVolumeClaim // namespace/name
	volumes map[string]*corev1.PersistentVolume
	classes map[string]*storagev1.StorageClass
}

// Load lists the claims, volumes and storage classes once (from the cache).
func Load(ctx context.Context, reader client.Reader) (*Volumes, error) {
	claims := &corev1.PersistentVolumeClaimList{}
	volumes := &corev1.PersistentVolumeList{}
	classes := &storagev1.StorageClassList{}
	for _, l := range []struct {
		kind string
		list client.ObjectList
	}{{"PersistentVolumeClaims", claims}, {"PersistentVolumes", volumes}, {"StorageClasses", classes}} {
		if err := reader.List(ctx, l.list); err != nil {
			return nil, fmt.Errorf("listing %s: %w", l.kind, err)
		}
	}
	v := &Volumes{
		claims:  make(map[string]*corev1.PersistentVolumeClaim, len(claims.Items)),
		volumes: make(map[string]*corev1.PersistentVolume, len(volumes.Items)),
		classes: make(map[string]*storagev1.StorageClass, len(classes.Items)),
	}
	for i := range claims.Items {
		v.claims[claims.Items[i].Namespace+"/"+claims.Items[i].Name] = &claims.Items[i]
	}
	for i := range volumes.Items {
		v.volumes[volumes.Items[i].Name] = &volumes.Items[i]
	}
	for i := range classes.Items {
		v.classes[classes.Items[i].Name] = &classes.Items[i]
	}
	return v, nil
}

// claimName is the claim a volume of the pod uses: its own, or the one the ephemeral volume
// controller creates for it; "" for a volume of another kind.
func claimName(pod *corev1.Pod, vol *corev1.Volume) string {
	switch {
	case vol.PersistentVolumeClaim != nil:
		return vol.PersistentVolumeClaim.ClaimName
	case vol.Ephemeral != nil:
		return pod.Name + "-" + vol.Name
	}
	return ""
}

// Requirements returns where the pod's volumes keep it. waiting, when not empty, names what
// the pod waits for (a claim or volume that does not exist yet): the kube-scheduler cannot
// place such a pod either.
func (v *Volumes) Requirements(pod *corev1.Pod) (reqs scheduling.Requirements, waiting string) {
	reqs = scheduling.Requirements{}
	for i := range pod.Spec.Volumes {
		name := claimName(pod, &pod.Spec.Volumes[i])
		if name == "" {
			continue
		}
		pvc := v.claims[pod.Namespace+"/"+name]
		if pvc == nil {
			return nil, fmt.Sprintf("waiting for PersistentVolumeClaim %s/%s", pod.Namespace, name)
		}
		if pvc.Spec.VolumeName != "" {
			pv := v.volumes[pvc.Spec.VolumeName]
			if pv == nil {
				return nil, fmt.Sprintf("waiting for PersistentVolume %s of claim %s/%s", pvc.Spec.VolumeName, pod.Namespace, name)
			}
			if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil && len(na.Required.NodeSelectorTerms) > 0 {
				// Terms are ORed; like pod node affinity, the first one is used.
				reqs.Add(scheduling.FromNodeSelectorRequirements(na.Required.NodeSelectorTerms[0].MatchExpressions...).Values()...)
			}
			continue
		}
		if pvc.Spec.StorageClassName == nil {
			continue
		}
		// A class that does not exist yet holds the claim, not the node choice.
		if sc := v.classes[*pvc.Spec.StorageClassName]; sc != nil && len(sc.AllowedTopologies) > 0 {
			exprs := make([]corev1.NodeSelectorRequirement, 0, len(sc.AllowedTopologies[0].MatchLabelExpressions))
			for _, e := range sc.AllowedTopologies[0].MatchLabelExpressions {
				exprs = append(exprs, corev1.NodeSelectorRequirement{Key: e.Key, Operator: corev1.NodeSelectorOpIn, Values: e.Values})
			}
			reqs.Add(scheduling.FromNodeSelectorRequirements(exprs...).Values()...)
		}
	}
	return reqs, ""
}

// Of returns what the pods' volumes decide for a simulation: where they keep each pod
// (Requirements; a pod whose claim or volume does not exist yet is in waiting instead, with
// why), and the CSI volumes each uses (CSIVolumes). Pods without either are left out.
func (v *Volumes) Of(pods []*corev1.Pod) (reqs map[*corev1.Pod]scheduling.Requirements, used map[*corev1.Pod]scheduling.VolumeUsage, waiting map[*corev1.Pod]string) {
	reqs, used, waiting = map[*corev1.Pod]scheduling.Requirements{}, map[*corev1.Pod]scheduling.VolumeUsage{}, map[*corev1.Pod]string{}
	for _, pod := range pods {
		if r, why := v.Requirements(pod); why != "" {
			waiting[pod] = why
		} else if len(r) > 0 {
			reqs[pod] = r
		}
	}
	v.AddCSIVolumes(used, pods)
	return reqs, used, waiting
}

// AddCSIVolumes adds to used the CSI volumes of each of the pods that uses any.
func (v *Volumes) AddCSIVolumes(used map[*corev1.Pod]scheduling.VolumeUsage, pods []*corev1.Pod) {
	for _, pod := range pods {
		if csiVolumes := v.CSIVolumes(pod); len(csiVolumes) > 0 {
			used[pod] = csiVolumes
		}
	}
}

// CSIVolumes returns the CSI volumes the pod uses, by driver, as the kube-scheduler counts them
// against a node's attach limits: a claim bound to a volume with a CSI source counts for its
// driver by its volume handle; a claim not bound yet (or bound to a volume not in the cache)
// for the provisioner of its StorageClass, by the claim. Volumes of other kinds do not count:
// an inline csi volume is not attached through the driver's attach limit, and the in-tree
// volumes the kube-scheduler translates to CSI are not offered on KakaoCloud. A claim that
// does not exist is left out (Requirements tells a pending pod it waits for it).
func (v *Volumes) CSIVolumes(pod *corev1.Pod) scheduling.VolumeUsage {
	var out scheduling.VolumeUsage
	for i := range pod.Spec.Volumes {
		name := claimName(pod, &pod.Spec.Volumes[i])
		pvc := v.claims[pod.Namespace+"/"+name]
		if name == "" || pvc == nil {
			continue
		}
		driver, id := v.csiVolume(pvc)
		if driver == "" {
			continue
		}
		if out == nil {
			out = scheduling.VolumeUsage{}
		}
		out.Insert(driver, id)
	}
	return out
}

// csiVolume is the driver and identity of the claim's volume; "" when it is no CSI volume.
func (v *Volumes) csiVolume(pvc *corev1.PersistentVolumeClaim) (driver, id string) {
	if pv := v.volumes[pvc.Spec.VolumeName]; pvc.Spec.VolumeName != "" && pv != nil {
		if source := pv.Spec.CSI; source != nil {
			return source.Driver, scheduling.VolumeID(source.Driver, source.VolumeHandle)
		}
		return "", ""
	}
	// A claim without a class must be bound before its pod is scheduled: it is not counted.
	class := v.classes[storagehelpers.GetPersistentVolumeClaimClass(pvc)]
	if class == nil {
		return "", ""
	}
	return class.Provisioner, scheduling.UnboundVolumeID(pvc)
}
