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
	"strings"
	"time"

	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	"github.com/operator-framework/operator-lib/conditions"
	"go.uber.org/zap/zapcore"
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
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/operatorcondition"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/explain"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/metrics"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
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

// options are the manager's command-line settings.
type options struct {
	kubeClientQPS        int
	kubeClientBurst      int
	metricsAddr          string
	metricsCertPath      string
	metricsCertName      string
	metricsCertKey       string
	webhookCertPath      string
	webhookCertName      string
	webhookCertKey       string
	webhookAddr          string
	probeAddr            string
	pprofAddr            string
	enableProfiling      bool
	enableLeaderElection bool
	leaderElectionNS     string
	secureMetrics        bool
	enableHTTP2          bool

	clusterName        string
	region             string
	endpoints          endpointFlag
	nextReleaseMinimum string
	credentialsSecret  string
	keyringSecret      string
	batchIdle          time.Duration
	batchMax           time.Duration
	catalogTTL         time.Duration
	kakaoCloudCalls    kakaoCloudCallBounds
	bootstrapTokenTTL  time.Duration

	disruptionPoll       time.Duration
	disruptionValidation time.Duration

	nodeRepair        bool
	legacyNodeRepair  bool
	repairTolerations kakao.RepairTolerations
	featureGates      operator.FeatureGates
	schedulerConfig   *scheduling.SchedulerConfiguration
	featureGateNotes  []string
	policies          scheduling.Policies

	// flagNotes are checkOptions' warnings, logged once the logger is set up.
	flagNotes []string
}

// kakaoCloudCallBounds are the flags that bound the calls to KakaoCloud.
type kakaoCloudCallBounds struct {
	qps           float64
	burst         int
	callTimeout   time.Duration
	maxRetryAfter time.Duration
}

// endpointsFlag registers --kakaocloud-endpoint on flags, starting from KAKAOCLOUD_ENDPOINTS:
// the environment comes first so that flags override it (OLM's Subscription config and Helm
// values set environment variables, not arguments).
func endpointsFlag(flags *flag.FlagSet) endpointFlag {
	endpoints := endpointFlag{}
	if env := os.Getenv("KAKAOCLOUD_ENDPOINTS"); env != "" {
		for endpoint := range strings.SplitSeq(env, ",") {
			if err := endpoints.Set(strings.TrimSpace(endpoint)); err != nil {
				fmt.Fprintf(os.Stderr, "invalid KAKAOCLOUD_ENDPOINTS entry %q: %v\n", endpoint, err)
				os.Exit(2)
			}
		}
	}
	flags.Var(endpoints, "kakaocloud-endpoint",
		"Override a KakaoCloud service's base URL, as service=url (repeatable; env KAKAOCLOUD_ENDPOINTS, comma-separated); services: "+
			strings.Join(kakaocloud.Services, ", ")+". Without one, a service's URL is the one KakaoCloud's configuration service gives.")
	return endpoints
}

// endpointFlag collects --kakaocloud-endpoint service=url overrides.
type endpointFlag map[string]string

func (e endpointFlag) String() string { return fmt.Sprint(map[string]string(e)) }

func (e endpointFlag) Set(v string) error {
	service, url, ok := strings.Cut(v, "=")
	if !ok || !slices.Contains(kakaocloud.Services, service) {
		return fmt.Errorf("want service=url with service one of %s", strings.Join(kakaocloud.Services, ", "))
	}
	e[service] = url
	return nil
}

