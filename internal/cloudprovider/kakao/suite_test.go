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

package kakao_test

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/nodeclass"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

var (
	ctx         context.Context
	cancel      context.CancelFunc
	testEnv     *envtest.Environment
	k8sClient   client.Client
	emu         *emulator.Emulator
	kc          *kakaocloud.Client
	keyring     *signing.Keyring
	unavailable *instancetype.UnavailableOfferings
	provider    *kakao.CloudProvider
)

func TestCloudProvider(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "KakaoCloud cloud provider suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())

	cluster, err := testenv.StartCluster(false)
	Expect(err).NotTo(HaveOccurred())
	testEnv, k8sClient = cluster.Env, cluster.Client
	mgr := cluster.Manager

	var stop func()
	emu, kc, stop, err = testenv.Emulator(emulator.Options{BuildDelay: time.Nanosecond, DeleteDelay: time.Nanosecond})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stop)
	cat := catalog.New(kc, catalog.Options{ClusterName: "karpenter-demo", CatalogueTTL: time.Nanosecond, ClusterTTL: time.Nanosecond})
	keyring, err = signing.NewKeyring("k1", map[string][]byte{"k1": []byte(strings.Repeat("k", 32))})
	Expect(err).NotTo(HaveOccurred())
	unavailable = instancetype.NewUnavailableOfferings(time.Minute, nil)
	prices := kakao.Prices{
		Table:     instancetype.NewPriceTable(),
		Overrides: instancetype.PriceOverrideSource{Reader: k8sClient, ConfigMap: client.ObjectKey{Namespace: "default", Name: instancetype.PriceOverridesConfigMapName}},
	}

	// The real KCNodeClass controller resolves the node classes the cases launch from.
	Expect((&nodeclass.Reconciler{
		Client: mgr.GetClient(), Catalog: cat, Images: kc, Recorder: mgr.GetEventRecorder("karpenter"),
		ResyncPeriod: 200 * time.Millisecond,
	}).SetupWithManager(mgr)).To(Succeed())
	provider = kakao.New(k8sClient, cat, instancetype.NewProvider(cat, prices.Table, unavailable), prices, unavailable,
		instance.NewProvider(kc, keyring, "karpenter-demo", instance.Options{}), mgr.GetEventRecorder("karpenter"))

	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
})

var _ = AfterSuite(func() {
	cancel()
	Expect(testEnv.Stop()).To(Succeed())
})
