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

package garbagecollection_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/instance/garbagecollection"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/singleton"
)

// TestCollectDeletesOnlyLeakedOwnedVMs sets up every kind of VM the collector meets and
// expects it to delete exactly the leftover.
func TestCollectDeletesOnlyLeakedOwnedVMs(t *testing.T) {
	kube := test.APIServer(t)
	emu, kc := test.Cloud(t, emulator.Options{BuildDelay: time.Nanosecond, DeleteDelay: time.Hour})
	keyring := test.Keyring()
	instances := instance.NewProvider(kc, keyring, "karpenter-demo", instance.Options{})
	ctx := context.Background()

	launch := func(p *instance.Provider, name string) kakaocloud.Instance {
		t.Helper()
		subnets, _ := kc.ListSubnets(ctx, kakaocloud.SubnetFilter{Name: "karpenter-subnet-a"})
		flavors, _ := kc.ListFlavors(ctx, kakaocloud.FlavorFilter{Name: "m2a.large"})
		images, _ := kc.ListNodeImages(ctx, kakaocloud.NodeImageFilter{KubernetesVersion: "1.36"})
		l, err := p.Launch(ctx, instance.LaunchRequest{
			NodeClaim: name, SecurityGroups: []string{"karpenter-workers"}, RootVolumeGiB: 50,
			Candidates: []instance.Candidate{{FlavorID: flavors[0].ID, FlavorName: "m2a.large", Zone: "kr-central-2-a", SubnetID: subnets[0].ID, ImageID: images[0].ID}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return l.Instance
	}
	nodeClaim := func(name, providerID string) {
		t.Helper()
		nodeClaim := &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: karpv1.NodeClaimSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}},
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"},
			},
		}
		if err := kube.Create(ctx, nodeClaim); err != nil {
			t.Fatal(err)
		}
		if providerID != "" {
			nodeClaim.Status.ProviderID = providerID
			if err := kube.Status().Update(ctx, nodeClaim); err != nil {
				t.Fatal(err)
			}
		}
	}

	recorded := launch(instances, "default-recorded") // its NodeClaim records it
	nodeClaim("default-recorded", cloudprovider.ProviderID(recorded.ID))
	launch(instances, "default-launching") // its NodeClaim has not recorded it yet
	nodeClaim("default-launching", "")
	leaked := launch(instances, "default-leaked") // its NodeClaim is gone
	tampered := launch(instances, "default-tampered")
	edited := "edited by hand"
	if _, err := kc.UpdateInstance(ctx, tampered.ID, kakaocloud.UpdateInstance{Description: &edited}); err != nil {
		t.Fatal(err)
	}
	launch(instance.NewProvider(kc, keyring, "other-cluster", instance.Options{}), "other-leaked") // another cluster's
	// A second VM for a NodeClaim that records its first: a create whose answer was lost and
	// whose VM was listed only after the launch had made another.
	marker, err := keyring.Sign(signing.Subject{VMName: "default-recorded", ClusterID: "karpenter-demo", NodeClaim: "default-recorded"})
	if err != nil {
		t.Fatal(err)
	}
	duplicate, err := kc.CreateInstance(ctx, kakaocloud.CreateInstance{
		Name: "default-recorded", Description: marker, ImageID: recorded.Image.ID, FlavorID: recorded.Flavor.ID,
		Subnets: []kakaocloud.SubnetAttachment{{ID: subnetOf(t, kc)}}, SecurityGroups: []kakaocloud.SecurityGroupRef{{Name: "default"}},
		Volumes: []kakaocloud.VolumeSpec{kakaocloud.BootVolume(50, "")},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A leftover whose NodeClaim's name was not a valid VM name, so its VM name was rewritten.
	rewritten := launch(instances, "team.a-leaked")
	want := []string{leaked.ID, duplicate.ID, rewritten.ID}

	collector := &garbagecollection.Collector{Client: kube, Instances: instances, Period: singleton.Period{Grace: time.Minute}}

	// Too young: a launch may still be about to record it.
	if deleted, err := collector.Collect(ctx); err != nil || len(deleted) != 0 {
		t.Fatalf("within the grace period: deleted %v, %v; want nothing", deleted, err)
	}
	collector.Clock = clocktesting.NewFakePassiveClock(time.Now().Add(2 * time.Minute))
	deleted, err := collector.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !sameSet(deleted, want) {
		t.Fatalf("deleted %v, want the leaked, the duplicate and the rewritten-name VMs %v", deleted, want)
	}
	for _, i := range emu.Instances() {
		wantDeleting := slices.Contains(want, i.ID)
		if (i.Status == kakaocloud.InstanceStatusDeleting) != wantDeleting {
			t.Errorf("VM %s (%s) status %s", i.Name, i.ID, i.Status)
		}
	}
	// A second pass does not delete it again.
	if again, err := collector.Collect(ctx); err != nil || len(again) != 0 {
		t.Errorf("second pass deleted %v, %v; want nothing", again, err)
	}
}

func subnetOf(t *testing.T, kc *kakaocloud.Client) string {
	t.Helper()
	subnets, err := kc.ListSubnets(context.Background(), kakaocloud.SubnetFilter{Name: "karpenter-subnet-a"})
	if err != nil || len(subnets) != 1 {
		t.Fatalf("subnet: %v %v", subnets, err)
	}
	return subnets[0].ID
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}
