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
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/instance/garbagecollection"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var (
	oneVMSeed       = flag.Uint64("onevm-seed", 1, "seed of TestOneVMPerNodeClaim's faults")
	oneVMNodeClaims = flag.Int("onevm-nodeclaims", 200, "NodeClaims TestOneVMPerNodeClaim launches")
)

// The emulator's worst settings for launches: new VMs are listed only after longer than the
// launch's lookup window, so some NodeClaims do get a second VM that garbage collection must
// find, and creates and deletes fail in every way an answer can, half of them after the call
// was carried out.
const (
	worstListLag  = instance.DefaultLookupWindow + time.Minute
	createFaulted = 0.4
	deleteFaulted = 0.3
	tick          = time.Second
)

// faultKinds are the ways a faulted call fails: the answer lost or an error, after the call
// was carried out or before.
var faultKinds = []emulator.Fault{
	{Commit: true, Drop: true},
	{Commit: true, Status: http.StatusBadGateway},
	{Drop: true},
	{Status: http.StatusServiceUnavailable},
}

// TestOneVMPerNodeClaim launches NodeClaims through the lifecycle reconciler and garbage
// collection, called as the controller calls them and on a fake clock, against a cloud at its
// worst: lists that trail creates beyond the lookup window, and creates and deletes whose
// answers fail or are lost, committed or not. It ends with exactly one VM per NodeClaim, the
// one the NodeClaim records, and no VM without a NodeClaim.
func TestOneVMPerNodeClaim(t *testing.T) {
	seed := *oneVMSeed
	rng := rand.New(rand.NewPCG(seed, seed))
	env, err := test.NewEnvironment(test.EnvironmentOptions{
		Direct: true, FakeClock: true,
		Emulator: emulator.Options{ListLag: worstListLag, BuildDelay: 20 * time.Second, DeleteDelay: 5 * time.Second, Seed: seed},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	controllers := env.Controllers(func(o *operator.Options) {
		// Nothing registers nodes here; what is under test is the launch.
		o.RegistrationTimeout = 24 * time.Hour
	})
	if err := env.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, clock, emu := env.Ctx, env.Clock, env.Emulator
	nodeClaims, collector := reconcile.AsReconciler(controllers.Lifecycle.Client, controllers.Lifecycle), controllers.InstanceCollector

	gomega.RegisterTestingT(t)
	nodeClass := test.KCNodeClass()
	ExpectApplied(ctx, env.Client, nodeClass)
	nodeClass = ExpectKCNodeClassReady(ctx, env.Client, controllers.NodeClass, nodeClass)
	names := make([]string, *oneVMNodeClaims)
	for i := range names {
		names[i] = fmt.Sprintf("checkout-%05d", i)
		if i%10 == 0 { // a tenth have names that are not valid VM names
			names[i] = fmt.Sprintf("team.checkout-%05d", i)
		}
		nodeClaim := &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: names[i], Labels: map[string]string{karpv1.LabelNodePool: "checkout"}},
			Spec: karpv1.NodeClaimSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a.large", "c2a.xlarge"}}},
				Resources:    karpv1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: nodeClass.Name},
			},
		}
		if err := env.Client.Create(ctx, nodeClaim); err != nil {
			t.Fatal(err)
		}
	}

	// The controller's queue: when each NodeClaim is due again.
	due := map[string]time.Time{}
	for _, name := range names {
		due[name] = clock.Now()
	}
	injectFaults := func() {
		create, del := faultKinds[rng.IntN(len(faultKinds))], faultKinds[rng.IntN(len(faultKinds))]
		create.Fraction, del.Fraction = createFaulted, deleteFaulted
		emu.InjectFault(emulator.OpCreateInstance, create)
		emu.InjectFault(emulator.OpDeleteInstance, del)
	}
	start := clock.Now()
	lastCollect := start
	reconciles, collected := 0, 0
	errs := map[string]int{}
	settleUntil := time.Time{}
	for round := 0; ; round++ {
		if round%20 == 0 {
			injectFaults()
		}
		for _, name := range names {
			at, queued := due[name]
			if !queued || clock.Now().Before(at) {
				continue
			}
			result, err := nodeClaims.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
			reconciles++
			switch {
			case err != nil:
				errs[err.Error()]++
				due[name] = clock.Now().Add(5 * time.Second) // the controller's backoff, roughly
			case result.RequeueAfter > 0:
				due[name] = clock.Now().Add(result.RequeueAfter)
			default:
				due[name] = clock.Now().Add(time.Minute) // a watch event would come; none does here
			}
			// Launched NodeClaims wait for their nodes from now on; none come in this test.
			current := &karpv1.NodeClaim{}
			if err := env.Client.Get(ctx, types.NamespacedName{Name: name}, current); err != nil ||
				meta.IsStatusConditionTrue(current.Status.Conditions, karpv1.ConditionTypeLaunched) {
				delete(due, name)
			}
		}
		if clock.Now().Sub(lastCollect) >= garbagecollection.DefaultInterval {
			deleted, _ := collector.Collect(ctx) // faults fail some deletes; the next pass retries
			collected += len(deleted)
			lastCollect = clock.Now()
		}
		if len(due) == 0 && settleUntil.IsZero() {
			// Every launch is done; what a lost answer made must still show up in the listing
			// and be collected.
			settleUntil = clock.Now().Add(worstListLag + garbagecollection.DefaultGrace + 3*garbagecollection.DefaultInterval)
		}
		if !settleUntil.IsZero() && !clock.Now().Before(settleUntil) {
			break
		}
		if clock.Since(start) > time.Hour {
			t.Fatalf("launches did not finish: %d NodeClaims still queued after an hour of fake time; errors %v", len(due), errs)
		}
		clock.Step(tick)
	}

	// Exactly one VM per NodeClaim, the one it records; none without a NodeClaim.
	claims := &karpv1.NodeClaimList{}
	if err := env.Client.List(ctx, claims); err != nil {
		t.Fatal(err)
	}
	vmsByName := map[string][]kakaocloud.Instance{}
	for _, vm := range emu.Instances() {
		if vm.Status != kakaocloud.InstanceStatusDeleting {
			vmsByName[vm.Name] = append(vmsByName[vm.Name], vm)
		}
	}
	launched, withIntent := 0, 0
	for _, nodeClaim := range claims.Items {
		if _, ok := nodeClaim.Annotations[kcv1.AnnotationLaunchAttempt]; ok {
			withIntent++
		}
		if !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeLaunched) {
			t.Errorf("NodeClaim %s is not launched: %v", nodeClaim.Name, nodeClaim.Status.Conditions)
			continue
		}
		launched++
		vms := vmsByName[instance.VMName(nodeClaim.Name)]
		delete(vmsByName, instance.VMName(nodeClaim.Name))
		if len(vms) != 1 || cloudprovider.ProviderID(vms[0].ID) != nodeClaim.Status.ProviderID {
			t.Errorf("NodeClaim %s records %s and has VMs %v, want exactly that one", nodeClaim.Name, nodeClaim.Status.ProviderID, ids(vms))
		}
	}
	for name, vms := range vmsByName {
		t.Errorf("VMs %v named %s belong to no NodeClaim", ids(vms), name)
	}
	t.Logf("seed %d: %d NodeClaims, %d launched, %d recorded a launch attempt; %d creates (%d VMs made), %d deletes; "+
		"%d reconciles; %d extra VMs garbage collected; %s of fake time",
		seed, len(names), launched, withIntent, emu.CallCount(emulator.OpCreateInstance), emu.CreatedCount(),
		emu.CallCount(emulator.OpDeleteInstance), reconciles, collected, clock.Since(start).Round(time.Second))
}

func ids(vms []kakaocloud.Instance) []string {
	out := make([]string, 0, len(vms))
	for _, vm := range vms {
		out = append(out, vm.ID)
	}
	return out
}
