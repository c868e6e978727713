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

package e2e

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// perfRow is one measured phase of a performance scenario.
type perfRow struct {
	scenario string
	pods     int
	// seconds is the phase's time, measured as what says.
	seconds float64
	what    string
	// nodes are the pool's nodes at the end; nodeBound is the fewest that could hold the pods'
	// requests (the larger of their CPU and memory over the largest allowed type's allocatable).
	nodes, nodeBound int
	// launched counts the NodeClaims launched during the phase (the operator's
	// karpenter_nodeclaims_launched_total); creates and calls are the KakaoCloud calls the
	// emulator received: VM creates, and every call.
	launched, creates, calls int
	peakRSSMiB, meanCPU      float64
	// cost is what the nodes cost (each at its offering's relative price), costBound the
	// least any nodes of the allowed types holding the pods' requests could cost.
	cost, costBound float64
	// cpuUtil and memUtil are the pods' requests over the nodes' allocatable.
	cpuUtil, memUtil float64
}

var (
	perfRowsMu sync.Mutex
	perfRows   []perfRow
)

// The table of every phase measured, for docs/benchmarks.md.
var _ = ReportAfterSuite("performance figures", func(Report) {
	perfRowsMu.Lock()
	defer perfRowsMu.Unlock()
	if len(perfRows) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("perf: | phase | pods | time | nodes (bound) | launched | VM creates per launch | KakaoCloud calls per launch | operator peak RSS | operator mean CPU | cost (lower bound) | cost/bound | requests/allocatable CPU, memory |\n")
	b.WriteString("perf: |---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range perfRows {
		perLaunch := func(n int) string {
			if r.launched == 0 {
				return fmt.Sprintf("%d calls, no launch", n)
			}
			return fmt.Sprintf("%.2f", float64(n)/float64(r.launched))
		}
		fmt.Fprintf(&b, "perf: | %s | %d | %.1f s (%s) | %d (%d) | %d | %s | %s | %.0f MiB | %.2f cores | %.1f (%.1f) | %.3f | %.0f %%, %.0f %% |\n",
			r.scenario, r.pods, r.seconds, r.what, r.nodes, r.nodeBound, r.launched, perLaunch(r.creates), perLaunch(r.calls),
			r.peakRSSMiB, r.meanCPU, r.cost, r.costBound, r.cost/r.costBound, 100*r.cpuUtil, 100*r.memUtil)
	}
	fmt.Fprint(os.Stderr, b.String())
})

// perfMeter measures the operator process and the KakaoCloud calls over one phase, and checks
// that no VM name had two VMs while it lasted.
type perfMeter struct {
	pool     string
	pid      int
	started  time.Time
	cpu      time.Duration
	calls    emulator.AdminCalls
	launched float64
	ledger   vmNameLedger
	stop     func()
}

