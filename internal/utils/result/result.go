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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Min is the result that comes back soonest: the shorter RequeueAfter, where zero means
// never (nothing to come back for).
func Min(a, b reconcile.Result) reconcile.Result {
	if Sooner(a.RequeueAfter, b.RequeueAfter) == a.RequeueAfter {
		return a
	}
	return b
}

// Sooner is the shorter of two waits, where zero means never.
func Sooner(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// RequeueOnConflict turns a Conflict from an optimistically locked write into a requeue
// without an error, as upstream's controllers do: the object changed under the reconciler,
// which is no fault worth a "Reconciler error" in the log, and that change enqueues it again;
// conflictRequeue is a floor in case the event is lost. An error that is not a Conflict, also
// one joined with a Conflict, is returned as it is.
func RequeueOnConflict(res reconcile.Result, err error) (reconcile.Result, error) {
	if err == nil || !onlyConflicts(err) {
		return res, err
	}
	return Min(res, reconcile.Result{RequeueAfter: conflictRequeue}), nil
}

const conflictRequeue = time.Second

// onlyConflicts says whether every error err holds is a Conflict. apierrors.IsConflict alone
// would say yes for a join of a Conflict and any other error, since it looks for the first
// API status in the tree.
func onlyConflicts(err error) bool {
	switch e := err.(type) { //nolint:errorlint // it walks the tree itself, one level at a time
	case apierrors.APIStatus:
		return apierrors.IsConflict(err)
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if inner != nil && !onlyConflicts(inner) {
				return false
			}
		}
		return true
	case interface{ Unwrap() error }:
		return onlyConflicts(e.Unwrap())
	}
	return false
}
