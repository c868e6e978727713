/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package stack assembles, for envtest suites, the operator's controllers that turn pending
// pods into nodes (node classes, NodePools, the NodeClaim lifecycle and provisioning) on a
// manager, against a KakaoCloud emulator over HTTP.
package stack

import (
	"context"
	"strings"
	"time"

	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclass"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodepool"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/provisioning"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// ClusterName is the Kubernetes Engine cluster of the emulator's built-in catalogue.
const ClusterName = "karpenter-demo"

// Stack is what a suite may need of the assembled controllers.
type Stack struct {
	Emulator *emulator.Emulator
	Provider cloudprovider.CloudProvider
	Recorder events.EventRecorder
	// Stop stops the emulator.
	Stop func()
}

// Start starts an emulator (VMs boot and go at once) and registers the controllers on mgr.
func Start(ctx context.Context, mgr ctrl.Manager) (*Stack, error) {
	emu, kc, stop, err := testenv.Emulator(emulator.Options{BuildDelay: time.Nanosecond, DeleteDelay: time.Nanosecond})
	if err != nil {
		return nil, err
	}
	cat := catalog.New(kc, catalog.Options{ClusterName: ClusterName})
	keyring, err := signing.NewKeyring("k1", map[string][]byte{"k1": []byte(strings.Repeat("k", 32))})
	if err != nil {
		stop()
		return nil, err
	}
	recorder := mgr.GetEventRecorder("karpenter")
	provider, _ := kakao.Assemble(kakao.Components{
		Kube: mgr.GetClient(), Client: kc, Catalog: cat, Keyring: keyring, ClusterName: ClusterName, Recorder: recorder,
	})
	for _, setup := range []func() error{
		func() error {
			return (&nodeclass.Reconciler{Client: mgr.GetClient(), Catalog: cat, Images: kc, Recorder: recorder}).SetupWithManager(mgr)
		},
		func() error { return (&nodepool.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr) },
		func() error {
			return (&lifecycle.Reconciler{Client: mgr.GetClient(), CloudProvider: provider, Recorder: recorder}).SetupWithManager(ctx, mgr)
		},
		func() error {
			return (&provisioning.Provisioner{
				Client: mgr.GetClient(), CloudProvider: provider, Recorder: recorder,
				Batcher: provisioning.NewBatcher(100*time.Millisecond, time.Second),
			}).SetupWithManager(mgr)
		},
	} {
		if err := setup(); err != nil {
			stop()
			return nil, err
		}
	}
	return &Stack{Emulator: emu, Provider: provider, Recorder: recorder, Stop: stop}, nil
}
