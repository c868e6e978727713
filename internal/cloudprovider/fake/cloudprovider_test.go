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

package fake

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

func nodeClaim(name, cpu string, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.LabelNodePool: "default"}},
		Spec: karpv1.NodeClaimSpec{Requirements: reqs, Resources: karpv1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
		}},
	}
}

func TestCreateChoosesTheCheapestOfferingThatHoldsTheRequests(t *testing.T) {
	small := InstanceType("small", 2, 4, 1, "zone-a", "zone-b")
	small.Offerings[0].Price = 3 // zone-a costs more
	large := InstanceType("large", 8, 4, 1, "zone-a")
	c := New(small, large)
	ctx := t.Context()

	vm, err := c.Create(ctx, nodeClaim("a", "1"))
	if err != nil || vm.Labels[karpv1.LabelInstanceType] != "small" || vm.Labels[karpv1.LabelTopologyZone] != "zone-b" || vm.Status.ProviderID != "fake:///a" {
		t.Fatalf("created %v, %v; want small in zone-b", vm, err)
	}
	again, err := c.Create(ctx, nodeClaim("a", "1"))
	if err != nil || again.Status.ProviderID != vm.Status.ProviderID || len(c.CreateCalls) != 2 {
		t.Errorf("a second create of a: %v, %v; want the same VM, both calls recorded", again, err)
	}
	if vm, _ := c.Create(ctx, nodeClaim("b", "3")); vm.Labels[karpv1.LabelInstanceType] != "large" {
		t.Errorf("three CPUs went to %s, want large", vm.Labels[karpv1.LabelInstanceType])
	}
	onlyA := karpv1.NodeSelectorRequirementWithMinValues{Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-a"}}
	if vm, _ := c.Create(ctx, nodeClaim("c", "1", onlyA)); vm.Labels[karpv1.LabelTopologyZone] != "zone-a" || vm.Labels[karpv1.LabelInstanceType] != "small" {
		t.Errorf("a NodeClaim for zone-a got %v", vm.Labels)
	}
	if _, err := c.Create(ctx, nodeClaim("d", "9")); !cloudprovider.IsInsufficientCapacity(err) {
		t.Errorf("nine CPUs: %v, want insufficient capacity", err)
	}

	boom := errors.New("boom")
	c.NextCreateErr = boom
	if _, err := c.Create(ctx, nodeClaim("e", "1")); !errors.Is(err, boom) {
		t.Errorf("the injected error: %v", err)
	}
	if _, err := c.Create(ctx, nodeClaim("e", "1")); err != nil {
		t.Errorf("the error is injected once: %v", err)
	}

	if vms, _ := c.List(ctx); len(vms) != 4 {
		t.Errorf("%d VMs, want a, b, c and e", len(vms))
	}
	if err := c.Delete(ctx, vm); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, vm); !cloudprovider.IsNodeClaimNotFound(err) {
		t.Errorf("deleting a again: %v, want not found", err)
	}
	if _, err := c.Get(ctx, vm.Status.ProviderID); !cloudprovider.IsNodeClaimNotFound(err) {
		t.Errorf("getting a deleted VM: %v", err)
	}

	c.Drifted, c.DriftedFor["b"] = cloudprovider.Drift{Reason: "Image", Message: "another image"}, cloudprovider.Drift{}
	if drift, _ := c.IsDrifted(ctx, nodeClaim("b", "1")); drift.Reason != "" {
		t.Errorf("b drifted %+v, want not", drift)
	}
	if drift, _ := c.IsDrifted(ctx, nodeClaim("c", "1")); drift.Reason != "Image" || drift.Message != "another image" {
		t.Errorf("c drifted %+v, want Image", drift)
	}
	c.Reset()
	if vms, _ := c.List(ctx); len(vms) != 0 || len(c.CreateCalls) != 0 || c.Drifted.Reason != "" {
		t.Error("Reset forgets VMs, calls and answers")
	}
}
