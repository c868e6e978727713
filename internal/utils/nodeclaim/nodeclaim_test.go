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

package nodeclaim_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/conditions"
	nodeclaimutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/nodeclaim"
)

// TestWritesFromAStaleCopy writes a NodeClaim from a copy another writer has changed since,
// against a real API server: the stale write is refused, then this writer's own changes, and
// only those, land on the current NodeClaim, and the other writer's stay.
func TestWritesFromAStaleCopy(t *testing.T) {
	kube := apiServer(t)
	ctx := context.Background()

	nodeClaim := newNodeClaim("stale")
	nodeClaim.Labels = map[string]string{"keep": "1", "drop": "1"}
	nodeClaim.Finalizers = []string{karpv1.TerminationFinalizer, "example.com/other"}
	if err := kube.Create(ctx, nodeClaim); err != nil {
		t.Fatal(err)
	}
	set := func(n *karpv1.NodeClaim, t string, s metav1.ConditionStatus) {
		conditions.Set(&n.Status.Conditions, n.Generation, metav1.Condition{Type: t, Status: s, Reason: t + string(s)})
	}
	set(nodeClaim, karpv1.ConditionTypeConsolidatable, metav1.ConditionFalse)
	if err := kube.Status().Update(ctx, nodeClaim); err != nil {
		t.Fatal(err)
	}
	stored := nodeClaim.DeepCopy()

	// Another writer, meanwhile: a condition of its own, an annotation, a finalizer.
	other := nodeClaim.DeepCopy()
	set(other, karpv1.ConditionTypeDrifted, metav1.ConditionTrue)
	if err := kube.Status().Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	other.Annotations = map[string]string{"other": "yes"}
	controllerutil.AddFinalizer(other, "example.com/late")
	if err := kube.Update(ctx, other); err != nil {
		t.Fatal(err)
	}

	// This writer, from its stale copy.
	set(nodeClaim, karpv1.ConditionTypeLaunched, metav1.ConditionTrue)
	meta.RemoveStatusCondition(&nodeClaim.Status.Conditions, karpv1.ConditionTypeConsolidatable)
	nodeClaim.Status.ProviderID = "kakaocloud://stale"
	if err := nodeclaimutil.PatchStatus(ctx, kube, stored, nodeClaim); err != nil {
		t.Fatalf("PatchStatus: %v", err)
	}
	stored = nodeClaim.DeepCopy()
	stored.ResourceVersion = other.ResourceVersion // as stale as before: the metadata changed since
	stored.Status = nodeClaim.Status
	metadataFrom := stored.DeepCopy()
	nodeClaim = metadataFrom.DeepCopy()
	nodeClaim.Labels["new"] = "1"
	delete(nodeClaim.Labels, "drop")
	controllerutil.RemoveFinalizer(nodeClaim, "example.com/other")
	if err := nodeclaimutil.Patch(ctx, kube, stored, nodeClaim); err != nil {
		t.Fatalf("Patch: %v", err)
	}

	got := &karpv1.NodeClaim{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(nodeClaim), got); err != nil {
		t.Fatal(err)
	}
	types := []string{}
	for _, c := range got.Status.Conditions {
		types = append(types, c.Type)
	}
	if want := []string{karpv1.ConditionTypeDrifted, karpv1.ConditionTypeLaunched}; !slices.Equal(types, want) {
		t.Errorf("conditions = %v, want %v: the other writer's Drifted kept, Launched added, Consolidatable removed", types, want)
	}
	if got.Status.ProviderID != "kakaocloud://stale" {
		t.Errorf("providerID = %q, want the one this writer set", got.Status.ProviderID)
	}
	if got.Annotations["other"] != "yes" {
		t.Errorf("the other writer's annotation is gone: %v", got.Annotations)
	}
	if want := map[string]string{"keep": "1", "new": "1"}; !maps.Equal(got.Labels, want) {
		t.Errorf("labels = %v, want %v", got.Labels, want)
	}
	if want := []string{karpv1.TerminationFinalizer, "example.com/late"}; !slices.Equal(got.Finalizers, want) {
		t.Errorf("finalizers = %v, want %v: the other writer's finalizer kept, the removed one gone", got.Finalizers, want)
	}
	if !maps.Equal(nodeClaim.Labels, got.Labels) || nodeClaim.ResourceVersion != got.ResourceVersion {
		t.Errorf("the caller's copy is not what the API server holds: %v at %s", nodeClaim.Labels, nodeClaim.ResourceVersion)
	}

	// Write: a label and a condition from a stale copy in one pass, while another writer set a
	// condition of its own. The status patch follows the metadata patch under the lock.
	stored = got.DeepCopy()
	other = got.DeepCopy()
	set(other, karpv1.ConditionTypeConsolidatable, metav1.ConditionTrue)
	if err := kube.Status().Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	nodeClaim = stored.DeepCopy()
	nodeClaim.Labels["written"] = "both"
	set(nodeClaim, karpv1.ConditionTypeRegistered, metav1.ConditionTrue)
	if err := nodeclaimutil.Write(ctx, kube, stored, nodeClaim); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(nodeClaim), got); err != nil {
		t.Fatal(err)
	}
	types = types[:0]
	for _, c := range got.Status.Conditions {
		types = append(types, c.Type)
	}
	if want := []string{karpv1.ConditionTypeConsolidatable, karpv1.ConditionTypeDrifted, karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered}; !slices.Equal(types, want) {
		t.Errorf("after Write, conditions = %v, want %v: the other writer's Consolidatable kept, Registered added", types, want)
	}
	if got.Labels["written"] != "both" {
		t.Errorf("after Write, labels = %v", got.Labels)
	}
}

