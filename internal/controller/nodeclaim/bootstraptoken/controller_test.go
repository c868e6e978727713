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

package bootstraptoken_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclaim/bootstraptoken"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

const ca = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"

// A NodeClaim's token goes once its node registers or the NodeClaim is being deleted, and
// only its own: another NodeClaim's, and any other Secret of kube-system, stay.
func TestSpentTokensAreDeleted(t *testing.T) {
	ctx := context.Background()
	kube := test.APIServer(t)
	_, kc := test.Cloud(t, emulator.Options{})
	b := &bootstrap.Bootstrapper{Client: kube, Cluster: catalog.New(kc, catalog.Options{ClusterName: "karpenter-demo"}), CABundle: []byte(ca), Keyring: test.Keyring()}
	r := &bootstraptoken.Reconciler{Client: kube}

	launch := func(name string) *karpv1.NodeClaim {
		t.Helper()
		nodeClaim := &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: karpv1.NodeClaimSpec{
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"},
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpExists}},
			},
		}
		if err := kube.Create(ctx, nodeClaim); err != nil {
			t.Fatal(err)
		}
		script, err := b.UserData(ctx, nodeClaim, &kcv1.KCNodeClass{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := script(&cloudprovider.InstanceType{Capacity: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}}); err != nil {
			t.Fatal(err)
		}
		return nodeClaim
	}
	tokens := func(nodeClaim *karpv1.NodeClaim) []corev1.Secret {
		t.Helper()
		list := &corev1.SecretList{}
		if err := kube.List(ctx, list, client.InNamespace("kube-system"), client.MatchingLabels{bootstrap.LabelNodeClaimUID: string(nodeClaim.UID)}); err != nil {
			t.Fatal(err)
		}
		return list.Items
	}
	reconcile := func(nodeClaim *karpv1.NodeClaim) {
		t.Helper()
		if err := kube.Get(ctx, client.ObjectKeyFromObject(nodeClaim), nodeClaim); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Reconcile(ctx, nodeClaim); err != nil {
			t.Fatal(err)
		}
	}
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "not-a-token"}, StringData: map[string]string{"k": "v"}}
	if err := kube.Create(ctx, other); err != nil {
		t.Fatal(err)
	}

	registered, deleting, launching := launch("registered"), launch("deleting"), launch("launching")
	for _, nodeClaim := range []*karpv1.NodeClaim{registered, deleting, launching} {
		owned := tokens(nodeClaim)
		if len(owned) != 1 {
			t.Fatalf("NodeClaim %s has %d token Secrets, want 1", nodeClaim.Name, len(owned))
		}
		// Kubernetes' garbage collector deletes it with its NodeClaim.
		if refs := owned[0].OwnerReferences; len(refs) != 1 || refs[0].UID != nodeClaim.UID || refs[0].Kind != "NodeClaim" || refs[0].BlockOwnerDeletion != nil {
			t.Errorf("token of %s has owner references %+v, want its NodeClaim without blockOwnerDeletion", nodeClaim.Name, refs)
		}
	}

	reconcile(launching)
	if len(tokens(launching)) != 1 {
		t.Fatal("the token of a NodeClaim whose node has not registered was deleted")
	}

	meta.SetStatusCondition(&registered.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeRegistered, Status: metav1.ConditionTrue, Reason: "Registered"})
	if err := kube.Status().Update(ctx, registered); err != nil {
		t.Fatal(err)
	}
	reconcile(registered)
	if left := tokens(registered); len(left) != 0 {
		t.Errorf("the registered node's token is left: %s", left[0].Name)
	}

	controllerutil.AddFinalizer(deleting, karpv1.TerminationFinalizer)
	if err := kube.Update(ctx, deleting); err != nil {
		t.Fatal(err)
	}
	if err := kube.Delete(ctx, deleting); err != nil {
		t.Fatal(err)
	}
	reconcile(deleting)
	if left := tokens(deleting); len(left) != 0 {
		t.Errorf("the deleting NodeClaim's token is left: %s", left[0].Name)
	}

	if len(tokens(launching)) != 1 {
		t.Error("another NodeClaim's token went too")
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(other), &corev1.Secret{}); err != nil {
		t.Errorf("another Secret of kube-system: %v", err)
	}
}

// At start, a spent NodeClaim is looked at while a token minted by any of its launch attempts
// may be valid: one minted just before the launch timeout lives a TTL from then, however short
// the TTL.
func TestAtStartEveryNodeClaimThatMayHoldAValidTokenIsLookedAt(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ttl  time.Duration
		age  time.Duration
		want bool
	}{
		{0, 24 * time.Minute, true}, // the default: 5m of launch, then 20m of token
		{0, 26 * time.Minute, false},
		{2 * time.Minute, 6 * time.Minute, true}, // shorter than the launch timeout
		{2 * time.Minute, 8 * time.Minute, false},
		{time.Hour, 64 * time.Minute, true},
		{time.Hour, 66 * time.Minute, false},
	} {
		r := &bootstraptoken.Reconciler{TokenTTL: tc.ttl, LaunchTimeout: 5 * time.Minute, Clock: clocktesting.NewFakePassiveClock(now)}
		nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "registered", CreationTimestamp: metav1.NewTime(now.Add(-tc.age))}}
		if got := r.MayHoldValidToken(nodeClaim); got != tc.want {
			t.Errorf("TTL %s, NodeClaim %s old: looked at %t, want %t", tc.ttl, tc.age, got, tc.want)
		}
	}
}
