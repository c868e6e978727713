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

package repair

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// The policies KakaoCloud's cloud provider has, in its order: a VM in error or stopped past a
// short toleration (higher priority, drained at once), Ready Unknown past a long one (drained
// at once), Ready False past the long one (drained within a bound).
var (
	vmFailed = cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown,
		InstanceStates: []string{"error", "stopped"}, TolerationDuration: 10 * time.Minute, TerminationGracePeriod: new(time.Duration(0)), Priority: 100}
	unknown = cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown,
		TolerationDuration: 30 * time.Minute, TerminationGracePeriod: new(time.Duration(0)), Priority: 50}
	notReady = cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse,
		TolerationDuration: 30 * time.Minute, TerminationGracePeriod: new(10 * time.Minute), Priority: 50}
	policies = []cloudprovider.RepairPolicy{vmFailed, unknown, notReady}
)

// nodeWith is a node whose Ready condition has had status for lasted at now.
func nodeWith(status corev1.ConditionStatus, lasted time.Duration, labels map[string]string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-" + string(status) + lasted.String(), Labels: labels},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))},
			{Type: corev1.NodeReady, Status: status, LastTransitionTime: metav1.NewTime(now.Add(-lasted))},
		}},
	}
}

func TestAssess(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policies []cloudprovider.RepairPolicy
		node     *corev1.Node
		state    string
		want     *cloudprovider.RepairPolicy
		// wantState and wantGrace are the finding's instance state and drain bound.
		wantState string
		wantGrace *time.Duration
		wantWait  time.Duration
	}{
		{name: "a Ready node", policies: policies, node: nodeWith(corev1.ConditionTrue, time.Hour, nil)},
		{name: "a node without a Ready condition", policies: policies, node: &corev1.Node{}},
		{name: "no policies", node: nodeWith(corev1.ConditionUnknown, time.Hour, nil)},
		{name: "Unknown within its toleration, the VM running: looked at again soon, for its VM's state",
			policies: policies, node: nodeWith(corev1.ConditionUnknown, 10*time.Minute, nil), state: "active", wantWait: instanceStateRecheck},
		{name: "Unknown within its toleration, no policy on the VM: when the toleration ends",
			policies: []cloudprovider.RepairPolicy{unknown}, node: nodeWith(corev1.ConditionUnknown, 10*time.Minute, nil), wantWait: 20 * time.Minute},
		{name: "Unknown past its toleration", policies: policies, node: nodeWith(corev1.ConditionUnknown, 31*time.Minute, nil), state: "active",
			want: &unknown, wantGrace: new(time.Duration(0))},
		{name: "Unknown past the VM policy's toleration, the VM stopped", policies: policies, node: nodeWith(corev1.ConditionUnknown, 11*time.Minute, nil),
			state: "stopped", want: &vmFailed, wantState: "stopped", wantGrace: new(time.Duration(0))},
		{name: "the VM stopped, within its toleration: when it ends", policies: policies, node: nodeWith(corev1.ConditionUnknown, 4*time.Minute, nil),
			state: "stopped", wantWait: 6 * time.Minute},
		{name: "past both tolerations: the policy of higher priority", policies: []cloudprovider.RepairPolicy{unknown, vmFailed},
			node: nodeWith(corev1.ConditionUnknown, time.Hour, nil), state: "error", want: &vmFailed, wantState: "error", wantGrace: new(time.Duration(0))},
		{name: "False past its toleration: drained within its bound", policies: policies, node: nodeWith(corev1.ConditionFalse, 31*time.Minute, nil),
			want: &notReady, wantGrace: new(10 * time.Minute)},
		{name: "False within its toleration", policies: policies, node: nodeWith(corev1.ConditionFalse, 29*time.Minute, nil), wantWait: time.Minute},
		{name: "met by two of the same priority: the first, with the shorter drain bound of the two",
			policies: []cloudprovider.RepairPolicy{
				{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: time.Minute, Priority: 10},
				{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: time.Minute, TerminationGracePeriod: new(time.Minute), Priority: 10},
			},
			node:      nodeWith(corev1.ConditionFalse, time.Hour, nil),
			want:      &cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: time.Minute, Priority: 10},
			wantGrace: new(time.Minute)},
		{name: "a policy without a drain bound: none", policies: []cloudprovider.RepairPolicy{{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: time.Minute}},
			node: nodeWith(corev1.ConditionFalse, time.Hour, nil),
			want: &cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, wait := Assess(tc.policies, tc.node, tc.state, now)
			if wait != tc.wantWait {
				t.Errorf("wait %s, want %s", wait, tc.wantWait)
			}
			if tc.want == nil {
				if found != nil {
					t.Errorf("found %+v, want none", found)
				}
				return
			}
			if found == nil {
				t.Fatalf("found none, want policy %+v", *tc.want)
			}
			if found.Policy.Priority != tc.want.Priority || found.Policy.ConditionStatus != tc.want.ConditionStatus ||
				found.Policy.TolerationDuration != tc.want.TolerationDuration || len(found.Policy.InstanceStates) != len(tc.want.InstanceStates) {
				t.Errorf("policy %+v, want %+v", found.Policy, *tc.want)
			}
			if found.InstanceState != tc.wantState {
				t.Errorf("instance state %q, want %q", found.InstanceState, tc.wantState)
			}
			if (found.TerminationGracePeriod == nil) != (tc.wantGrace == nil) || (found.TerminationGracePeriod != nil && *found.TerminationGracePeriod != *tc.wantGrace) {
				t.Errorf("drain bound %v, want %v", found.TerminationGracePeriod, tc.wantGrace)
			}
			if want := now.Sub(found.Condition.LastTransitionTime.Time); found.Lasted != want || found.Condition.Type != corev1.NodeReady {
				t.Errorf("condition %s lasted %s, want Ready for %s", found.Condition.Type, found.Lasted, want)
			}
		})
	}
}

