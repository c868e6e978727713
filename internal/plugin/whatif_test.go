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

package plugin

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// TestWhatIfRefusals asks a real API server that serves no whatif API: the user reads why
// from the API server's own answer, RBAC's refusal first.
func TestWhatIfRefusals(t *testing.T) {
	environment := &envtest.Environment{BinaryAssetsDirectory: testenv.BinaryAssetsDirectory()}
	admin, err := environment.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() { _ = environment.Stop() })
	stranger, err := environment.AddUser(envtest.User{Name: "stranger"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pod := []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: question\nspec:\n  containers:\n  - name: app\n    image: app\n")
	for _, c := range []struct {
		name string
		err  func() error
		says string
	}{
		{"a user RBAC does not let create whatifs", func() error {
			_, err := WhatIf(context.Background(), stranger.Config(), pod)
			return err
		}, `User "stranger" cannot create resource "whatifs" in API group "explain.karpenter.kakaocloud.com"`},
		{"no APIService", func() error {
			_, err := WhatIf(context.Background(), admin, pod)
			return err
		}, "the API server serves no explain.karpenter.kakaocloud.com/v1alpha1: is the operator installed with its APIService v1alpha1.explain.karpenter.kakaocloud.com?"},
		{"not a manifest whatif takes", func() error {
			_, err := WhatIf(context.Background(), admin, []byte("apiVersion: apps/v1\nkind: Deployment\n"))
			return err
		}, "not apps/v1 Deployment"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.says)
		}
	}
}
