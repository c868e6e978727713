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
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
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

// TestWhyPodWithoutTheOperator asks why a pod waits of a real API server the operator's
// whatif cannot be reached through: with no APIService, and as a user RBAC lets read pods and
// events but not create whatifs. The answer says the operator cannot be asked, and why, and
// shows what provisioning last said of the pod as it said it.
func TestWhyPodWithoutTheOperator(t *testing.T) {
	environment := &envtest.Environment{BinaryAssetsDirectory: testenv.BinaryAssetsDirectory()}
	admin, err := environment.Start()
	if err != nil {
		t.Fatalf("starting envtest: %v", err)
	}
	t.Cleanup(func() { _ = environment.Stop() })
	ctx := context.Background()
	kube, err := client.New(admin, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: corev1.NamespaceDefault},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}}
	if err := kube.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	note := "Failed to schedule pod, nodepool default: would exceed limits cpu"
	failed := event(pod, "Pod", simulation.ReasonFailedScheduling, "Provision", note, now)
	failed.Name = "web.failed"
	if err := kube.Create(ctx, failed); err != nil {
		t.Fatal(err)
	}
	// reader may read what why reads, and create no whatif.
	reader, err := environment.AddUser(envtest.User{Name: "reader"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "why-reader"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"list"}},
	}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "why-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "reader"}}}
	for _, obj := range []client.Object{role, binding} {
		if err := kube.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	readerKube, err := client.New(reader.Config(), client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		kube client.Client
		ask  PodAsker
		says string
	}{
		{"no APIService", kube, AskOperator(admin), "the API server serves no explain.karpenter.kakaocloud.com/v1alpha1"},
		{"a user RBAC does not let create whatifs", readerKube, AskOperator(reader.Config()), `User "reader" cannot create resource "whatifs"`},
	} {
		// RBAC takes a moment to see a new binding.
		var answer *PodAnswer
		for range 50 {
			if answer, err = WhyPod(ctx, c.kube, client.ObjectKeyFromObject(pod), c.ask); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(answer.Verdict, "the operator cannot be asked why now") || !strings.Contains(answer.Verdict, c.says) {
			t.Errorf("%s: verdict %q, want it to say the operator cannot be asked, and %q", c.name, answer.Verdict, c.says)
		}
		if len(answer.Words) != 1 || answer.Words[0].Message != note || answer.DecidedAt == nil || !answer.DecidedAt.Equal(now) || len(answer.RefusedBy) != 0 {
			t.Errorf("%s: answer %+v, want provisioning's words as said, when it said them, and no refusal read from them", c.name, answer)
		}
	}
}
