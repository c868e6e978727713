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

package nodepool

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
)

// TestRegistrations: a restarted operator starts from the condition the NodePool carries; a
// NodePool or KCNodeClass changed since forgets what was recorded.
func TestRegistrations(t *testing.T) {
	nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	pool := func(generation, nodeClassGeneration int64, status metav1.ConditionStatus) *karpv1.NodePool {
		np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "pool", Generation: generation}}
		np.Status.NodeClassObservedGeneration = nodeClassGeneration
		if status != "" {
			np.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeNodeRegistrationHealthy, Status: status, ObservedGeneration: 2}}
		}
		return np
	}
	for _, tc := range []struct {
		name     string
		recorded []bool
		np       *karpv1.NodePool
		want     registrations
	}{
		{"after a restart, True: one registration", nil, pool(2, 3, metav1.ConditionTrue), registrations{total: 1}},
		{"after a restart, False: enough failures", nil, pool(2, 3, metav1.ConditionFalse), registrations{total: 2, failed: 2}},
		{"after a restart, Unknown: nothing", nil, pool(2, 3, metav1.ConditionUnknown), registrations{}},
		{"recorded outcomes are kept", []bool{true, false}, pool(2, 3, metav1.ConditionFalse), registrations{total: 2, failed: 1}},
		{"the NodePool changed: forgotten", []bool{false, false}, pool(4, 3, metav1.ConditionFalse), registrations{}},
		{"the KCNodeClass changed: forgotten", []bool{false, false}, pool(2, 1, metav1.ConditionFalse), registrations{}},
		{"never set: forgotten", []bool{false}, pool(2, 3, ""), registrations{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Reconciler{RegistrationHealth: state.NewRegistrationHealth()}
			for _, registered := range tc.recorded {
				r.RegistrationHealth.Record("pool", registered)
			}
			if got := r.registrations(tc.np, nodeClass); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
