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

package nodeclaim

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

func TestConsolidateAfterEnds(t *testing.T) {
	initializedAt := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	initialized := metav1.Condition{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(initializedAt)}
	for _, tc := range []struct {
		name             string
		consolidateAfter string
		conditions       []metav1.Condition
		lastPodEvent     time.Time
		want             time.Time
		wantOK           bool
	}{
		{name: "consolidation off", consolidateAfter: "Never", conditions: []metav1.Condition{initialized}},
		{name: "not initialized", consolidateAfter: "30s"},
		{name: "initializing", consolidateAfter: "30s", conditions: []metav1.Condition{{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionFalse}}},
		{name: "no pod event: from initialization", consolidateAfter: "30s", conditions: []metav1.Condition{initialized}, want: initializedAt.Add(30 * time.Second), wantOK: true},
		{name: "from the last pod event", consolidateAfter: "30s", conditions: []metav1.Condition{initialized}, lastPodEvent: initializedAt.Add(time.Hour), want: initializedAt.Add(time.Hour + 30*time.Second), wantOK: true},
		// As upstream's: the pod event counts even when the node initialized after it.
		{name: "a pod event before initialization", consolidateAfter: "30s", conditions: []metav1.Condition{initialized}, lastPodEvent: initializedAt.Add(-10 * time.Second), want: initializedAt.Add(20 * time.Second), wantOK: true},
		{name: "zero", consolidateAfter: "0s", conditions: []metav1.Condition{initialized}, lastPodEvent: initializedAt.Add(time.Minute), want: initializedAt.Add(time.Minute), wantOK: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &karpv1.NodePool{Spec: karpv1.NodePoolSpec{Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration(tc.consolidateAfter)}}}
			nodeClaim := &karpv1.NodeClaim{Status: karpv1.NodeClaimStatus{Conditions: tc.conditions, LastPodEventTime: metav1.NewTime(tc.lastPodEvent)}}
			got, ok := ConsolidateAfterEnds(nodeClaim, np)
			if ok != tc.wantOK || !got.Equal(tc.want) {
				t.Errorf("ConsolidateAfterEnds = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
