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

package result

import (
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestMin(t *testing.T) {
	never, soon, later := reconcile.Result{}, reconcile.Result{RequeueAfter: time.Second}, reconcile.Result{RequeueAfter: time.Minute}
	for _, tc := range []struct{ a, b, want reconcile.Result }{
		{never, never, never}, {never, soon, soon}, {soon, never, soon}, {soon, later, soon}, {later, soon, soon},
	} {
		if got := Min(tc.a, tc.b); got != tc.want {
			t.Errorf("Min(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestRequeueOnConflict(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "node-a", errors.New("the object has been modified"))
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, "node-a")
	other := errors.New("deleting the VM: 500")
	floor := reconcile.Result{RequeueAfter: conflictRequeue}
	soon := reconcile.Result{RequeueAfter: 100 * time.Millisecond}
	later := reconcile.Result{RequeueAfter: time.Minute}
	for _, tc := range []struct {
		name    string
		res     reconcile.Result
		err     error
		want    reconcile.Result
		wantErr error
	}{
		{name: "no error", res: later, want: later},
		{name: "a conflict", err: conflict, want: floor},
		{name: "a conflict, the step's own requeue sooner", res: soon, err: conflict, want: soon},
		{name: "a conflict, the step's own requeue later", res: later, err: conflict, want: floor},
		{name: "a wrapped conflict", err: fmt.Errorf("tainting the node: %w", conflict), want: floor},
		{name: "conflicts joined", err: errors.Join(conflict, nil, fmt.Errorf("patching: %w", conflict)), want: floor},
		{name: "another API error", err: notFound, wantErr: notFound},
		{name: "another error", res: later, err: other, want: later, wantErr: other},
		{name: "another error joined after a conflict", err: errors.Join(conflict, other), wantErr: other},
		{name: "a conflict joined after another error", err: errors.Join(other, conflict), wantErr: other},
		{name: "another error joined within a wrapped join", err: fmt.Errorf("terminating: %w", errors.Join(conflict, other)), wantErr: other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RequeueOnConflict(tc.res, tc.err)
			if got != tc.want {
				t.Errorf("result %v, want %v", got, tc.want)
			}
			if tc.wantErr == nil && err != nil {
				t.Errorf("error %v, want none", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want one holding %v", err, tc.wantErr)
			}
		})
	}
}
