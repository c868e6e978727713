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

package test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// ClusterName is the Kubernetes Engine cluster of the emulator's built-in catalog.
const ClusterName = "karpenter-demo"

// RunSuite runs the Ginkgo specs of a package, with the Eventually defaults every suite uses.
func RunSuite(t *testing.T, name string) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	gomega.SetDefaultEventuallyTimeout(30 * time.Second)
	gomega.SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	ginkgo.RunSpecs(t, name)
}

// Suite registers the suite's BeforeSuite and AfterSuite: start an Environment with the
// options, let setup register what the suite runs on it (and keep the parts it uses), start
// it, and stop it after the specs. The Environment returned is filled in when the suite
// starts.
func Suite(options EnvironmentOptions, setup func(*Environment) error) *Environment {
	env := &Environment{}
	ginkgo.BeforeSuite(func() {
		started, err := NewEnvironment(options)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		*env = *started
		if setup != nil {
			gomega.Expect(setup(env)).To(gomega.Succeed())
		}
		gomega.Expect(env.Start()).To(gomega.Succeed())
	})
	ginkgo.AfterSuite(func() {
		if env.Env == nil {
			return // it did not start: BeforeSuite said why
		}
		gomega.Expect(env.Stop()).To(gomega.Succeed())
	})
	return env
}

// EnvironmentOptions shape an Environment.
type EnvironmentOptions struct {
	// Webhooks installs the project's webhook configurations, served by Manager.
	Webhooks bool
	// Emulator configures the emulated cloud; with FakeClock its clock is the environment's.
	Emulator emulator.Options
	// FakeClock runs the emulator, the catalog and the controllers of Controllers on Clock,
	// which only the spec moves; otherwise they run on real time.
	FakeClock bool
	// CatalogTTL is how long the catalog serves a read before asking the cloud again.
	CatalogTTL time.Duration
	// Direct is for suites that call reconcilers themselves rather than run them on Manager:
	// their reconcilers write through the cache-syncing client.
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
	// APIClient reads and writes the API server directly, as kubectl or another controller
	// would.
	APIClient client.Client
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
	e.APIClient = cluster.Client
	if err := operator.IndexFields(e.Ctx, e.Manager.GetFieldIndexer()); err != nil {
		_ = e.Env.Stop()
		return nil, err
	}

	emulatorOptions := options.Emulator
	catalogOptions := catalog.Options{ClusterName: ClusterName, CatalogTTL: options.CatalogTTL, ClusterTTL: options.CatalogTTL}
	if options.FakeClock {
		emulatorOptions.Clock = e.Clock
		catalogOptions.Clock = e.Clock
	}
	e.Emulator, e.KakaoCloud, e.stopEmulator, err = testenv.Emulator(emulatorOptions)
	if err != nil {
		_ = e.Env.Stop()
		return nil, err
	}
	e.Catalog = catalog.New(e.KakaoCloud, catalogOptions)
	e.Keyring = Keyring()
	return e, nil
}

// Controllers builds the operator's controllers on the environment's parts, as cmd/main.go
// builds them on the real ones; mutate adjusts the options (timeouts, polls).
func (e *Environment) Controllers(mutate ...func(*operator.Options)) *operator.Controllers {
	// Reconcilers called by the spec write through the cache-syncing client, so that the next
	// call reads what the last one wrote; controllers run by the manager use its client, as in
	// production.
	c := e.Manager.GetClient()
	if e.options.Direct {
		c = e.Client
	}
	o := operator.Options{
		Client: c, APIReader: e.APIClient, KakaoCloud: e.KakaoCloud, Catalog: e.Catalog, Keyring: e.Keyring,
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

// APIServer starts a kube-apiserver and etcd for a plain Go test and returns a client of it;
// the test's cleanup stops them.
func APIServer(t *testing.T) client.Client {
	t.Helper()
	cluster, err := testenv.StartCluster(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Env.Stop() })
	return cluster.Client
}

// Cloud starts an emulator on loopback HTTP for a plain Go test and returns it with a client
// of it; the test's cleanup stops it.
func Cloud(t *testing.T, options emulator.Options) (*emulator.Emulator, *kakaocloud.Client) {
	t.Helper()
	emu, kc, stop, err := testenv.Emulator(options)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return emu, kc
}

// Keyring is the signing keyring every test signs VMs with.
func Keyring() *signing.Keyring {
	keyring, err := signing.NewKeyring("k1", map[string][]byte{"k1": []byte(strings.Repeat("k", 32))})
	if err != nil {
		panic(err) // a fixed, valid key
	}
	return keyring
}

// Start starts Manager (its cache, and the controllers registered on it) and waits until the
// cache has synced.
func (e *Environment) Start() error {
	go func() {
		if err := e.Manager.Start(e.Ctx); err != nil {
			logf.Log.Error(err, "the test manager stopped")
		}
	}()
	if !e.Manager.GetCache().WaitForCacheSync(e.Ctx) {
		return fmt.Errorf("the cache did not sync")
	}
	if e.options.Webhooks {
		// The API server calls the webhooks as soon as they are configured.
		started := e.Manager.GetWebhookServer().StartedChecker()
		return wait.PollUntilContextTimeout(e.Ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			return started(nil) == nil, nil
		})
	}
	return nil
}

// Stop stops the manager, the emulator and the API server; call it in AfterSuite.
func (e *Environment) Stop() error {
	e.cancel()
	if e.stopEmulator != nil {
		e.stopEmulator()
	}
	return e.Env.Stop()
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
