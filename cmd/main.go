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

// Command manager runs the Karpenter controllers for KakaoCloud Kubernetes Engine.
package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	"github.com/operator-framework/operator-lib/conditions"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	autoscalingv1beta1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/autoscaling/v1beta1"
	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/managercache"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/webhook"
)

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(karpv1.AddToScheme(scheme))
	utilruntime.Must(kcv1.AddToScheme(scheme))
	utilruntime.Must(autoscalingv1beta1.AddToScheme(scheme))
}

// The controllers' own markers add to these; the manager itself watches the three kinds and
// records events.
// +kubebuilder:rbac:groups=karpenter.sh,resources=nodepools;nodeclaims,verbs=get;list;watch
// +kubebuilder:rbac:groups=karpenter.kakaocloud.com,resources=kcnodeclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// In its own namespace the controller reads three objects, each by name and nothing else
// (managercache.NamedReader): the Secrets of the KakaoCloud access key and of the signing keys,
// under the default names of --credentials-secret and --signing-keyring-secret (the Helm chart
// names the ones its values give), and the ConfigMap of relative cost overrides.
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=get,resourceNames=karpenter-kakaocloud-credentials;karpenter-kakaocloud-signing-keys
// +kubebuilder:rbac:groups="",namespace=system,resources=configmaps,verbs=get,resourceNames=karpenter-kakaocloud-prices

// olmUpgradeable is the Upgradeable condition of the OperatorCondition OLM made for this
// operator, or nil when OLM did not install it (no OPERATOR_CONDITION_NAME). The condition is
// read and written with a client of its own, uncached: the operator may only read its own
// OperatorCondition, not list them.
func olmUpgradeable(cfg *rest.Config) (conditions.Condition, error) {
	if os.Getenv("OPERATOR_CONDITION_NAME") == "" {
		return nil, nil
	}
	scheme := runtime.NewScheme()
	if err := operatorsv2.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the scheme: %w", err)
	}
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("making a client: %w", err)
	}
	condition, err := conditions.InClusterFactory{Client: direct}.NewCondition(operatorsv2.ConditionType(operatorsv2.Upgradeable))
	if err != nil {
		return nil, fmt.Errorf("naming its Upgradeable condition: %w", err)
	}
	return condition, nil
}

// clusterCA is the CA new nodes trust the API server with: the one this controller trusts.
func clusterCA(cfg *rest.Config) ([]byte, error) {
	if len(cfg.CAData) > 0 {
		return cfg.CAData, nil
	}
	if cfg.CAFile != "" {
		ca, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the controller's CA file: %w", err)
		}
		return ca, nil
	}
	return nil, errors.New("the controller's own connection to the API server has no CA")
}

// splitHostPort reads host:port with a numeric port.
func splitHostPort(address string) (string, int, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("port %q of %q is not a port number", port, address)
	}
	return host, n, nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "preflight" {
		os.Exit(runPreflight(os.Args[2:]))
	}
	o, zapOpts, err := parseOptions(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	for _, note := range o.featureGateNotes {
		setupLog.Info(note)
	}
	for _, note := range o.flagNotes {
		setupLog.Info("warning: " + note)
	}
	if err := run(ctrl.SetupSignalHandler(), o); err != nil {
		setupLog.Error(err, "the manager stopped")
		os.Exit(1)
	}
}