// startPerfMeter starts measuring a phase of the pool: it resets the operator's peak RSS
// (Linux resets a process's VmHWM when 5 is written to its clear_refs) and notes its CPU time
// and the KakaoCloud calls so far.
func startPerfMeter(pool string) *perfMeter {
	GinkgoHelper()
	pids := operatorPIDs()
	Expect(pids).To(HaveLen(1), "one operator process")
	m := &perfMeter{pool: pool, pid: pids[0], started: time.Now(), ledger: vmNameLedger{}}
	Expect(os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", m.pid), []byte("5"), 0)).To(Succeed(), "resetting the operator's peak RSS")
	m.cpu = processCPU(m.pid)
	m.calls = emulatorCounts(Default)
	m.launched = operatorMetricSum(Default, "karpenter_nodeclaims_launched_total", fmt.Sprintf("nodepool=%q", pool))
	var mu sync.Mutex
	m.stop = sampleEvery(2*time.Second, func(time.Time) {
		if listed, err := listVMs(); err == nil {
			mu.Lock()
			m.ledger.record(listed)
			mu.Unlock()
		}
	})
	return m
}

// finish ends the phase, checks what must hold whatever the figures (no VM name had two VMs,
// every VM belongs to a NodeClaim and every NodeClaim has one, at most one VM create per
// launched NodeClaim), and records the row.
func (m *perfMeter) finish(scenario string, elapsed time.Duration, what string) {
	GinkgoHelper()
	m.stop()
	wall := time.Since(m.started)
	row := perfRow{scenario: scenario, seconds: elapsed.Seconds(), what: what}
	row.meanCPU = (processCPU(m.pid) - m.cpu).Seconds() / wall.Seconds()
	row.peakRSSMiB = float64(processStatusKiB(m.pid, "VmHWM")) / 1024
	calls := emulatorCounts(Default)
	for op, n := range calls.Calls {
		row.calls += n - m.calls.Calls[op]
	}
	row.creates = calls.Calls[emulator.OpCreateInstance] - m.calls.Calls[emulator.OpCreateInstance]
	row.launched = int(operatorMetricSum(Default, "karpenter_nodeclaims_launched_total", fmt.Sprintf("nodepool=%q", m.pool)) - m.launched)

	Expect(m.ledger.doubled()).To(BeEmpty(), "no VM name had two VMs")
	Eventually(func(g Gomega) []string { return vmAccounting(g, nil) }).Should(BeEmpty(), "every VM has its NodeClaim and every NodeClaim its VM")
	Expect(row.creates).To(BeNumerically("<=", row.launched), "at most one VM create per launched NodeClaim")

	nodes := nodesOf(m.pool)(Default)
	types := poolInstanceTypes(m.pool)
	pods := &corev1.PodList{}
	Expect(kube.List(ctx, pods)).To(Succeed())
	onNode := map[string]bool{}
	var allocCPU, allocMem float64
	for _, n := range nodes {
		onNode[n.Name] = true
		allocCPU += float64(n.Status.Allocatable.Cpu().MilliValue()) / 1000
		allocMem += float64(n.Status.Allocatable.Memory().Value()) / (1 << 30)
		row.cost += nodePrice(types, n)
	}
	var cpu, gib float64
	for i := range pods.Items {
		if p := &pods.Items[i]; onNode[p.Spec.NodeName] && p.DeletionTimestamp.IsZero() {
			requests := resources.PodRequests(p)
			cpu += float64(requests.Cpu().MilliValue()) / 1000
			gib += float64(requests.Memory().Value()) / (1 << 30)
			row.pods++
		}
	}
	row.nodes = len(nodes)
	row.cpuUtil, row.memUtil = cpu/allocCPU, gib/allocMem
	row.costBound = workload.LowerBound(types, cpu, gib)
	var maxCPU, maxGiB float64
	for _, it := range types {
		alloc := it.Allocatable()
		maxCPU = math.Max(maxCPU, float64(alloc.Cpu().MilliValue())/1000)
		maxGiB = math.Max(maxGiB, float64(alloc.Memory().Value())/(1<<30))
	}
	row.nodeBound = int(math.Max(math.Ceil(cpu/maxCPU), math.Ceil(gib/maxGiB)))

	fmt.Fprintf(os.Stderr, "perf: %s: %d pods, %.1f s (%s), %d nodes (bound %d), %d launched, %d VM creates, %d KakaoCloud calls, peak RSS %.0f MiB, mean CPU %.2f cores, cost %.1f (bound %.1f)\n",
		scenario, row.pods, row.seconds, what, row.nodes, row.nodeBound, row.launched, row.creates, row.calls, row.peakRSSMiB, row.meanCPU, row.cost, row.costBound)
	perfRowsMu.Lock()
	perfRows = append(perfRows, row)
	perfRowsMu.Unlock()
}

// poolInstanceTypes lists the instance types the pool's NodePool allows, as the cloud provider
// lists them for its KCNodeClass.
func poolInstanceTypes(pool string) []*cloudprovider.InstanceType {
	GinkgoHelper()
	nodeClass := &kcv1.KCNodeClass{}
	Expect(kube.Get(ctx, client.ObjectKey{Name: pool}, nodeClass)).To(Succeed())
	nodePool := &karpv1.NodePool{}
	Expect(kube.Get(ctx, client.ObjectKey{Name: pool}, nodePool)).To(Succeed())
	allowed := scheduling.FromNodeClaimRequirements(nodePool.Spec.Template.Spec.Requirements...)
	var types []*cloudprovider.InstanceType
	for _, it := range workload.CatalogInstanceTypes(nodeClass) {
		if scheduling.FromLabels(it.Labels).IsCompatible(allowed) {
			types = append(types, it)
		}
	}
	Expect(types).NotTo(BeEmpty(), "the instance types NodePool %s allows", pool)
	return types
}

// nodePrice is the relative price of the node's offering: its instance type in its zone and
// capacity type.
func nodePrice(types []*cloudprovider.InstanceType, node corev1.Node) float64 {
	GinkgoHelper()
	for _, it := range types {
		if it.Name != node.Labels[corev1.LabelInstanceTypeStable] {
			continue
		}
		for _, of := range it.Offerings {
			if of.Zone == node.Labels[corev1.LabelTopologyZone] && of.CapacityType == node.Labels[karpv1.LabelCapacityType] {
				return of.Price
			}
		}
	}
	Fail(fmt.Sprintf("node %s (%s in %s) is of no offering the NodePool allows", node.Name, node.Labels[corev1.LabelInstanceTypeStable], node.Labels[corev1.LabelTopologyZone]))
	return 0
}

// processCPU is the CPU time the process has used, user and system (fields 14 and 15 of
// /proc/<pid>/stat, in clock ticks of 1/100 s, USER_HZ on every Linux architecture Go builds
// for but alpha).
func processCPU(pid int) time.Duration {
	GinkgoHelper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	Expect(err).NotTo(HaveOccurred())
	// The command name, in parentheses, may hold spaces: the fields are counted after it.
	_, rest, ok := strings.Cut(string(data), ") ")
	Expect(ok).To(BeTrue(), "/proc/%d/stat: %s", pid, data)
	fields := strings.Fields(rest) // fields[0] is field 3, the state
	Expect(len(fields)).To(BeNumerically(">", 12))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	Expect(err).NotTo(HaveOccurred())
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	Expect(err).NotTo(HaveOccurred())
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// processStatusKiB is a kB figure of /proc/<pid>/status, e.g. VmHWM, the peak resident set.
func processStatusKiB(pid int, field string) int64 {
	GinkgoHelper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	Expect(err).NotTo(HaveOccurred())
	for line := range strings.SplitSeq(string(data), "\n") {
		if value, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			Expect(err).NotTo(HaveOccurred(), "%s", line)
			return kib
		}
	}
	Fail(fmt.Sprintf("/proc/%d/status has no %s", pid, field))
	return 0
}

// appPods are the pods of the deployments.
func appPods(g Gomega, apps []*appsv1.Deployment) []corev1.Pod {
	var pods []corev1.Pod
	for _, d := range apps {
		pods = append(pods, podsOf(d.Spec.Template.Labels["app"])(g)...)
	}
	return pods
}

// runningPods counts the deployments' pods that are Running and Ready.
func runningPods(g Gomega, apps []*appsv1.Deployment) int {
	return running(appPods(g, apps))
}

// podTimes returns when the first and the last of the pods were created and when the last
// became Ready, as the API server and the kubelet stamped them (to the second).
func podTimes(pods []corev1.Pod) (firstCreated, lastCreated, lastReady time.Time) {
	for _, p := range pods {
		t := p.CreationTimestamp.Time
		if t.After(lastCreated) {
			lastCreated = t
		}
		if firstCreated.IsZero() || t.Before(firstCreated) {
			firstCreated = t
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.LastTransitionTime.After(lastReady) {
				lastReady = c.LastTransitionTime.Time
			}
		}
	}
	return firstCreated, lastCreated, lastReady
}

func clientMatchingPool(pool string) client.MatchingLabels {
	return client.MatchingLabels{karpv1.LabelNodePool: pool}
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
