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

package cloudprovider

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

// failing answers Delete and Get with err; the rest of the interface is not called.
type failing struct {
	CloudProvider
	err error
}

func (f failing) Name() string                                    { return "test" }
func (f failing) Delete(context.Context, *karpv1.NodeClaim) error { return f.err }
func (f failing) Get(context.Context, string) (*karpv1.NodeClaim, error) {
	return nil, f.err
}

func TestErrorCategory(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("deleting: %w", &NodeClaimNotFoundError{Err: errors.New("404")}), ErrorNodeClaimNotFound},
		{&NodeClassNotReadyError{Err: errors.New("no images")}, ErrorNodeClassNotReady},
		{&InsufficientCapacityError{Err: errors.New("no capacity")}, ErrorInsufficientCapacity},
		{errors.New("timeout"), ErrorUnknown},
	} {
		if got := ErrorCategory(tc.err); got != tc.want {
			t.Errorf("ErrorCategory(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestMeasured(t *testing.T) {
	nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{karpv1.LabelNodePool: "pool"}}}
	ctx := context.Background()
	notFound := &NodeClaimNotFoundError{Err: errors.New("gone")}
	provider := Measured(failing{err: notFound}, "nodeclaim.lifecycle")
	if err := provider.Delete(ctx, nodeClaim); !IsNodeClaimNotFound(err) {
		t.Fatalf("Delete returned %v, want the provider's error unchanged", err)
	}
	_, _ = provider.Get(ctx, "kakaocloud://x")

	if got := testutil.ToFloat64(methodErrors.WithLabelValues("nodeclaim.lifecycle", "Delete", "test", ErrorNodeClaimNotFound, "pool")); got != 1 {
		t.Errorf("Delete errors = %v, want 1 under its NodePool", got)
	}
	// Get returns no NodeClaim with its error: no NodePool to name.
	if got := testutil.ToFloat64(methodErrors.WithLabelValues("nodeclaim.lifecycle", "Get", "test", ErrorNodeClaimNotFound, "")); got != 1 {
		t.Errorf("Get errors = %v, want 1", got)
	}
	if got := testutil.CollectAndCount(methodDuration, "karpenter_cloudprovider_duration_seconds"); got != 2 {
		t.Errorf("%d duration series, want one per method called (2)", got)
	}

	// Another controller's calls count apart.
	_ = Measured(failing{}, "disruption").Delete(ctx, nodeClaim)
	if got := testutil.ToFloat64(methodErrors.WithLabelValues("disruption", "Delete", "test", ErrorNodeClaimNotFound, "pool")); got != 0 {
		t.Errorf("a call without an error counted %v errors", got)
	}
}
