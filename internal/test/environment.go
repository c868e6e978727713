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

// Package test is the kit every envtest suite is built from: one environment (a real
// kube-apiserver and etcd, the KakaoCloud emulator over loopback HTTP, a fake clock), object
// factories and an in-memory event recorder; package expectations holds the Expect helpers.
package test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/lifecycle"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// ClusterName is the Kubernetes Engine cluster of the emulator's built-in catalogue.
const ClusterName = "karpenter-demo"

// RunSuite runs the Ginkgo specs of a package, with the Eventually defaults every suite uses.
func RunSuite(t *testing.T, name string) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	gomega.SetDefaultEventuallyTimeout(30 * time.Second)
	gomega.SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	ginkgo.RunSpecs(t, name)
}

// EnvironmentOptions shape an Environment.
type EnvironmentOptions struct {
	// Webhooks installs the project's webhook configurations, served by Manager.
	Webhooks bool
	// Emulator configures the emulated cloud; with FakeClock its clock is the environment's.
	Emulator emulator.Options
	// FakeClock runs the emulator, the catalogue and the controllers of Controllers on Clock,
	// which only the spec moves; otherwise they run on real time.
	FakeClock bool
	// CatalogueTTL is how long the catalogue serves a read before asking the cloud again.
	CatalogueTTL time.Duration
	// Direct is for suites that call reconcilers themselves rather than run them on Manager:
	// the environment registers the cache indexes those reconcilers read through.
	Direct bool
}

// Environment is what a suite runs against.
type Environment struct {
	Ctx    context.Context
	cancel context.CancelFunc
	Env    *envtest.Environment
	// Client writes to the API server and reads through Manager's cache; each write waits
	// until the cache shows it.
	Client client.Client
	// APIReader reads the API server directly.
	APIReader client.Reader
	// Manager owns the cache; a suite registers the controllers it runs, then calls Start.
	Manager    ctrl.Manager
	Clock      *clocktesting.FakeClock
	Emulator   *emulator.Emulator
	KakaoCloud *kakaocloud.Client
	Catalog    *catalog.Catalog
	Keyring    *signing.Keyring
	Recorder   *EventRecorder

	options      EnvironmentOptions
	stopEmulator func()
}

// NewEnvironment starts the API server and the emulator; call it in BeforeSuite.
func NewEnvironment(options EnvironmentOptions) (*Environment, error) {
	logf.SetLogger(zap.New(zap.WriteTo(ginkgo.GinkgoWriter), zap.UseDevMode(true)))
	e := &Environment{options: options, Clock: clocktesting.NewFakeClock(time.Now().Truncate(time.Second)), Recorder: &EventRecorder{}}
	e.Ctx, e.cancel = context.WithCancel(context.Background())
	cluster, err := testenv.StartCluster(options.Webhooks)
	if err != nil {
		return nil, err
	}
	e.Env, e.Manager = cluster.Env, cluster.Manager
	e.Client = &CacheSyncingClient{Client: cluster.Manager.GetClient()}
	e.APIReader = cluster.Client
	if options.Direct {
		if err := lifecycle.IndexFields(e.Ctx, e.Manager); err != nil {
			_ = e.Env.Stop()
			return nil, err
		}
	}

	emulatorOptions := options.Emulator
	catalogueOptions := catalog.Options{ClusterName: ClusterName, CatalogueTTL: options.CatalogueTTL, ClusterTTL: options.CatalogueTTL}
	if options.FakeClock {
		emulatorOptions.Clock = e.Clock
		catalogueOptions.Clock = e.Clock
	}
	e.Emulator, e.KakaoCloud, e.stopEmulator, err = testenv.Emulator(emulatorOptions)
	if err != nil {
		_ = e.Env.Stop()
		return nil, err
	}
	e.Catalog = catalog.New(e.KakaoCloud, catalogueOptions)
	if e.Keyring, err = signing.NewKeyring("k1", map[string][]byte{"k1": []byte(strings.Repeat("k", 32))}); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

// Controllers builds the operator's controllers on the environment's parts, as cmd/main.go
// builds them on the real ones; mutate adjusts the options (timeouts, polls).
func (e *Environment) Controllers(mutate ...func(*operator.Options)) *operator.Controllers {
	o := operator.Options{
		Client: e.Client, APIReader: e.APIReader, KakaoCloud: e.KakaoCloud, Catalog: e.Catalog, Keyring: e.Keyring,
		ClusterName: ClusterName, Recorder: e.Recorder,
	}
	if e.options.FakeClock {
		o.Clock = e.Clock
	}
	for _, m := range mutate {
		m(&o)
	}
	return operator.NewControllers(o)
}

// Start starts Manager (its cache, and the controllers registered on it) and waits until the
// cache has synced.
func (e *Environment) Start() error {
	go func() {
		defer ginkgo.GinkgoRecover()
		gomega.Expect(e.Manager.Start(e.Ctx)).To(gomega.Succeed())
	}()
	if !e.Manager.GetCache().WaitForCacheSync(e.Ctx) {
		return fmt.Errorf("the cache did not sync")
	}
	return nil
}

// Stop stops the manager, the emulator and the API server; call it in AfterSuite.
func (e *Environment) Stop() {
	e.cancel()
	if e.stopEmulator != nil {
		e.stopEmulator()
	}
	gomega.Expect(e.Env.Stop()).To(gomega.Succeed())
}

// Reset readies the environment for the next spec: no events recorded, no faults, lag or call
// counts in the cloud, and the fake clock set to real time, which the API server stamps
// creation and deletion times with.
func (e *Environment) Reset() {
	e.Recorder.Reset()
	e.Emulator.ClearFaults()
	e.Emulator.SetListLag(0)
	e.Emulator.ResetCallCounts()
	e.Clock.SetTime(time.Now())
}

// Step moves the fake clock on by d, as time passing would.
func (e *Environment) Step(d time.Duration) { e.Clock.Step(d) }
