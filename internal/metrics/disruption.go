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

package metrics

import (
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The labels every disruption of a NodeClaim is counted under, as upstream names them.
var disruptionLabels = []string{"reason", "nodepool", "capacity_type", "consolidation_policy", "termination_mode"}

var (
	// NodeClaimsDisrupted counts NodeClaims deleted by disruption: the loop's methods,
	// expiration and the legacy repair controller.
	NodeClaimsDisrupted = Counter("karpenter_nodeclaims_disrupted_total",
		"NodeClaims disrupted, by reason (empty, drifted, underutilized, unhealthy, expired), NodePool, capacity type, consolidation policy (consolidation only) and termination mode.",
		disruptionLabels...)
	// PodsDisruptionInitiated counts the reschedulable pods of the NodeClaims disrupted.
	PodsDisruptionInitiated = Counter("karpenter_pods_disruption_initiated_total",
		"Reschedulable pods of the NodeClaims disrupted, labelled as karpenter_nodeclaims_disrupted_total.",
		disruptionLabels...)
)

// Termination modes: how a disrupted NodeClaim's drain ends.
const (
	// TerminationModeGraceful: no terminationGracePeriod, the drain waits for every eviction.
	TerminationModeGraceful = "graceful"
	// TerminationModeEventual: a terminationGracePeriod ends the drain.
	TerminationModeEventual = "eventual"
	// TerminationModeForceful: a terminationGracePeriod of 0 deletes the pods at once.
	TerminationModeForceful = "forceful"
)

// TerminationMode is the termination mode of a NodeClaim with the terminationGracePeriod given.
func TerminationMode(gracePeriod *metav1.Duration) string {
	switch {
	case gracePeriod == nil:
		return TerminationModeGraceful
	case gracePeriod.Duration <= 0:
		return TerminationModeForceful
	}
	return TerminationModeEventual
}

// Disruption is one NodeClaim's disruption as the two counters label it.
type Disruption struct {
	// Reason is the lower-case disruption reason: empty, drifted, underutilized, unhealthy, expired.
	Reason       string
	NodePool     string
	CapacityType string
	// ConsolidationPolicy is the NodePool's, in snake case, for consolidation only ("" else).
	ConsolidationPolicy string
	TerminationMode     string
	// Pods are the NodeClaim's reschedulable pods.
	Pods int
}

// Record counts the disruption and its pods.
func (d Disruption) Record() {
	values := []string{d.Reason, d.NodePool, d.CapacityType, d.ConsolidationPolicy, d.TerminationMode}
	NodeClaimsDisrupted.WithLabelValues(values...).Inc()
	PodsDisruptionInitiated.WithLabelValues(values...).Add(float64(d.Pods))
}

// SnakeCase writes a name as upstream's metric labels do: MemoryPressure as memory_pressure,
// WhenEmptyOrUnderutilized as when_empty_or_underutilized, a run of capitals as one word
// (ABCReady as abc_ready).
func SnakeCase(s string) string {
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		if unicode.IsUpper(r) && i > 0 {
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