// TestDeleteOnlyThisNodeClaim deletes a NodeClaim whose name has since passed to a new one: the
// new one stays, and neither that nor a NodeClaim already gone is an error.
func TestDeleteOnlyThisNodeClaim(t *testing.T) {
	kube := apiServer(t)
	ctx := context.Background()
	old := newNodeClaim("reused")
	if err := kube.Create(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := kube.Delete(ctx, old.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	current := newNodeClaim("reused")
	if err := kube.Create(ctx, current); err != nil {
		t.Fatal(err)
	}

	if deletion, err := nodeclaimutil.Delete(ctx, kube, old); deletion != nodeclaimutil.Replaced || err != nil {
		t.Errorf("Delete of the NodeClaim the name belonged to before = %v, %v; want Replaced, no error", deletion, err)
	}
	got := &karpv1.NodeClaim{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(current), got); err != nil || got.UID != current.UID {
		t.Fatalf("the NodeClaim now named %s is gone (%v)", current.Name, err)
	}
	if deletion, err := nodeclaimutil.Delete(ctx, kube, current); deletion != nodeclaimutil.Deleted || err != nil {
		t.Errorf("Delete of the current NodeClaim = %v, %v; want Deleted, no error", deletion, err)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(current), got); !apierrors.IsNotFound(err) {
		t.Errorf("after Delete, getting the NodeClaim: %v, want NotFound", err)
	}
	if deletion, err := nodeclaimutil.Delete(ctx, kube, current); deletion != nodeclaimutil.Gone || err != nil {
		t.Errorf("Delete of a NodeClaim already gone = %v, %v; want Gone, no error", deletion, err)
	}
}

// apiServer starts a real API server for one test and returns a client of it.
func apiServer(t *testing.T) client.Client {
	t.Helper()
	env := testenv.Environment(false)
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	kube, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return kube
}

func newNodeClaim(name string) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodeClaimSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelNodePool, Operator: "In", Values: []string{"default"}}},
			NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.kakaocloud.com", Kind: "KCNodeClass", Name: "default"},
		},
	}
}

