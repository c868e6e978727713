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

package expectations

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega" //nolint:revive // the suites' DSL
	"github.com/onsi/gomega/types"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

// ExpectApplied creates each object, or updates it when it exists, status included.
func ExpectApplied(ctx context.Context, c client.Client, objects ...client.Object) {
	ginkgo.GinkgoHelper()
	for _, o := range objects {
		desired := o.DeepCopyObject().(client.Object)
		current := o.DeepCopyObject().(client.Object)
		err := c.Get(ctx, client.ObjectKeyFromObject(o), current)
		switch {
		case apierrors.IsNotFound(err):
			Expect(c.Create(ctx, o)).To(Succeed(), "creating %s", client.ObjectKeyFromObject(o))
		case err != nil:
			Expect(err).NotTo(HaveOccurred())
		default:
			o.SetResourceVersion(current.GetResourceVersion())
			Expect(c.Update(ctx, o)).To(Succeed(), "updating %s", client.ObjectKeyFromObject(o))
		}
		// The API server drops status on create and update; write it as the spec gave it.
		if want, ok := status(desired); ok && !want.IsZero() && !equality.Semantic.DeepEqual(want.Interface(), mustStatus(o).Interface()) {
			mustStatus(o).Set(want)
			Expect(c.Status().Update(ctx, o)).To(Succeed(), "writing the status of %s", client.ObjectKeyFromObject(o))
		}
	}
}

// ExpectExists returns the object as the client reads it now.
func ExpectExists[T client.Object](ctx context.Context, c client.Client, o T) T {
	ginkgo.GinkgoHelper()
	current := o.DeepCopyObject().(T)
	Expect(c.Get(ctx, client.ObjectKeyFromObject(o), current)).To(Succeed(), "%s should exist", client.ObjectKeyFromObject(o))
	return current
}

// ExpectNotFound fails unless every object is gone.
func ExpectNotFound(ctx context.Context, c client.Client, objects ...client.Object) {
	ginkgo.GinkgoHelper()
	for _, o := range objects {
		current := o.DeepCopyObject().(client.Object)
		err := c.Get(ctx, client.ObjectKeyFromObject(o), current)
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s should be gone, got %v: deleting since %v, finalizers %v",
			client.ObjectKeyFromObject(o), err, current.GetDeletionTimestamp(), current.GetFinalizers())
	}
}

// ExpectDeleted deletes each object (one already gone is fine).
func ExpectDeleted(ctx context.Context, c client.Client, objects ...client.Object) {
	ginkgo.GinkgoHelper()
	for _, o := range objects {
		Expect(client.IgnoreNotFound(c.Delete(ctx, o))).To(Succeed(), "deleting %s", client.ObjectKeyFromObject(o))
	}
}

// ExpectReconciled calls the reconciler for the object, requires success, and returns the
// result.
func ExpectReconciled(ctx context.Context, r reconcile.Reconciler, o client.Object) reconcile.Result {
	ginkgo.GinkgoHelper()
	result, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)})
	Expect(err).NotTo(HaveOccurred(), "reconciling %s", client.ObjectKeyFromObject(o))
	return result
}

// ExpectObjectReconciled calls a typed reconciler as the manager runs it
// (reconcile.AsReconciler: the object is read again through c first), requires success, and
// returns the result.
func ExpectObjectReconciled[T client.Object](ctx context.Context, c client.Client, r reconcile.ObjectReconciler[T], o T) reconcile.Result {
	ginkgo.GinkgoHelper()
	return ExpectReconciled(ctx, reconcile.AsReconciler(c, r), o)
}

// ExpectReconcileFailed calls the reconciler for the object, which must fail, with an error
// that matches every matcher given.
func ExpectReconcileFailed(ctx context.Context, r reconcile.Reconciler, o client.Object, matchers ...types.GomegaMatcher) {
	ginkgo.GinkgoHelper()
	_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)})
	Expect(err).To(HaveOccurred(), "reconciling %s should fail", client.ObjectKeyFromObject(o))
	for _, matcher := range matchers {
		Expect(err).To(matcher)
	}
}

// ExpectEvent fails unless the recorder holds an event with the reason about the object of
// that name whose note contains substring, and returns the notes of that reason.
func ExpectEvent(recorder *test.EventRecorder, name, reason, substring string) []string {
	ginkgo.GinkgoHelper()
	notes := recorder.Notes(name, reason)
	Expect(notes).To(ContainElement(ContainSubstring(substring)),
		"an event %s about %s saying %q; events: %s", reason, name, substring, describe(recorder.Events()))
	return notes
}

// ExpectNoEvent fails if the recorder holds an event with the reason about the object.
func ExpectNoEvent(recorder *test.EventRecorder, name, reason string) {
	ginkgo.GinkgoHelper()
	Expect(recorder.Notes(name, reason)).To(BeEmpty(), "no event %s about %s", reason, name)
}

// ExpectMetric fails unless the metric's series with the labels sum to a value the matcher
// accepts, and returns it.
func ExpectMetric(name string, labels map[string]string, matcher OmegaMatcher) float64 {
	ginkgo.GinkgoHelper()
	v := test.MetricValue(name, labels)
	Expect(v).To(matcher, "metric %s%v", name, labels)
	return v
}

func describe(events []test.Event) string {
	var s strings.Builder
	for _, e := range events {
		fmt.Fprintf(&s, "\n  %s/%s %s: %s", e.Kind, e.Name, e.Reason, e.Note)
	}
	return s.String()
}

// status is the object's Status field, when it has one.
func status(o client.Object) (reflect.Value, bool) {
	v := reflect.ValueOf(o).Elem().FieldByName("Status")
	return v, v.IsValid()
}

func mustStatus(o client.Object) reflect.Value {
	v, _ := status(o)
	return v
}

// ExpectSharedKCNodeClass returns nodeClass if it is set, or else creates the default
// KCNodeClass and has the controller make it Ready: the node class a suite's specs share,
// made by the first spec that runs (env.Reset leaves it).
func ExpectSharedKCNodeClass(ctx context.Context, c client.Client, r reconcile.ObjectReconciler[*kcv1.KCNodeClass], nodeClass *kcv1.KCNodeClass) *kcv1.KCNodeClass {
	ginkgo.GinkgoHelper()
	if nodeClass != nil {
		return nodeClass
	}
	nodeClass = test.KCNodeClass()
	ExpectApplied(ctx, c, nodeClass)
	return ExpectKCNodeClassReady(ctx, c, r, nodeClass)
}

// ExpectKCNodeClassReady reconciles the KCNodeClass with its controller until it is Ready and
// returns it as stored.
func ExpectKCNodeClassReady(ctx context.Context, c client.Client, r reconcile.ObjectReconciler[*kcv1.KCNodeClass], nodeClass *kcv1.KCNodeClass) *kcv1.KCNodeClass {
	ginkgo.GinkgoHelper()
	for range 3 {
		ExpectObjectReconciled(ctx, c, r, nodeClass)
		nodeClass = ExpectExists(ctx, c, nodeClass)
		if meta.IsStatusConditionTrue(nodeClass.Status.Conditions, kcv1.ConditionTypeReady) {
			return nodeClass
		}
	}
	Expect(nodeClass.Status.Conditions).To(ContainElement(SatisfyAll(HaveField("Type", kcv1.ConditionTypeReady), HaveField("Status", metav1.ConditionTrue))))
	return nodeClass
}
