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

// Package e2e holds the end-to-end suites: they drive a local cluster (hack/local-up: a real
// control plane, kwok kubelets, the KakaoCloud emulator and this operator, all on loopback)
// the way a user would, through the API server and kubectl, and look at the emulated cloud
// through its admin API. They run when E2E_CLUSTER_DIR names a local cluster's folder
// (make test-e2e sets it) and are skipped otherwise.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// cluster is what hack/local-up wrote to cluster.env.
type clusterEnv struct {
	dir         string
	kubeconfig  string
	kubectl     string
	emulatorURL string
	operatorLog string
	// operatorHealth is the operator's health probe.
	operatorHealth string
	// operatorMetrics is the operator's Prometheus endpoint.
	operatorMetrics string
	// operatorRun runs the operator as the cluster started it (OPERATOR_REPLICA=2: a second
	// replica on ports of its own, whose probe and metrics are the operator2 URLs).
	operatorRun                       string
	operator2Health, operator2Metrics string
	// pids lists the cluster's processes, for hack/local-down to stop.
	pids        string
	clusterName string
	// plugins holds kubectl-karpenter, for kubectl to find as its karpenter command.
	plugins string
	// auditLog is the API server's record of calls to the whatif API and to proxies.
	auditLog string
}

var (
	ctx     = context.Background()
	cluster clusterEnv
	kube    client.Client
)

func TestE2E(t *testing.T) {
	dir := os.Getenv("E2E_CLUSTER_DIR")
	if dir == "" {
		t.Skip("E2E_CLUSTER_DIR is not set: run make test-e2e, which brings up a local cluster")
	}
	var err error
	if cluster, err = readClusterEnv(dir); err != nil {
		t.Fatal(err)
	}
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(3 * time.Minute)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
	SetDefaultConsistentlyDuration(3 * time.Second)
	RunSpecs(t, "End-to-end suite")
}

func readClusterEnv(dir string) (clusterEnv, error) {
	f, err := os.Open(filepath.Join(dir, "cluster.env"))
	if err != nil {
		return clusterEnv{}, fmt.Errorf("%s is not a local cluster's folder (make local-up): %w", dir, err)
	}
	defer func() { _ = f.Close() }()
	values := map[string]string{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			values[k] = v
		}
	}
	env := clusterEnv{
		dir: dir, kubeconfig: values["KUBECONFIG"], kubectl: values["KUBECTL"],
		emulatorURL: values["KAKAOCLOUD_EMULATOR_URL"], operatorLog: values["OPERATOR_LOG"],
		operatorHealth: values["OPERATOR_HEALTH_URL"], operatorMetrics: values["OPERATOR_METRICS_URL"],
		operatorRun: values["OPERATOR_RUN"], operator2Health: values["OPERATOR_2_HEALTH_URL"],
		operator2Metrics: values["OPERATOR_2_METRICS_URL"], pids: values["PIDS"], plugins: values["KUBECTL_PLUGINS"],
		auditLog: values["AUDIT_LOG"],
	}
	if env.kubeconfig == "" || env.kubectl == "" || env.emulatorURL == "" {
		return env, fmt.Errorf("%s/cluster.env lacks KUBECONFIG, KUBECTL or KAKAOCLOUD_EMULATOR_URL", dir)
	}
	return env, scanner.Err()
}

var _ = BeforeSuite(func() {
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	cfg.QPS, cfg.Burst = 50, 100
	kube, err = client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	By("checking that the cluster is empty of this suite's kinds")
	Expect(leftovers(Default)).To(BeEmpty(), "the cluster holds NodePools, NodeClaims or nodes from an earlier run")
	secrets.start()
})

// Every spec leaves the cluster as it found it: this cleanup, registered first, runs after
// the spec's own.
var _ = BeforeEach(func() {
	DeferCleanup(func() {
		Eventually(leftovers).Should(BeEmpty(), "the spec left NodePools, NodeClaims, nodes or VMs behind")
	})
})

// Each spec's time, as it ends; when it failed, what the cluster holds, whether the operator
// runs, and its last log lines.
var _ = ReportAfterEach(func(r SpecReport) {
	fmt.Fprintf(os.Stderr, "e2e: %-7s %6.1fs  %s\n", r.State, r.RunTime.Seconds(), r.FullText())
	if !r.Failed() {
		return
	}
	out, _ := kubectl("get", "nodepools,kcnodeclasses,nodeclaims,nodes", "-o", "wide")
	fmt.Fprintf(os.Stderr, "e2e: the cluster now:\n%s\n", out)
	if cluster.operatorHealth != "" {
		if resp, err := http.Get(cluster.operatorHealth); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: THE OPERATOR DOES NOT ANSWER its health probe: %v\n", err)
		} else {
			_ = resp.Body.Close()
		}
	}
	if cluster.operatorLog != "" {
		if data, err := os.ReadFile(cluster.operatorLog); err == nil {
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			fmt.Fprintf(os.Stderr, "e2e: the operator's last log lines (%s):\n%s\n", cluster.operatorLog, strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	}
})

var _ = ReportAfterSuite("spec durations", func(r Report) {
	specs := r.SpecReports.WithLeafNodeType(types.NodeTypeIt)
	sort.SliceStable(specs, func(i, j int) bool { return specs[i].StartTime.Before(specs[j].StartTime) })
	var b strings.Builder
	fmt.Fprintf(&b, "e2e: %d specs in %.1fs\n", len(specs), r.RunTime.Seconds())
	for _, s := range specs {
		fmt.Fprintf(&b, "e2e:   %-7s %6.1fs  %s\n", s.State, s.RunTime.Seconds(), s.FullText())
	}
	fmt.Fprint(os.Stderr, b.String())
})