func parseFlags() (options, zap.Options) {
	var o options
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "The address the metrics endpoint binds to. "+
		"Use :8443 for HTTPS or :8080 for HTTP, or leave as 0 to disable the metrics service.")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "The address the probe endpoint binds to.")
	flag.StringVar(&o.pprofAddr, "pprof-bind-address", "", "The address Go's profiles (net/http/pprof) are served on, without authentication, "+
		"so a loopback one, e.g. 127.0.0.1:6060 (reached with kubectl port-forward); empty, the default, serves none.")
	flag.BoolVar(&o.enableProfiling, "enable-profiling", false, "Also serve Go's profiles on the metrics endpoint, under /debug/pprof/, "+
		"behind its authentication, as upstream Karpenter's flag of that name does. With --metrics-secure=false it is refused "+
		"unless the metrics endpoint is bound to a loopback address.")
	// Upstream Karpenter's flags and defaults, above client-go's own (20 and 30 a second),
	// which every controller and the event recorder share.
	flag.IntVar(&o.kubeClientQPS, "kube-client-qps", 200, "The smoothed rate of requests to the API server, per second.")
	flag.IntVar(&o.kubeClientBurst, "kube-client-burst", 300, "The most requests to the API server at once, above the smoothed rate.")
	flag.BoolVar(&o.enableLeaderElection, "leader-elect", false,
		"Enable leader election so that only one replica of the controller is active.")
	flag.StringVar(&o.leaderElectionNS, "leader-election-namespace", "",
		"Namespace of the leader election lease; defaults to the namespace the manager runs in.")
	flag.BoolVar(&o.secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS with authentication and authorization. Use --metrics-secure=false for HTTP.")
	flag.StringVar(&o.webhookCertPath, "webhook-cert-path", "", "The directory that contains the webhook certificate.")
	flag.StringVar(&o.webhookAddr, "webhook-bind-address", ":9443", "The address the webhook server binds to, host:port (host empty for every interface).")
	flag.StringVar(&o.webhookCertName, "webhook-cert-name", "tls.crt", "The name of the webhook certificate file.")
	flag.StringVar(&o.webhookCertKey, "webhook-cert-key", "tls.key", "The name of the webhook key file.")
	flag.StringVar(&o.metricsCertPath, "metrics-cert-path", "",
		"The directory that contains the metrics server certificate.")
	flag.StringVar(&o.metricsCertName, "metrics-cert-name", "tls.crt", "The name of the metrics server certificate file.")
	flag.StringVar(&o.metricsCertKey, "metrics-cert-key", "tls.key", "The name of the metrics server key file.")
	flag.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"Serve the metrics and webhook servers over HTTP/2 (off by default: HTTP/2 Stream Cancellation and Rapid Reset CVEs).")
	flag.StringVar(&o.clusterName, "cluster-name", os.Getenv("CLUSTER_NAME"),
		"Name of the Kubernetes Engine cluster this controller serves (env CLUSTER_NAME).")
	flag.StringVar(&o.region, "kakaocloud-region", envOr("KAKAOCLOUD_REGION", kakaocloud.DefaultRegion),
		"KakaoCloud region of the cluster (env KAKAOCLOUD_REGION).")
	o.endpoints = endpointsFlag(flag.CommandLine)
	flag.StringVar(&o.credentialsSecret, "credentials-secret", envOr("CREDENTIALS_SECRET", "karpenter-kakaocloud-credentials"),
		"Secret in the controller's namespace holding the IAM access key (keys access-key-id and secret-access-key); "+
			"updating it rotates the key without a restart.")
	flag.StringVar(&o.keyringSecret, "signing-keyring-secret", envOr("SIGNING_KEYRING_SECRET", "karpenter-kakaocloud-signing-keys"),
		"Secret in the controller's namespace holding the keys that sign VM ownership markers (activeKeyID and keys.<id>).")
	flag.StringVar(&o.nextReleaseMinimum, "next-release-min-kubernetes-version",
		envOr("NEXT_RELEASE_MIN_KUBERNETES_VERSION", operatorcondition.DefaultNextReleaseMinimum),
		"The oldest Kubernetes minor the next release of this operator supports: under OLM, upgrading is held "+
			"(Upgradeable=False) while a KCNodeClass or its nodes are older (env NEXT_RELEASE_MIN_KUBERNETES_VERSION).")
	flag.DurationVar(&o.catalogTTL, "catalog-ttl", catalog.DefaultCatalogTTL,
		"how long flavors, versions, worker images, subnets and security groups read from KakaoCloud are reused before they are read again")
	// Shaped as upstream Karpenter's kube-client flags: one bucket for each KakaoCloud service.
	flag.Float64Var(&o.kakaoCloudCalls.qps, "kakaocloud-client-qps", kakaocloud.DefaultRateLimit.QPS,
		"The smoothed rate of calls to each KakaoCloud service (compute, network, Kubernetes Engine, IAM), per second.")
	flag.IntVar(&o.kakaoCloudCalls.burst, "kakaocloud-client-burst", kakaocloud.DefaultRateLimit.Burst,
		"The most calls to each KakaoCloud service at once, above the smoothed rate.")
	flag.DurationVar(&o.kakaoCloudCalls.callTimeout, "kakaocloud-call-timeout", kakaocloud.DefaultCallTimeout,
		"The longest one call to KakaoCloud may take, its retries included; a create that has no answer by then is looked for before it is made again.")
	flag.DurationVar(&o.kakaoCloudCalls.maxRetryAfter, "kakaocloud-max-retry-after", kakaocloud.DefaultMaxRetryAfter,
		"The longest wait honoured from KakaoCloud's Retry-After: a throttled call is made again after at most this long, "+
			"by the next pass of its controller when the wait does not fit in the call.")
	flag.DurationVar(&o.bootstrapTokenTTL, "bootstrap-token-ttl", bootstrap.DefaultTokenTTL,
		"How long each NodeClaim's bootstrap token is valid: the credential in its VM's user data that registers a node. "+
			"A token is deleted once its node registers or its NodeClaim goes; this bounds one whose deletion was missed. "+
			"The default is the launch timeout plus the registration timeout, as long as a NodeClaim may still become a node. "+
			"Must be positive; shorter than the default is allowed, with a warning: a node slower to join than its token lives "+
			"does not register, and its NodeClaim is replaced at the registration timeout.")
	flag.DurationVar(&o.batchIdle, "batch-idle-duration", time.Second,
		"How long provisioning waits for another pending pod after the last new one before it schedules the batch; a pod seen again does not extend it.")
	flag.DurationVar(&o.batchMax, "batch-max-duration", 10*time.Second,
		"The longest provisioning waits to schedule a batch of pending pods.")
	flag.DurationVar(&o.disruptionPoll, "disruption-poll-interval", disruption.DefaultPollInterval,
		"How often the disruption controller looks for nodes to remove or replace (emptiness, drift, consolidation).")
	flag.DurationVar(&o.disruptionValidation, "consolidation-validation-delay", disruption.DefaultValidationDelay,
		"How long a consolidation decision waits before it is checked again and carried out.")
	flag.BoolVar(&o.nodeRepair, "node-repair", true,
		"Replace nodes the repair policies find unhealthy (NotReady too long, or a VM KakaoCloud reports failed or stopped), "+
			"within the NodePools' disruption budgets of reason Unhealthy, a replacement first; "+
			"a NodePool's spec.disruption.repair.maxUnhealthy holds it while too many of its nodes are unhealthy.")
	flag.BoolVar(&o.legacyNodeRepair, "legacy-node-repair", false,
		"Repair as before upstream Karpenter v1.15: every unhealthy node's NodeClaim is deleted at once, its pods deleted without waiting, "+
			"not paced by disruption budgets and no replacement first.")
	flag.DurationVar(&o.repairTolerations.NotReady, "repair-not-ready-toleration", kakao.DefaultNotReadyToleration,
		"How long a node may be NotReady (Ready False or Unknown) before node repair replaces it.")
	flag.DurationVar(&o.repairTolerations.InstanceFailed, "repair-instance-failed-toleration", kakao.DefaultInstanceFailedToleration,
		"How long a node may be NotReady while KakaoCloud reports its VM in error or stopped before node repair replaces it.")
	o.featureGates = operator.DefaultFeatureGates()
	flag.Func("feature-gates", operator.FeatureGatesHelp(), func(v string) error {
		gates, notes, err := operator.ParseFeatureGates(v)
		o.featureGates, o.featureGateNotes = gates, notes
		return err
	})
	choiceFlag("preference-policy", "How the scheduling simulation treats preferences (preferred node and pod (anti-)affinity, "+
		"ScheduleAnyway topology spreads, PreferNoSchedule taints): Respect (default) honours them first and relaxes them one at a time, "+
		"Ignore drops them, as upstream Karpenter's flag.", []string{"Respect", "Ignore"},
		func(v string) { o.policies.IgnorePreferences = v == "Ignore" })
	choiceFlag("min-values-policy", "What a NodePool's minValues does when the instance types that fit cannot meet it: "+
		"Strict (default) leaves the pods pending, BestEffort launches with as many values as there are and annotates the NodeClaim "+
		"karpenter.sh/nodeclaim-min-values-relaxed, as upstream Karpenter's flag.", []string{"Strict", "BestEffort"},
		func(v string) { o.policies.MinValuesBestEffort = v == "BestEffort" })
	flag.Func("scheduler-config", "A YAML or JSON document with the part of the cluster's kube-scheduler configuration the scheduling "+
		"simulation mirrors, as upstream Karpenter's flag: podTopologySpread.defaultConstraints, given to pods without topology spread "+
		"constraints of their own with the selector the kube-scheduler deduces for them. Empty: none.", func(v string) error {
		config, err := scheduling.ParseSchedulerConfiguration(v)
		o.schedulerConfig = config
		return err
	})
	// Upstream Karpenter's environment variables for these, first, so that flags override them.
	for env, name := range map[string]string{"FEATURE_GATES": "feature-gates", "PREFERENCE_POLICY": "preference-policy", "MIN_VALUES_POLICY": "min-values-policy",
		"SCHEDULER_CONFIG": "scheduler-config", "KUBE_CLIENT_QPS": "kube-client-qps", "KUBE_CLIENT_BURST": "kube-client-burst"} {
		if v := os.Getenv(env); v != "" {
			if err := flag.Set(name, v); err != nil {
				fmt.Fprintf(os.Stderr, "invalid %s: %v\n", env, err)
				os.Exit(2)
			}
		}
	}
	zapOpts := zap.Options{
		Development: false,
		TimeEncoder: zapcore.ISO8601TimeEncoder,
	}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	notes, err := checkOptions(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "invalid flags: %v\n", err)
		os.Exit(2)
	}
	o.flagNotes = notes
	return o, zapOpts
}

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
		return nil, err
	}
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	return conditions.InClusterFactory{Client: direct}.NewCondition(operatorsv2.ConditionType(operatorsv2.Upgradeable))
}

