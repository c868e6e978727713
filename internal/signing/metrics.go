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

package signing

import (
	"sync"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
)

// instancesBySigningKey tells operators when an old key can leave the keyring.
var instancesBySigningKey = metrics.Gauge("karpenter_kakaocloud_instances_by_signing_key",
	"VMs of this cluster whose marker is signed by this key; an old key can be removed from the keyring when its count is 0.",
	"key_id")

// recordedKeyIDs are the key ids that currently have a series, guarded by recordMu so that
// concurrent calls cannot interleave their deletes and sets.
var (
	recordMu       sync.Mutex
	recordedKeyIDs = map[string]struct{}{}
)

// RecordInstancesBySigningKey replaces all series with counts: key ids absent from counts lose
// their series. Callers pass 0 for a key in the ring with no VMs, so that its series reads 0
// (safe to remove) rather than missing.
func RecordInstancesBySigningKey(counts map[string]int) {
	recordMu.Lock()
	defer recordMu.Unlock()
	// Deleting only the stale series, instead of Reset and refill, keeps a scrape in between
	// from seeing no series at all.
	for id := range recordedKeyIDs {
		if _, ok := counts[id]; !ok {
			instancesBySigningKey.DeleteLabelValues(id)
			delete(recordedKeyIDs, id)
		}
	}
	for id, count := range counts {
		instancesBySigningKey.WithLabelValues(id).Set(float64(count))
		recordedKeyIDs[id] = struct{}{}
	}
}
