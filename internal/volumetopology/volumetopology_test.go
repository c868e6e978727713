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
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func claim(name, volume string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume, StorageClassName: class}}
}

func podWith(name string, volumes ...corev1.Volume) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{Volumes: volumes}}
}

func pvcVolume(claim string) corev1.Volume {
	return corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

func TestRequirements(t *testing.T) {
	zoneB := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-b"}, Spec: corev1.PersistentVolumeSpec{
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"kr-central-2-b"}}},
		}}}}}}
	zonal := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "zonal-c"}, Provisioner: "block.csi.example.com",
		AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: corev1.LabelTopologyZone, Values: []string{"kr-central-2-c"}}}}}}
	objects := []client.Object{zoneB, zonal,
		claim("bound", "pv-b", nil), claim("unbound", "", new("zonal-c")), claim("lost", "pv-gone", nil),
		claim("eph-scratch", "", new("zonal-c")), claim("plain", "", new("no-such-class"))}
	volumes, err := Load(t.Context(), fake.NewClientBuilder().WithObjects(objects...).Build())
	if err != nil {
		t.Fatal(err)
	}
	ephemeral := corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}
	for _, tc := range []struct {
		name, zone, waiting string
		pod                 *corev1.Pod
	}{
		{name: "a bound volume's node affinity", pod: podWith("a", pvcVolume("bound")), zone: "kr-central-2-b"},
		{name: "an unbound claim's allowed topologies", pod: podWith("b", pvcVolume("unbound")), zone: "kr-central-2-c"},
		{name: "an ephemeral volume's claim", pod: podWith("eph", ephemeral), zone: "kr-central-2-c"},
		{name: "a class that does not exist yet does not constrain", pod: podWith("c", pvcVolume("plain"))},
		{name: "no volumes", pod: podWith("d")},
		{name: "a missing claim", pod: podWith("e", pvcVolume("nope")), waiting: "waiting for PersistentVolumeClaim default/nope"},
		{name: "a missing volume", pod: podWith("f", pvcVolume("lost")), waiting: "waiting for PersistentVolume pv-gone of claim default/lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs, waiting := volumes.Requirements(tc.pod)
			if waiting != tc.waiting {
				t.Fatalf("waiting = %q, want %q", waiting, tc.waiting)
			}
			got := ""
			if r := reqs.Get(corev1.LabelTopologyZone); reqs.Has(corev1.LabelTopologyZone) && r.Len() == 1 {
				got = r.Values()[0]
			}
			if got != tc.zone {
				t.Errorf("zone = %q (%s), want %q", got, reqs, tc.zone)
			}
		})
	}
}

// TestCSIVolumes: the volumes counted against attach limits, as the kube-scheduler counts them.
func TestCSIVolumes(t *testing.T) {
	const driver = "block.csi.example.com"
	csiVolume := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-csi"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "disk-1"}}}}
	hostPath := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-local"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}}}
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "block"}, Provisioner: driver}
	objects := []client.Object{csiVolume, hostPath, class,
		claim("bound", "pv-csi", new("block")), claim("local", "pv-local", nil), claim("unbound", "", new("block")),
		claim("eph-scratch", "", new("block")), claim("no-class", "", nil), claim("unknown-class", "", new("no-such-class"))}
	volumes, err := Load(t.Context(), fake.NewClientBuilder().WithObjects(objects...).Build())
	if err != nil {
		t.Fatal(err)
	}
	ephemeral := corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}
	inline := corev1.Volume{Name: "inline", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: driver}}}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{name: "a bound CSI volume, by its handle", pod: podWith("a", pvcVolume("bound")), want: []string{driver + "/disk-1"}},
		{name: "an unbound claim, by its class's provisioner", pod: podWith("b", pvcVolume("unbound")), want: []string{"claim:default/unbound"}},
		{name: "an ephemeral volume's claim", pod: podWith("eph", ephemeral), want: []string{"claim:default/eph-scratch"}},
		{name: "a volume without a CSI source", pod: podWith("c", pvcVolume("local"))},
		{name: "an unbound claim without a class", pod: podWith("d", pvcVolume("no-class"))},
		{name: "an unbound claim of a class that does not exist", pod: podWith("e", pvcVolume("unknown-class"))},
		{name: "a claim that does not exist", pod: podWith("f", pvcVolume("nope"))},
		{name: "an inline CSI volume", pod: podWith("g", inline)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := volumes.CSIVolumes(tc.pod)
			if len(tc.want) == 0 {
				if len(got) > 0 {
					t.Errorf("CSIVolumes = %v, want none", got)
				}
				return
			}
			if len(got) != 1 || !got[driver].HasAll(tc.want...) || got[driver].Len() != len(tc.want) {
				t.Errorf("CSIVolumes = %v, want %s: %v", got, driver, tc.want)
			}
		})
	}
}