// clusterCA is the CA new nodes trust the API server with: the one this controller trusts.
func clusterCA(cfg *rest.Config) ([]byte, error) {
	if len(cfg.CAData) > 0 {
		return cfg.CAData, nil
	}
	if cfg.CAFile != "" {
		return os.ReadFile(cfg.CAFile)
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

// choiceFlag defines a flag that takes one of choices, and calls set with it.
func choiceFlag(name, usage string, choices []string, set func(string)) {
	flag.Func(name, usage, func(v string) error {
		if !slices.Contains(choices, v) {
			return fmt.Errorf("%q is not one of %s", v, strings.Join(choices, ", "))
		}
		set(v)
		return nil
	})
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

//nolint:gocyclo // the operator's wiring: one flag, client or controller after another, each a branch only to report its own error
func main() {
	if len(os.Args) > 1 && os.Args[1] == "preflight" {
		os.Exit(runPreflight(os.Args[2:]))
	}
	o, zapOpts := parseFlags()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	for _, note := range o.featureGateNotes {
		setupLog.Info(note)
	}
	for _, note := range o.flagNotes {
		setupLog.Info("warning: " + note)
	}
	if o.clusterName == "" {
		setupLog.Error(errors.New("--cluster-name (or CLUSTER_NAME) is required"), "invalid configuration")
		os.Exit(1)
	}
	namespace := envOr("POD_NAMESPACE", "karpenter-kakaocloud")
	ctx := ctrl.SetupSignalHandler()

	var tlsOpts []func(*tls.Config)
	if !o.enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}

	webhookHost, webhookPort, err := splitHostPort(o.webhookAddr)
	if err != nil {
		setupLog.Error(err, "invalid --webhook-bind-address")
		os.Exit(1)
	}
	// A server given a certificate directory serves the certificate there, read again when
	// it changes (cert-manager or OLM renews it).
	var watchers []*certwatcher.CertWatcher
	servedCertificate := func(server, dir, certName, keyName string) []func(*tls.Config) {
		if dir == "" {
			return nil
		}
		w, err := certwatcher.New(filepath.Join(dir, certName), filepath.Join(dir, keyName))
		if err != nil {
			setupLog.Error(err, "failed to initialize "+server+" certificate watcher")
			os.Exit(1)
		}
		watchers = append(watchers, w)
		return []func(*tls.Config){func(c *tls.Config) { c.GetCertificate = w.GetCertificate }}
	}
	webhookServerOptions := ctrlwebhook.Options{Host: webhookHost, Port: webhookPort,
		TLSOpts: slices.Concat(tlsOpts, servedCertificate("webhook", o.webhookCertPath, o.webhookCertName, o.webhookCertKey),
			[]func(*tls.Config){explain.RequestClientCertificate})}

	metricsServerOptions := metricsserver.Options{
		BindAddress:   o.metricsAddr,
		SecureServing: o.secureMetrics,
		TLSOpts:       slices.Concat(tlsOpts, servedCertificate("metrics", o.metricsCertPath, o.metricsCertName, o.metricsCertKey)),
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
	restConfig := ctrl.GetConfigOrDie()
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
		setupLog.Error(err, "unable to create manager")
		os.Exit(1)
	}

	for _, w := range watchers {
		if err := mgr.Add(w); err != nil {
			setupLog.Error(err, "unable to add certificate watcher to manager")
			os.Exit(1)
		}
	}
	// The Secrets of keys are read from the API server on each use, by name, so that a
	// rotation takes effect at once; edited prices within the TTL.
	named := managercache.NewNamedReader(mgr.GetAPIReader(), managercache.DefaultNamedTTL)
	kc, err := kakaocloud.New(kakaocloud.Config{
		Region:    o.region,
		Endpoints: o.endpoints,
		Credentials: kakaocloud.SecretCredentials{
			Reader: mgr.GetAPIReader(),
			Secret: types.NamespacedName{Namespace: namespace, Name: o.credentialsSecret},
		},
		RateLimit:     kakaocloud.RateLimit{QPS: o.kakaoCloudCalls.qps, Burst: o.kakaoCloudCalls.burst},
		CallTimeout:   o.kakaoCloudCalls.callTimeout,
		MaxRetryAfter: o.kakaoCloudCalls.maxRetryAfter,
	})
	if err != nil {
		setupLog.Error(err, "unable to create the KakaoCloud client")
		os.Exit(1)
	}
	cat := catalog.New(kc, catalog.Options{ClusterName: o.clusterName, CatalogTTL: o.catalogTTL})

	recorder := mgr.GetEventRecorder("karpenter")
	keyring := signing.SecretKeyring{Reader: mgr.GetAPIReader(), Secret: types.NamespacedName{Namespace: namespace, Name: o.keyringSecret}}
	var bootstrapper kakao.Bootstrapper
	if ca, err := clusterCA(mgr.GetConfig()); err != nil {
		setupLog.Error(err, "no cluster CA to give new nodes: VMs get only their KCNodeClass's user data and must join by themselves")
	} else {
		bootstrapper = &bootstrap.Bootstrapper{Client: mgr.GetClient(), Cluster: cat, CABundle: ca, Keyring: keyring, TokenTTL: o.bootstrapTokenTTL}
	}
	upgradeable, err := olmUpgradeable(mgr.GetConfig())
	if err != nil {
		setupLog.Error(err, "unable to reach the OperatorCondition OLM names in OPERATOR_CONDITION_NAME")
		os.Exit(1)
	}
	controllers := operator.NewControllers(operator.Options{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), KakaoCloud: kc, Catalog: cat, Keyring: keyring,
		ClusterName: o.clusterName, Recorder: recorder, Bootstrap: bootstrapper, BootstrapTokenTTL: o.bootstrapTokenTTL,
		PriceOverrides: instancetype.PriceOverrideSource{
			Reader:    named,
			ConfigMap: types.NamespacedName{Namespace: namespace, Name: instancetype.PriceOverridesConfigMapName},
		},
		BatchIdle: o.batchIdle, BatchMax: o.batchMax,
		DisruptionPoll: o.disruptionPoll, DisruptionValidation: o.disruptionValidation,
		NodeRepair: o.nodeRepair && o.featureGates.NodeRepair, LegacyNodeRepair: o.legacyNodeRepair, RepairTolerations: o.repairTolerations,
		Policies: o.policies, SchedulerConfig: o.schedulerConfig, CapacityBuffers: o.featureGates.CapacityBuffer,
		Upgradeable: upgradeable, NextReleaseMinimum: o.nextReleaseMinimum,
	})
	if err := operator.IndexFields(ctx, mgr.GetFieldIndexer()); err != nil {
		setupLog.Error(err, "unable to register the cache indexes")
		os.Exit(1)
	}
	if err := controllers.Register(ctx, mgr); err != nil {
		setupLog.Error(err, "unable to create controllers")
		os.Exit(1)
	}

	// Webhooks are served unless turned off, e.g. for `make run` outside a cluster. Ready
	// means the webhook server listens, so that the API server never calls a replica that
	// cannot answer.
	readyCheck := healthz.Ping
	if os.Getenv("ENABLE_WEBHOOKS") != "false" {
		readyCheck = mgr.GetWebhookServer().StartedChecker()
		if err := webhook.SetupNodePoolWebhookWithManager(mgr); err != nil {
			setupLog.Error(err, "unable to create webhook", "webhook", "NodePool")
			os.Exit(1)
		}
		if err := webhook.SetupKCNodeClassWebhookWithManager(mgr, cat); err != nil {
			setupLog.Error(err, "unable to create webhook", "webhook", "KCNodeClass")
			os.Exit(1)
		}
		// kubectl karpenter's whatif is an aggregated API served beside the webhooks, behind the
		// same Service: the API server names the user, proved by its front-proxy certificate.
		frontProxy, err := explain.NewFrontProxy(kubernetes.NewForConfigOrDie(mgr.GetConfig()))
		if err != nil {
			setupLog.Error(err, "unable to set up whatif's aggregated API")
			os.Exit(1)
		}
		if err := mgr.Add(frontProxy); err != nil {
			setupLog.Error(err, "unable to set up whatif's aggregated API")
			os.Exit(1)
		}
		controllers.WhatIf.Authenticator = frontProxy
		mgr.GetWebhookServer().Register(explain.Path, controllers.WhatIf)
		mgr.GetWebhookServer().Register(explain.GroupVersionPath, http.HandlerFunc(explain.Discovery))
		mgr.GetWebhookServer().Register("/apis/"+explain.Group, http.HandlerFunc(explain.Discovery))
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", readyCheck); err != nil {
		setupLog.Error(err, "unable to set up ready check")
		os.Exit(1)
	}

	setupLog.Info("starting manager")
	if err := mgr.Start(ctx); err != nil {
		setupLog.Error(err, "problem running manager")
		os.Exit(1)
	}
}
