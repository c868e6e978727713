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

package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// VolumeUsage is, by CSI driver, the volumes of that driver some pods use. A volume is named
// the same for every pod that uses it (VolumeID), so that a volume two pods of a node share is
// counted once, as it is attached once.
type VolumeUsage map[string]sets.Set[string]

// VolumeID names a volume as the kube-scheduler counts it: by the volume handle of its CSI
// source once bound, else (not provisioned yet) by its claim.
func VolumeID(driver, handle string) string { return driver + "/" + handle }

// UnboundVolumeID names the volume a claim not bound yet will get.
func UnboundVolumeID(claim *corev1.PersistentVolumeClaim) string {
	return "claim:" + claim.Namespace + "/" + claim.Name
}

// Insert records that volume id of driver is used.
func (u VolumeUsage) Insert(driver, id string) {
	if u[driver] == nil {
		u[driver] = sets.New[string]()
	}
	u[driver].Insert(id)
}

// Attach adds the volumes of the drivers that limits limits.
func (u VolumeUsage) Attach(volumes VolumeUsage, limits map[string]int) {
	for driver, ids := range volumes {
		if _, limited := limits[driver]; limited {
			for id := range ids {
				u.Insert(driver, id)
			}
		}
	}
}
