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

package operator

import (
	"strings"
	"testing"
)

func TestParseFeatureGates(t *testing.T) {
	for _, tc := range []struct {
		value      string
		nodeRepair bool
		notes      []string
		err        string
	}{
		{value: "", nodeRepair: true},
		{value: "NodeRepair=false", nodeRepair: false},
		// Upstream chart's defaults: ReservedCapacity on, StaticCapacity off. Taken, with
		// a note for each gate that runs otherwise here.
		{value: "ReservedCapacity=true,StaticCapacity=false,SpotToSpotConsolidation=false", nodeRepair: true,
			notes: []string{"feature gate ReservedCapacity=true has no effect here: KakaoCloud sells no capacity reservations",
				"feature gate StaticCapacity=false has no effect here: static NodePools are always served"}},
		{value: "NodeRepair=maybe", err: "invalid value"},
		{value: "NodeRepiar=true", err: `unknown feature gate "NodeRepiar"; upstream Karpenter's are CapacityBuffer, NodeOverlay, NodeRepair`},
	} {
		gates, notes, err := ParseFeatureGates(tc.value)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || gates.NodeRepair != tc.nodeRepair || !gates.StaticCapacity || strings.Join(notes, "|") != strings.Join(tc.notes, "|") {
			t.Errorf("%q: gates %+v, notes %q, error %v; want NodeRepair=%t, notes %q", tc.value, gates, notes, err, tc.nodeRepair, tc.notes)
		}
	}
}

func TestCapacityBufferGate(t *testing.T) {
	if DefaultFeatureGates().CapacityBuffer {
		t.Error("CapacityBuffer is on by default; upstream's alpha gate is off")
	}
	gates, notes, err := ParseFeatureGates("CapacityBuffer=true")
	if err != nil || !gates.CapacityBuffer || len(notes) != 0 {
		t.Errorf("CapacityBuffer=true: gates %+v, notes %q, error %v; want it on, without a note", gates, notes, err)
	}
}
