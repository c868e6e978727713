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

package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/operatorcondition"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/simulation"
)

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

	cloud              cloudOptions
	nextReleaseMinimum string
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
	schedulerConfig   *simulation.SchedulerConfiguration
	featureGateNotes  []string
	policies          simulation.Policies

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

// cloudOptions are the settings the manager and preflight share: which cluster, where
// KakaoCloud is, and the Secrets that hold the access key and the signing keys.
type cloudOptions struct {
	clusterName       string
	region            string
	endpoints         endpointFlag
	credentialsSecret string
	keyringSecret     string
}

// addFlags registers the cloud flags on fs, each defaulting to its environment variable (OLM's
// Subscription config and Helm values set environment variables, not arguments).
func (c *cloudOptions) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.clusterName, "cluster-name", os.Getenv("CLUSTER_NAME"),
		"Name of the Kubernetes Engine cluster this controller serves (env CLUSTER_NAME).")
	fs.StringVar(&c.region, "kakaocloud-region", envOr("KAKAOCLOUD_REGION", kakaocloud.DefaultRegion),
		"KakaoCloud region of the cluster (env KAKAOCLOUD_REGION).")
	c.endpoints = endpointFlag{}
	fs.Var(c.endpoints, "kakaocloud-endpoint",
		"Override a KakaoCloud service's base URL, as service=url (repeatable; env KAKAOCLOUD_ENDPOINTS, comma-separated); services: "+
			strings.Join(kakaocloud.Services, ", ")+". Without one, a service's URL is the one KakaoCloud's configuration service gives.")
	fs.StringVar(&c.credentialsSecret, "credentials-secret", envOr("CREDENTIALS_SECRET", "karpenter-kakaocloud-credentials"),
		"Secret in the controller's namespace holding the IAM access key (keys access-key-id and secret-access-key); "+
			"updating it rotates the key without a restart.")
	fs.StringVar(&c.keyringSecret, "signing-keyring-secret", envOr("SIGNING_KEYRING_SECRET", "karpenter-kakaocloud-signing-keys"),
		"Secret in the controller's namespace holding the keys that sign VM ownership markers (activeKeyID and keys.<id>).")
}