func TestNeedsInstanceState(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policies []cloudprovider.RepairPolicy
		node     *corev1.Node
		want     bool
	}{
		{"a Ready node", policies, nodeWith(corev1.ConditionTrue, time.Hour, nil), false},
		{"Unknown, which a policy on the VM's state names", policies, nodeWith(corev1.ConditionUnknown, time.Second, nil), true},
		{"False, which no policy on the VM's state names", policies, nodeWith(corev1.ConditionFalse, time.Hour, nil), false},
		{"no policy on the VM's state", []cloudprovider.RepairPolicy{unknown, notReady}, nodeWith(corev1.ConditionUnknown, time.Hour, nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NeedsInstanceState(tc.policies, tc.node); got != tc.want {
				t.Errorf("got %t, want %t", got, tc.want)
			}
		})
	}
}

// provider answers the repair policies and VM states of a cloud provider, and counts the
// states asked for; nothing else of it is called.
type provider struct {
	cloudprovider.CloudProvider
	policies []cloudprovider.RepairPolicy
	state    string
	err      error
	asked    int
}

func (p *provider) RepairPolicies() []cloudprovider.RepairPolicy { return p.policies }

func (p *provider) InstanceState(context.Context, *karpv1.NodeClaim) (string, error) {
	p.asked++
	return p.state, p.err
}

func TestEvaluate(t *testing.T) {
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-abcde"}}
	for _, tc := range []struct {
		name      string
		provider  *provider
		node      *corev1.Node
		wantAsked int
		wantFound bool
		wantWait  time.Duration
		wantErr   string
	}{
		{name: "a Ready node: the VM is not asked about", provider: &provider{policies: policies}, node: nodeWith(corev1.ConditionTrue, time.Hour, nil)},
		{name: "False: no policy on the VM's state applies, the VM is not asked about", provider: &provider{policies: policies},
			node: nodeWith(corev1.ConditionFalse, time.Hour, nil), wantFound: true},
		{name: "Unknown: the VM is asked about once", provider: &provider{policies: policies, state: "error"},
			node: nodeWith(corev1.ConditionUnknown, 11*time.Minute, nil), wantAsked: 1, wantFound: true},
		{name: "Unknown, the VM running", provider: &provider{policies: policies, state: "active"},
			node: nodeWith(corev1.ConditionUnknown, 11*time.Minute, nil), wantAsked: 1, wantWait: instanceStateRecheck},
		{name: "the VM's state cannot be read", provider: &provider{policies: policies, err: errors.New("503")},
			node: nodeWith(corev1.ConditionUnknown, time.Hour, nil), wantAsked: 1, wantErr: "reading the state of the VM of NodeClaim default-abcde: 503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, wait, err := Evaluate(t.Context(), tc.provider, tc.node, nodeClaim, now)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || found != nil || wait != 0 {
					t.Errorf("%v, %s, %v; want only the error %q", found, wait, err, tc.wantErr)
				}
			} else if err != nil || (found != nil) != tc.wantFound || wait != tc.wantWait {
				t.Errorf("found %v, wait %s, error %v; want found %t, wait %s", found, wait, err, tc.wantFound, tc.wantWait)
			}
			if tc.provider.asked != tc.wantAsked {
				t.Errorf("the VM's state was asked %d times, want %d", tc.provider.asked, tc.wantAsked)
			}
		})
	}
}

func TestFinding(t *testing.T) {
	transition := metav1.NewTime(now.Add(-31 * time.Minute))
	for _, tc := range []struct {
		name    string
		finding Finding
		want    string
	}{
		{"a condition", Finding{Policy: unknown, Condition: corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, LastTransitionTime: transition},
			Lasted: 31*time.Minute + 400*time.Millisecond},
			"its Ready condition has been Unknown for 31m0s, past the 30m0s its repair policy tolerates"},
		{"a condition and the VM's state", Finding{Policy: vmFailed, Condition: corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, LastTransitionTime: transition},
			InstanceState: "stopped", Lasted: 31 * time.Minute},
			"its Ready condition has been Unknown for 31m0s and KakaoCloud reports its VM stopped, past the 10m0s its repair policy tolerates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.finding.String(); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			if got, want := tc.finding.EligibleAt(), transition.Add(tc.finding.Policy.TolerationDuration); !got.Equal(want) {
				t.Errorf("eligible at %s, want %s", got, want)
			}
		})
	}
}

