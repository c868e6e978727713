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
	"fmt"
	"slices"
	"sort"
	"strings"

	cliflag "k8s.io/component-base/cli/flag"
)

// FeatureGates are upstream Karpenter v1.15's feature gates, by their names in
// --feature-gates, as this operator takes them: a Deployment written for upstream's keeps its
// flag.
type FeatureGates struct {
	// NodeRepair runs node repair. On by default here (upstream's is off): a KakaoCloud VM in
	// error or stopped does not come back by itself.
	NodeRepair bool
	// StaticCapacity is static NodePools (spec.replicas), always served here.
	StaticCapacity bool
	// CapacityBuffer keeps the room CapacityBuffers (autoscaling.x-k8s.io) ask for. Off by
	// default, as upstream's: the API is alpha.
	CapacityBuffer bool
}

// featureGate is one of upstream's gates: its default here, and why it cannot be turned the
// other way on KakaoCloud ("" when it can).
type featureGate struct {
	enabled func(*FeatureGates) *bool
	def     bool
	fixed   string
}

var featureGates = map[string]featureGate{
	"NodeRepair":                {enabled: func(g *FeatureGates) *bool { return &g.NodeRepair }, def: true},
	"StaticCapacity":            {enabled: func(g *FeatureGates) *bool { return &g.StaticCapacity }, def: true, fixed: "static NodePools are always served"},
	"SpotToSpotConsolidation":   {fixed: "KakaoCloud sells no spot capacity"},
	"ReservedCapacity":          {fixed: "KakaoCloud sells no capacity reservations"},
	"NodeOverlay":               {fixed: "NodeOverlay objects are not served: instance types come from KakaoCloud's flavors and the prices ConfigMap"},
	"CapacityBuffer":            {enabled: func(g *FeatureGates) *bool { return &g.CapacityBuffer }},
	"TerminateFirstDrift":       {fixed: "without reserved capacity a drifted node's replacement can always launch first"},
	"TerminateFirstRepair":      {fixed: "without reserved capacity an unhealthy node's replacement can always launch first"},
	"PodDeletionCostManagement": {fixed: "this operator does not write controller.kubernetes.io/pod-deletion-cost; a pod's own value is read as its disruption cost"},
}

// DefaultFeatureGates are the gates when --feature-gates does not name them.
func DefaultFeatureGates() FeatureGates {
	var g FeatureGates
	for _, gate := range featureGates {
		if gate.enabled != nil {
			*gate.enabled(&g) = gate.def
		}
	}
	return g
}

// ParseFeatureGates reads --feature-gates ("NodeRepair=true,SpotToSpotConsolidation=false").
// A name that is not one of upstream's gates is an error. A gate named with a value KakaoCloud
// cannot serve is taken, so that a Deployment written for upstream's (whose defaults turn
// ReservedCapacity on) starts, and a note says what runs instead, for the operator to log: it
// does not run otherwise than its flags say without saying so.
func ParseFeatureGates(value string) (FeatureGates, []string, error) {
	gates := DefaultFeatureGates()
	set := map[string]bool{}
	if err := cliflag.NewMapStringBool(&set).Set(value); err != nil {
		return gates, nil, fmt.Errorf("--feature-gates: %w", err)
	}
	var notes []string
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		gate, ok := featureGates[name]
		if !ok {
			return gates, nil, fmt.Errorf("--feature-gates: unknown feature gate %q; upstream Karpenter's are %s", name, strings.Join(FeatureGateNames(), ", "))
		}
		if gate.fixed != "" {
			if set[name] != gate.def {
				notes = append(notes, fmt.Sprintf("feature gate %s=%t has no effect here: %s", name, set[name], gate.fixed))
			}
			continue
		}
		*gate.enabled(&gates) = set[name]
	}
	return gates, notes, nil
}

// FeatureGateNames are upstream's gate names, sorted.
func FeatureGateNames() []string {
	names := make([]string, 0, len(featureGates))
	for name := range featureGates {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// FeatureGatesHelp is --feature-gates' help: each gate, its default, and what is fixed.
func FeatureGatesHelp() string {
	var parts []string
	for _, name := range FeatureGateNames() {
		gate := featureGates[name]
		switch {
		case gate.enabled == nil:
			parts = append(parts, fmt.Sprintf("%s=false (only: %s)", name, gate.fixed))
		case gate.fixed != "":
			parts = append(parts, fmt.Sprintf("%s=%t (only: %s)", name, gate.def, gate.fixed))
		default:
			parts = append(parts, fmt.Sprintf("%s=%t", name, gate.def))
		}
	}
	return "Upstream Karpenter's feature gates, as key=value pairs: " + strings.Join(parts, ", ") + "."
}