// parseFlags parses args into fs, after the environment variables that stand for some flags
// (envFlags): those come first, so that a flag given on the command line overrides them.
func parseFlags(fs *flag.FlagSet, args []string, envFlags map[string]string) error {
	for env, name := range envFlags {
		v := os.Getenv(env)
		if v == "" {
			continue
		}
		// A list in one variable, as KAKAOCLOUD_ENDPOINTS, is given to its flag one item at a time.
		values := []string{v}
		if name == "kakaocloud-endpoint" {
			values = strings.Split(v, ",")
		}
		for _, value := range values {
			if err := fs.Set(name, strings.TrimSpace(value)); err != nil {
				return fmt.Errorf("invalid %s %q: %w", env, value, err)
			}
		}
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("parsing the command line: %w", err)
	}
	return nil
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

// parseOptions registers the manager's flags on fs, parses args (and the environment variables
// that stand for flags) and checks the result. The notes are settings allowed but worth a
// warning in the log.
func parseOptions(fs *flag.FlagSet, args []string) (options, zap.Options, error) {
	var o options
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "The address the metrics endpoint binds to. "+
		"Use :8443 for HTTPS or :8080 for HTTP, or leave as 0 to disable the metrics service.")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "The address the probe endpoint binds to.")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "", "The address Go's profiles (net/http/pprof) are served on, without authentication, "+
		"so a loopback one, e.g. 127.0.0.1:6060 (reached with kubectl port-forward); empty, the default, serves none.")
	fs.BoolVar(&o.enableProfiling, "enable-profiling", false, "Also serve Go's profiles on the metrics endpoint, under /debug/pprof/, "+
		"behind its authentication, as upstream Karpenter's flag of that name does. With --metrics-secure=false it is refused "+
		"unless the metrics endpoint is bound to a loopback address.")
	// Upstream Karpenter's flags and defaults, above client-go's own (20 and 30 a second),
	// which every controller and the event recorder share.
	fs.IntVar(&o.kubeClientQPS, "kube-client-qps", 200, "The smoothed rate of requests to the API server, per second.")
	fs.IntVar(&o.kubeClientBurst, "kube-client-burst", 300, "The most requests to the API server at once, above the smoothed rate.")
	fs.BoolVar(&o.enableLeaderElection, "leader-elect", false,
		"Enable leader election so that only one replica of the controller is active.")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "",
		"Namespace of the leader election lease; defaults to the namespace the manager runs in.")
	fs.BoolVar(&o.secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS with authentication and authorization. Use --metrics-secure=false for HTTP.")
	fs.StringVar(&o.webhookCertPath, "webhook-cert-path", "", "The directory that contains the webhook certificate.")
	fs.StringVar(&o.webhookAddr, "webhook-bind-address", ":9443", "The address the webhook server binds to, host:port (host empty for every interface).")
	fs.StringVar(&o.webhookCertName, "webhook-cert-name", "tls.crt", "The name of the webhook certificate file.")
	fs.StringVar(&o.webhookCertKey, "webhook-cert-key", "tls.key", "The name of the webhook key file.")
	fs.StringVar(&o.metricsCertPath, "metrics-cert-path", "",
		"The directory that contains the metrics server certificate.")
	fs.StringVar(&o.metricsCertName, "metrics-cert-name", "tls.crt", "The name of the metrics server certificate file.")
	fs.StringVar(&o.metricsCertKey, "metrics-cert-key", "tls.key", "The name of the metrics server key file.")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"Serve the metrics and webhook servers over HTTP/2 (off by default: HTTP/2 Stream Cancellation and Rapid Reset CVEs).")
	o.cloud.addFlags(fs)
	fs.StringVar(&o.nextReleaseMinimum, "next-release-min-kubernetes-version",
		envOr("NEXT_RELEASE_MIN_KUBERNETES_VERSION", operatorcondition.DefaultNextReleaseMinimum),
		"The oldest Kubernetes minor the next release of this operator supports: under OLM, upgrading is held "+
			"(Upgradeable=False) while a KCNodeClass or its nodes are older (env NEXT_RELEASE_MIN_KUBERNETES_VERSION).")
	fs.DurationVar(&o.catalogTTL, "catalog-ttl", catalog.DefaultCatalogTTL,
		"how long flavors, versions, worker images, subnets and security groups read from KakaoCloud are reused before they are read again")
	// Shaped as upstream Karpenter's kube-client flags: one bucket for each KakaoCloud service.
	fs.Float64Var(&o.kakaoCloudCalls.qps, "kakaocloud-client-qps", kakaocloud.DefaultRateLimit.QPS,
		"The smoothed rate of calls to each KakaoCloud service (compute, network, Kubernetes Engine, IAM), per second.")
	fs.IntVar(&o.kakaoCloudCalls.burst, "kakaocloud-client-burst", kakaocloud.DefaultRateLimit.Burst,
		"The most calls to each KakaoCloud service at once, above the smoothed rate.")
	fs.DurationVar(&o.kakaoCloudCalls.callTimeout, "kakaocloud-call-timeout", kakaocloud.DefaultCallTimeout,
		"The longest one call to KakaoCloud may take, its retries included; a create that has no answer by then is looked for before it is made again.")
	fs.DurationVar(&o.kakaoCloudCalls.maxRetryAfter, "kakaocloud-max-retry-after", kakaocloud.DefaultMaxRetryAfter,
		"The longest wait honoured from KakaoCloud's Retry-After: a throttled call is made again after at most this long, "+
			"by the next pass of its controller when the wait does not fit in the call.")
	fs.DurationVar(&o.bootstrapTokenTTL, "bootstrap-token-ttl", bootstrap.DefaultTokenTTL,
		"How long each NodeClaim's bootstrap token is valid: the credential in its VM's user data that registers a node. "+
			"A token is deleted once its node registers or its NodeClaim goes; this bounds one whose deletion was missed. "+
			"The default is the launch timeout plus the registration timeout, as long as a NodeClaim may still become a node. "+
			"Must be positive; shorter than the default is allowed, with a warning: a node slower to join than its token lives "+
			"does not register, and its NodeClaim is replaced at the registration timeout.")
	fs.DurationVar(&o.batchIdle, "batch-idle-duration", time.Second,
		"How long provisioning waits for another pending pod after the last new one before it schedules the batch; a pod seen again does not extend it.")
	fs.DurationVar(&o.batchMax, "batch-max-duration", 10*time.Second,
		"The longest provisioning waits to schedule a batch of pending pods.")
	fs.DurationVar(&o.disruptionPoll, "disruption-poll-interval", disruption.DefaultPollInterval,
		"How often the disruption controller looks for nodes to remove or replace (emptiness, drift, consolidation).")
	fs.DurationVar(&o.disruptionValidation, "consolidation-validation-delay", engine.DefaultValidationDelay,
		"How long a consolidation decision waits before it is checked again and carried out.")
	fs.BoolVar(&o.nodeRepair, "node-repair", true,
		"Replace nodes the repair policies find unhealthy (NotReady too long, or a VM KakaoCloud reports failed or stopped), "+
			"within the NodePools' disruption budgets of reason Unhealthy, a replacement first; "+
			"a NodePool's spec.disruption.repair.maxUnhealthy holds it while too many of its nodes are unhealthy.")
	fs.BoolVar(&o.legacyNodeRepair, "legacy-node-repair", false,
		"Repair as before upstream Karpenter v1.15: every unhealthy node's NodeClaim is deleted at once, its pods deleted without waiting, "+
			"not paced by disruption budgets and no replacement first.")
	fs.DurationVar(&o.repairTolerations.NotReady, "repair-not-ready-toleration", kakao.DefaultNotReadyToleration,
		"How long a node may be NotReady (Ready False or Unknown) before node repair replaces it.")
	fs.DurationVar(&o.repairTolerations.InstanceFailed, "repair-instance-failed-toleration", kakao.DefaultInstanceFailedToleration,
		"How long a node may be NotReady while KakaoCloud reports its VM in error or stopped before node repair replaces it.")
	o.featureGates = operator.DefaultFeatureGates()
	fs.Func("feature-gates", operator.FeatureGatesHelp(), func(v string) error {
		gates, notes, err := operator.ParseFeatureGates(v)
		o.featureGates, o.featureGateNotes = gates, notes
		return err //nolint:wrapcheck // shown as `invalid value "..." for flag -feature-gates: <err>` (parseFlags: `invalid FEATURE_GATES "...": <err>`)
	})
	choiceFlag(fs, "preference-policy", "How the scheduling simulation treats preferences (preferred node and pod (anti-)affinity, "+
		"ScheduleAnyway topology spreads, PreferNoSchedule taints): Respect (default) honours them first and relaxes them one at a time, "+
		"Ignore drops them, as upstream Karpenter's flag.", []string{"Respect", "Ignore"},
		func(v string) { o.policies.IgnorePreferences = v == "Ignore" })
	choiceFlag(fs, "min-values-policy", "What a NodePool's minValues does when the instance types that fit cannot meet it: "+
		"Strict (default) leaves the pods pending, BestEffort launches with as many values as there are and annotates the NodeClaim "+
		"karpenter.sh/nodeclaim-min-values-relaxed, as upstream Karpenter's flag.", []string{"Strict", "BestEffort"},
		func(v string) { o.policies.MinValuesBestEffort = v == "BestEffort" })
	fs.Func("scheduler-config", "A YAML or JSON document with the part of the cluster's kube-scheduler configuration the scheduling "+
		"simulation mirrors, as upstream Karpenter's flag: podTopologySpread.defaultConstraints, given to pods without topology spread "+
		"constraints of their own with the selector the kube-scheduler deduces for them. Empty: none.", func(v string) error {
		config, err := simulation.ParseSchedulerConfiguration(v)
		o.schedulerConfig = config
		return err //nolint:wrapcheck // shown as `invalid value "..." for flag -scheduler-config: <err>` (parseFlags: `invalid SCHEDULER_CONFIG "...": <err>`)
	})
	zapOpts := zap.Options{
		Development: false,
		TimeEncoder: zapcore.ISO8601TimeEncoder,
	}
	zapOpts.BindFlags(fs)
	// Upstream Karpenter's environment variables for its flags, and ours for the cloud's.
	if err := parseFlags(fs, args, map[string]string{"FEATURE_GATES": "feature-gates", "PREFERENCE_POLICY": "preference-policy",
		"MIN_VALUES_POLICY": "min-values-policy", "SCHEDULER_CONFIG": "scheduler-config", "KUBE_CLIENT_QPS": "kube-client-qps",
		"KUBE_CLIENT_BURST": "kube-client-burst", "KAKAOCLOUD_ENDPOINTS": "kakaocloud-endpoint"}); err != nil {
		return o, zapOpts, err
	}
	notes, err := checkOptions(o)
	if err != nil {
		return o, zapOpts, fmt.Errorf("checking the flags: %w", err)
	}
	o.flagNotes = notes
	return o, zapOpts, nil
}

// choiceFlag defines a flag on fs that takes one of choices, and calls set with it.
func choiceFlag(fs *flag.FlagSet, name, usage string, choices []string, set func(string)) {
	fs.Func(name, usage, func(v string) error {
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