func TestMeetsAPolicy(t *testing.T) {
	for _, tc := range []struct {
		name string
		node *corev1.Node
		want bool
	}{
		{"Ready", nodeWith(corev1.ConditionTrue, time.Hour, nil), false},
		{"Unknown, within its toleration: counted all the same", nodeWith(corev1.ConditionUnknown, time.Second, nil), true},
		{"False", nodeWith(corev1.ConditionFalse, time.Hour, nil), true},
		{"no conditions", &corev1.Node{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MeetsAPolicy(policies, tc.node); got != tc.want {
				t.Errorf("got %t, want %t", got, tc.want)
			}
		})
	}
	if MeetsAPolicy(nil, nodeWith(corev1.ConditionFalse, time.Hour, nil)) {
		t.Error("no policies: no node is unhealthy")
	}
}

func pool(maxUnhealthy string) *karpv1.NodePool {
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if maxUnhealthy != "" {
		np.Spec.Disruption.Repair = &karpv1.Repair{MaxUnhealthy: maxUnhealthy}
	}
	return np
}

func TestBreaker(t *testing.T) {
	for _, tc := range []struct {
		name             string
		maxUnhealthy     string
		total, unhealthy int
		want             string
		wantErr          string
	}{
		{name: "within the default 20%", total: 10, unhealthy: 2},
		{name: "past the default 20%", total: 10, unhealthy: 3,
			want: "repair is held: 3 of the 10 nodes of NodePool default are unhealthy, more than its repair.maxUnhealthy (20%, 2 nodes) allows; a fault that takes that many nodes down is not one replacing them fixes"},
		{name: "a percentage rounds up", total: 3, unhealthy: 1},
		{name: "a count", maxUnhealthy: "2", total: 3, unhealthy: 2},
		{name: "past a count", maxUnhealthy: "2", total: 5, unhealthy: 3,
			want: "repair is held: 3 of the 5 nodes of NodePool default are unhealthy, more than its repair.maxUnhealthy (2, 2 nodes) allows; a fault that takes that many nodes down is not one replacing them fixes"},
		{name: "turned off", maxUnhealthy: "0", total: 10, want: "repair is turned off for NodePool default (its repair.maxUnhealthy is 0)"},
		{name: "no unhealthy node", total: 0, unhealthy: 0},
		{name: "a value that does not read", maxUnhealthy: "lots", total: 10, unhealthy: 1,
			wantErr: `NodePool default's repair.maxUnhealthy: "lots" is neither a count nor a percentage from 0% to 100%`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Breaker(pool(tc.maxUnhealthy), tc.total, tc.unhealthy)
			if got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestHeld(t *testing.T) {
	labelled := map[string]string{karpv1.LabelNodePool: "default"}
	objects := []client.Object{
		nodeWith(corev1.ConditionUnknown, time.Second, labelled),
		nodeWith(corev1.ConditionFalse, time.Hour, labelled),
		nodeWith(corev1.ConditionTrue, time.Hour, labelled),
		// Of another NodePool: not counted.
		nodeWith(corev1.ConditionFalse, 2*time.Hour, map[string]string{karpv1.LabelNodePool: "other"}),
		nodeWith(corev1.ConditionFalse, 3*time.Hour, nil),
	}
	kube := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(objects...).Build()
	why, err := Held(t.Context(), kube, policies, pool("1"))
	if want := "repair is held: 2 of the 3 nodes of NodePool default are unhealthy, more than its repair.maxUnhealthy (1, 1 nodes) allows; a fault that takes that many nodes down is not one replacing them fixes"; why != want || err != nil {
		t.Errorf("got %q, %v\nwant %q", why, err, want)
	}
	if why, err := Held(t.Context(), kube, policies, pool("2")); why != "" || err != nil {
		t.Errorf("got %q, %v; want repair not held", why, err)
	}

	failing := fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithInterceptorFuncs(interceptor.Funcs{
		List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
			return errors.New("cache not started")
		},
	}).Build()
	if _, err := Held(t.Context(), failing, policies, pool("")); err == nil || err.Error() != "listing the nodes of NodePool default: cache not started" {
		t.Errorf("error %v, want it wrapped with the NodePool", err)
	}
}

func TestRecordRepair(t *testing.T) {
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{karpv1.LabelNodePool: "recorded", karpv1.LabelCapacityType: "on-demand"}},
		Status:     karpv1.NodeClaimStatus{ImageID: "img-1"},
	}
	found := Finding{Condition: corev1.NodeCondition{Type: corev1.NodeMemoryPressure}}
	counter := unhealthyDisrupted.WithLabelValues("memory_pressure", "recorded", "on-demand", "img-1", "forceful")
	before := testutil.ToFloat64(counter)
	RecordRepair(found, nodeClaim, "forceful")
	if got := testutil.ToFloat64(counter); got != before+1 {
		t.Errorf("karpenter_nodeclaims_unhealthy_disrupted_total{condition=memory_pressure} %v, want %v", got, before+1)
	}
}
