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

package testenv

import (
	"net/http/httptest"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/managercache"
)

// Scheme returns a scheme with Kubernetes' types and this project's.
func Scheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(karpv1.AddToScheme(scheme))
	utilruntime.Must(kcv1.AddToScheme(scheme))
	utilruntime.Must(autoscalingv1beta1.AddToScheme(scheme))
	return scheme
}

// Environment returns an envtest environment (a real kube-apiserver and etcd) with the
// project's CRDs installed and, when asked, the webhook configurations of config/webhook
// pointed at a local webhook server.
func Environment(withWebhooks bool) *envtest.Environment {
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{CRDDirectory()},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: BinaryAssetsDirectory(),
	}
	if withWebhooks {
		env.WebhookInstallOptions = envtest.WebhookInstallOptions{Paths: []string{WebhookDirectory()}}
	}
	return env
}

// Emulator serves a KakaoCloud emulator on loopback HTTP and returns it with a client of it
// that retries quickly, as tests want. stop closes the server.
func Emulator(opts emulator.Options) (emu *emulator.Emulator, kakaoClient *kakaocloud.Client, stop func(), err error) {
	emu = emulator.New(opts)
	server := httptest.NewServer(emu)
	kakaoClient, err = kakaocloud.New(kakaocloud.Config{
		Endpoints:   emu.Endpoints(server.URL),
		Credentials: kakaocloud.StaticCredentials{AccessKeyID: emulator.DefaultAccessKeyID, SecretAccessKey: emulator.DefaultSecretAccessKey},
		Retry:       kakaocloud.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
	})
	if err != nil {
		server.Close()
		return nil, nil, nil, err
	}
	return emu, kakaoClient, server.Close, nil
}

// Cluster is a running envtest API server with a client and a manager that is not started
// yet: a suite registers its controllers on Manager, then starts it.
type Cluster struct {
	Env     *envtest.Environment
	Client  client.Client
	Manager ctrl.Manager
}

// StartCluster starts an Environment and builds a client and a manager for it (metrics off;
// with webhooks, the manager's webhook server listens where envtest points the API server).
func StartCluster(withWebhooks bool) (*Cluster, error) {
	env := Environment(withWebhooks)
	cfg, err := env.Start()
	if err != nil {
		return nil, err
	}
	scheme := Scheme()
	kube, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	opts := ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, Cache: managercache.Options(), Client: managercache.ClientOptions()}
	if withWebhooks {
		w := env.WebhookInstallOptions
		opts.WebhookServer = ctrlwebhook.NewServer(ctrlwebhook.Options{Host: w.LocalServingHost, Port: w.LocalServingPort, CertDir: w.LocalServingCertDir})
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &Cluster{Env: env, Client: kube, Manager: mgr}, nil
}