// run wires the manager from o and runs it until ctx ends.
func run(ctx context.Context, o options) error {
	if o.cloud.clusterName == "" {
		return errors.New("--cluster-name (or CLUSTER_NAME) is required")
	}
	namespace := envOr("POD_NAMESPACE", "karpenter-kakaocloud")
	mgr, err := newManager(o, namespace)
	if err != nil {
		return err
	}
	controllers, cat, err := newControllers(mgr, o, namespace)
	if err != nil {
		return err
	}
	if err := operator.IndexFields(ctx, mgr.GetFieldIndexer()); err != nil {
		return fmt.Errorf("registering the cache indexes: %w", err)
	}
	if err := controllers.Register(ctx, mgr); err != nil {
		return fmt.Errorf("registering the controllers: %w", err)
	}
	// Webhooks are served unless turned off, e.g. for `make run` outside a cluster. Ready
	// means the webhook server listens, so that the API server never calls a replica that
	// cannot answer.
	readyCheck := healthz.Ping
	if os.Getenv("ENABLE_WEBHOOKS") != "false" {
		readyCheck = mgr.GetWebhookServer().StartedChecker()
		if err := serveWebhooks(mgr, cat, controllers.WhatIf); err != nil {
			return err
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("setting up the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", readyCheck); err != nil {
		return fmt.Errorf("setting up the ready check: %w", err)
	}
	setupLog.Info("starting manager")
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the manager: %w", err)
	}
	return nil
}

// newManager makes the controller-runtime manager: its API client, cache, leader election,
// and the metrics, probe and webhook servers, each serving the certificate of its directory,
// read again when it changes (cert-manager or OLM renews it).
func newManager(o options, namespace string) (ctrl.Manager, error) {
	var tlsOpts []func(*tls.Config)
	if !o.enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	webhookHost, webhookPort, err := splitHostPort(o.webhookAddr)
	if err != nil {
		return nil, fmt.Errorf("reading --webhook-bind-address: %w", err)
	}
	webhookCert, err := servedCertificate(o.webhookCertPath, o.webhookCertName, o.webhookCertKey)
	if err != nil {
		return nil, fmt.Errorf("watching the webhook certificate: %w", err)
	}
	metricsCert, err := servedCertificate(o.metricsCertPath, o.metricsCertName, o.metricsCertKey)
	if err != nil {
		return nil, fmt.Errorf("watching the metrics certificate: %w", err)
	}
	webhookServerOptions := ctrlwebhook.Options{Host: webhookHost, Port: webhookPort,
		TLSOpts: slices.Concat(tlsOpts, webhookCert.tlsOpts(), []func(*tls.Config){explain.RequestClientCertificate})}
	metricsServerOptions := metricsserver.Options{
		BindAddress:   o.metricsAddr,
		SecureServing: o.secureMetrics,
		TLSOpts:       slices.Concat(tlsOpts, metricsCert.tlsOpts()),
	}
	if o.enableProfiling {
		// Where upstream Karpenter's tooling (its performance suite's profiler) looks for them.
		metricsServerOptions.ExtraHandlers = map[string]http.Handler{
			"/debug/pprof/":        http.HandlerFunc(pprof.Index),
			"/debug/pprof/cmdline": http.HandlerFunc(pprof.Cmdline),
			"/debug/pprof/profile": http.HandlerFunc(pprof.Profile),
			"/debug/pprof/symbol":  http.HandlerFunc(pprof.Symbol),
			"/debug/pprof/trace":   http.HandlerFunc(pprof.Trace),
		}
	}
	if o.secureMetrics {
		// Only authenticated and authorized clients (a ServiceAccount bound to the
		// metrics-reader role) may scrape the metrics.
		metricsServerOptions.FilterProvider = filters.WithAuthenticationAndAuthorization
	}

	metrics.PublishBuildInfo()
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	restConfig.QPS, restConfig.Burst = float32(o.kubeClientQPS), o.kubeClientBurst
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsServerOptions,
		WebhookServer:          ctrlwebhook.NewServer(webhookServerOptions),
		HealthProbeBindAddress: o.probeAddr,
		PprofBindAddress:       o.pprofAddr,
		LeaderElection:         o.enableLeaderElection,
		// The Lease's name: the leader election Role of every install path names it.
		LeaderElectionID: "karpenter-leader-election.karpenter.kakaocloud.com",
		// The manager's own namespace, which its Role covers, also when it runs outside the
		// cluster (where controller-runtime cannot find it).
		LeaderElectionNamespace: cmp.Or(o.leaderElectionNS, namespace),
		// The manager exits right after it loses the lease, so releasing it on a clean
		// shutdown lets the next replica take over at once.
		LeaderElectionReleaseOnCancel: true,
		Cache:                         managercache.Options(),
		Client:                        managercache.ClientOptions(),
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	for _, c := range []*servedCert{webhookCert, metricsCert} {
		if c == nil {
			continue
		}
		if err := mgr.Add(c.CertWatcher); err != nil {
			return nil, fmt.Errorf("adding a certificate watcher to the manager: %w", err)
		}
	}
	return mgr, nil
}

// servedCertificate watches the certificate and key in dir, or is nil when no directory is
// given: the server then makes its own.
func servedCertificate(dir, certName, keyName string) (*servedCert, error) {
	if dir == "" {
		return nil, nil
	}
	w, err := certwatcher.New(filepath.Join(dir, certName), filepath.Join(dir, keyName))
	if err != nil {
		return nil, fmt.Errorf("reading %s and %s in %s: %w", certName, keyName, dir, err)
	}
	return &servedCert{w}, nil
}

// servedCert is a watched certificate a server serves.
type servedCert struct{ *certwatcher.CertWatcher }

// tlsOpts serve the certificate; none for a server without one.
func (c *servedCert) tlsOpts() []func(*tls.Config) {
	if c == nil {
		return nil
	}
	return []func(*tls.Config){func(config *tls.Config) { config.GetCertificate = c.GetCertificate }}
}

// newControllers makes the KakaoCloud client, catalog, signing keyring and bootstrapper from o,
// and every controller from them.
func newControllers(mgr ctrl.Manager, o options, namespace string) (*operator.Controllers, *catalog.Catalog, error) {
	// The Secrets of keys are read from the API server on each use, by name, so that a
	// rotation takes effect at once; edited prices within the TTL.
	named := managercache.NewNamedReader(mgr.GetAPIReader(), managercache.DefaultNamedTTL)
	kc, err := kakaocloud.New(kakaocloud.Config{
		Region:    o.cloud.region,
		Endpoints: o.cloud.endpoints,
		Credentials: kakaocloud.SecretCredentials{
			Reader: mgr.GetAPIReader(),
			Secret: types.NamespacedName{Namespace: namespace, Name: o.cloud.credentialsSecret},
		},
		RateLimit:     kakaocloud.RateLimit{QPS: o.kakaoCloudCalls.qps, Burst: o.kakaoCloudCalls.burst},
		CallTimeout:   o.kakaoCloudCalls.callTimeout,
		MaxRetryAfter: o.kakaoCloudCalls.maxRetryAfter,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("creating the KakaoCloud client: %w", err)
	}
	cat := catalog.New(kc, catalog.Options{ClusterName: o.cloud.clusterName, CatalogTTL: o.catalogTTL})
	keyring := signing.SecretKeyring{Reader: mgr.GetAPIReader(), Secret: types.NamespacedName{Namespace: namespace, Name: o.cloud.keyringSecret}}
	var bootstrapper kakao.Bootstrapper
	if ca, err := clusterCA(mgr.GetConfig()); err != nil {
		setupLog.Error(err, "no cluster CA to give new nodes: VMs get only their KCNodeClass's user data and must join by themselves")
	} else {
		bootstrapper = &bootstrap.Bootstrapper{Client: mgr.GetClient(), Cluster: cat, CABundle: ca, Keyring: keyring, TokenTTL: o.bootstrapTokenTTL}
	}
	upgradeable, err := olmUpgradeable(mgr.GetConfig())
	if err != nil {
		return nil, nil, fmt.Errorf("reaching the OperatorCondition OLM names in OPERATOR_CONDITION_NAME: %w", err)
	}
	return operator.NewControllers(operator.Options{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), KakaoCloud: kc, Catalog: cat, Keyring: keyring,
		ClusterName: o.cloud.clusterName, Recorder: mgr.GetEventRecorder("karpenter"), Bootstrap: bootstrapper, BootstrapTokenTTL: o.bootstrapTokenTTL,
		PriceOverrides: instancetype.PriceOverrideSource{
			Reader:    named,
			ConfigMap: types.NamespacedName{Namespace: namespace, Name: instancetype.PriceOverridesConfigMapName},
		},
		BatchIdle: o.batchIdle, BatchMax: o.batchMax,
		DisruptionPoll: o.disruptionPoll, DisruptionValidation: o.disruptionValidation,
		NodeRepair: o.nodeRepair && o.featureGates.NodeRepair, LegacyNodeRepair: o.legacyNodeRepair, RepairTolerations: o.repairTolerations,
		Policies: o.policies, SchedulerConfig: o.schedulerConfig, CapacityBuffers: o.featureGates.CapacityBuffer,
		Upgradeable: upgradeable, NextReleaseMinimum: o.nextReleaseMinimum,
	}), cat, nil
}

// serveWebhooks registers the admission webhooks, and kubectl karpenter's whatif: an aggregated
// API served beside the webhooks, behind the same Service, where the API server names the user,
// proved by its front-proxy certificate.
func serveWebhooks(mgr ctrl.Manager, cat *catalog.Catalog, whatIf *explain.Handler) error {
	if err := webhook.SetupNodePoolWebhookWithManager(mgr); err != nil {
		return fmt.Errorf("creating the NodePool webhook: %w", err)
	}
	if err := webhook.SetupKCNodeClassWebhookWithManager(mgr, cat); err != nil {
		return fmt.Errorf("creating the KCNodeClass webhook: %w", err)
	}
	kube, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("creating the client whatif's aggregated API reads the front proxy's configuration with: %w", err)
	}
	frontProxy, err := explain.NewFrontProxy(kube)
	if err != nil {
		return fmt.Errorf("setting up whatif's aggregated API: %w", err)
	}
	if err := mgr.Add(frontProxy); err != nil {
		return fmt.Errorf("setting up whatif's aggregated API: %w", err)
	}
	whatIf.Authenticator = frontProxy
	mgr.GetWebhookServer().Register(explain.Path, whatIf)
	mgr.GetWebhookServer().Register(explain.GroupVersionPath, http.HandlerFunc(explain.Discovery))
	mgr.GetWebhookServer().Register("/apis/"+explain.Group, http.HandlerFunc(explain.Discovery))
	return nil
}