// TestTerminateBy: the termination timestamp ends the drain at the earliest moment asked for;
// a later one never postpones it, an unreadable one is replaced.
func TestTerminateBy(t *testing.T) {
	kube := apiServer(t)
	ctx := context.Background()
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	read := func(nodeClaim *karpv1.NodeClaim) string {
		t.Helper()
		got := &karpv1.NodeClaim{}
		if err := kube.Get(ctx, client.ObjectKeyFromObject(nodeClaim), got); err != nil {
			t.Fatal(err)
		}
		return got.Annotations[karpv1.NodeClaimTerminationTimestampAnnotationKey]
	}
	nodeClaim := newNodeClaim("bounded")
	if err := kube.Create(ctx, nodeClaim); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		at   time.Time
		want time.Time
	}{
		{"set when there is none", at, at},
		{"a later deadline does not postpone it", at.Add(time.Hour), at},
		{"an earlier one brings it forward", at.Add(-time.Minute), at.Add(-time.Minute)},
	} {
		if err := nodeclaimutil.TerminateBy(ctx, kube, nodeClaim, step.at); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got := read(nodeClaim); got != step.want.Format(time.RFC3339) {
			t.Errorf("%s: annotation %q, want %s", step.name, got, step.want.Format(time.RFC3339))
		}
	}
	stored := nodeClaim.DeepCopy()
	nodeClaim.Annotations[karpv1.NodeClaimTerminationTimestampAnnotationKey] = "soon"
	if err := nodeclaimutil.Patch(ctx, kube, stored, nodeClaim); err != nil {
		t.Fatal(err)
	}
	if err := nodeclaimutil.TerminateBy(ctx, kube, nodeClaim, at); err != nil {
		t.Fatal(err)
	}
	if got := read(nodeClaim); got != at.Format(time.RFC3339) {
		t.Errorf("an unreadable annotation: %q, want it replaced by %s", got, at.Format(time.RFC3339))
	}
}

// TestWritesWithoutTheResourceVersion: Annotate and StampLastPodEvent write from a stale copy
// without undoing what another writer did since, Annotate only the keys it is given and never
// on a later NodeClaim of the same name.
func TestWritesWithoutTheResourceVersion(t *testing.T) {
	kube := apiServer(t)
	ctx := context.Background()
	nodeClaim := newNodeClaim("annotated")
	nodeClaim.Annotations = map[string]string{"keep": "1", "drop": "1"}
	if err := kube.Create(ctx, nodeClaim); err != nil {
		t.Fatal(err)
	}
	stale := nodeClaim.DeepCopy()
	// Another writer adds a finalizer and a condition after the copy was read.
	current := nodeClaim.DeepCopy()
	current.Finalizers = []string{"example.com/other"}
	if err := kube.Update(ctx, current); err != nil {
		t.Fatal(err)
	}
	current.Status.Conditions = []metav1.Condition{{Type: "Other", Status: metav1.ConditionTrue, Reason: "Other", LastTransitionTime: metav1.Now()}}
	if err := kube.Status().Update(ctx, current); err != nil {
		t.Fatal(err)
	}

	if err := nodeclaimutil.Annotate(ctx, kube, stale.DeepCopy(), map[string]*string{"set": new("2"), "drop": nil}); err != nil {
		t.Fatalf("Annotate from a stale copy: %v", err)
	}
	at := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	if err := nodeclaimutil.StampLastPodEvent(ctx, kube, stale.DeepCopy(), at); err != nil {
		t.Fatalf("StampLastPodEvent from a stale copy: %v", err)
	}
	got := &karpv1.NodeClaim{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(nodeClaim), got); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"keep": "1", "set": "2"}; !maps.Equal(got.Annotations, want) {
		t.Errorf("annotations %v, want %v", got.Annotations, want)
	}
	if !slices.Equal(got.Finalizers, current.Finalizers) || len(got.Status.Conditions) != 1 {
		t.Errorf("the other writer's finalizers %v and conditions %v were undone", got.Finalizers, got.Status.Conditions)
	}
	if !got.Status.LastPodEventTime.Time.Equal(at) {
		t.Errorf("lastPodEventTime %v, want %v", got.Status.LastPodEventTime, at)
	}

	// The name passes to a new NodeClaim: the old one's annotation must not land on it.
	got.Finalizers = nil
	if err := kube.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := kube.Delete(ctx, got.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if err := kube.Create(ctx, newNodeClaim("annotated")); err != nil {
		t.Fatal(err)
	}
	if err := nodeclaimutil.Annotate(ctx, kube, stale.DeepCopy(), map[string]*string{"set": new("3")}); err == nil {
		t.Error("Annotate of a NodeClaim whose name has passed to another succeeded")
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(nodeClaim), got); err != nil || got.Annotations["set"] != "" {
		t.Errorf("the new NodeClaim's annotations %v (%v), want none set", got.Annotations, err)
	}
}
