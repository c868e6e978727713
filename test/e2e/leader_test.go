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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// leaderSample is the leader-election metric of the operator's manager, with its lease's name.
const leaderSample = `leader_election_master_status{name="karpenter-leader-election.karpenter.kakaocloud.com"}`

var _ = Describe("Two replicas with leader election", Label("leader-election"), func() {
	It("hand over when the leader is killed in the middle of launches and of a disruption: no VM made twice, no node left tainted karpenter.sh/disrupted", func() {
		DeferCleanup(restoreOperator)
		By("running two replicas with leader election on, as the production overlay does")
		for _, pid := range operatorPIDs() {
			killOperator(pid)
		}
		replicas := map[int]int{1: startOperator(1, "--leader-elect=true"), 2: startOperator(2, "--leader-elect=true")}
		leader := waitForLeader(0)
		fmt.Fprintf(GinkgoWriter, "replica %d leads\n", leader)

		ledger := vmNameLedger{}
		var ledgerMu sync.Mutex
		stopLedger := sampleEvery(250*time.Millisecond, func(time.Time) {
			if listed, err := listVMs(); err == nil {
				ledgerMu.Lock()
				defer ledgerMu.Unlock()
				ledger.record(listed)
			}
		})
		DeferCleanup(stopLedger)

		createPool("leader", fourCPUNodes(karpv1.Disruption{
			ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
			ConsolidateAfter:    karpv1.MustParseNillableDuration("5s"),
			Budgets:             []karpv1.Budget{{Nodes: "100%"}},
		}))

		By("killing the leader while its creates are in flight")
		// Slow creates keep launches in flight long enough to kill the leader during them.
		emulatorAdmin("POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": "3s"})
		DeferCleanup(emulatorAdmin, "POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": "0s"})
		creates := emulatorCalls(Default, emulator.OpCreateInstance)
		createDeployment("leader", 9, poolPod("leader", "leader", "1"))
		Eventually(func(g Gomega) int { return emulatorCalls(g, emulator.OpCreateInstance) }).Should(BeNumerically(">", creates), "a create is under way")
		Eventually(func(g Gomega) []karpv1.NodeClaim { return claimsOf("leader")(g) }).ShouldNot(BeEmpty())
		unlaunched := 0
		for _, claim := range claimsOf("leader")(Default) {
			if claim.Status.ProviderID == "" {
				unlaunched++
			}
		}
		Expect(unlaunched).To(BeNumerically(">", 0), "a NodeClaim is still being launched when the leader is killed")
		killOperator(replicas[leader])
		killedAt := time.Now()
		leader = handOver(replicas, leader)
		fmt.Fprintf(GinkgoWriter, "replica %d leads %.1f s after the kill, with %d NodeClaims unlaunched at the kill\n", leader, time.Since(killedAt).Seconds(), unlaunched)
		// A create cut off by the kill makes its NodeClaim look for the VM it may have made for
		// the lookup window (2 minutes) before creating again.
		Eventually(func(g Gomega) int { return running(podsOf("leader")(g)) }, 5*time.Minute).Should(Equal(9), "every pod Running after the hand-over")
		Eventually(vmAccounting).WithArguments([]foreignVM(nil)).Should(BeEmpty(), "every NodeClaim has one VM and every VM its NodeClaim")

		By("killing the leader once it has tainted a node for consolidation")
		emulatorAdmin("POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": "0s"})
		scaled, err := kubectl("-n", namespace, "scale", "deployment", "leader", "--replicas=2")
		Expect(err).NotTo(HaveOccurred(), scaled)
		Eventually(func(g Gomega) []string {
			var tainted []string
			for _, node := range nodesOf("leader")(g) {
				if disrupted(node) {
					tainted = append(tainted, node.Name)
				}
			}
			return tainted
		}, 3*time.Minute, 100*time.Millisecond).ShouldNot(BeEmpty(), "a node is tainted karpenter.sh/disrupted")
		killOperator(replicas[leader])
		killedAt = time.Now()
		leader = handOver(replicas, leader)
		fmt.Fprintf(GinkgoWriter, "replica %d leads %.1f s after the kill during a disruption\n", leader, time.Since(killedAt).Seconds())
		// The new leader either carries the command out (the node goes) or takes the taint
		// off; no node stays tainted and in service.
		stuck := func(g Gomega) []string {
			var stuck []string
			for _, node := range nodesOf("leader")(g) {
				if disrupted(node) && node.DeletionTimestamp.IsZero() {
					stuck = append(stuck, node.Name)
				}
			}
			return stuck
		}
		Eventually(stuck, 3*time.Minute).Should(BeEmpty(), "no node stays tainted karpenter.sh/disrupted without a command")
		Eventually(func(g Gomega) int { return running(podsOf("leader")(g)) }).Should(Equal(2))
		Eventually(vmAccounting).WithArguments([]foreignVM(nil)).Should(BeEmpty(), "every NodeClaim has one VM and every VM its NodeClaim")

		stopLedger()
		ledgerMu.Lock()
		defer ledgerMu.Unlock()
		Expect(ledger.doubled()).To(BeEmpty(), "no NodeClaim's VM name had two VMs")
		fmt.Fprintf(GinkgoWriter, "%d VM names seen, none with two VMs\n", len(ledger))
	})
})

// waitForLeader returns the replica (1 or 2) whose manager holds the lease, other than the
// one named not (0: either).
func waitForLeader(not int) int {
	GinkgoHelper()
	urls := map[int]string{1: cluster.operatorMetrics, 2: cluster.operator2Metrics}
	var leader int
	Eventually(func(g Gomega) int {
		leader = 0
		for replica, url := range urls {
			if replica == not {
				continue
			}
			if value, ok, err := scrape(url, leaderSample); err == nil && ok && value == "1" {
				leader = replica
			}
		}
		return leader
	}, 2*time.Minute, 250*time.Millisecond).ShouldNot(BeZero(), "a replica other than %d holds the lease", not)
	return leader
}

// handOver waits for the standby to take the lease from the killed leader, then starts the
// killed replica again, as its Deployment would, and returns the new leader.
func handOver(replicas map[int]int, killed int) int {
	GinkgoHelper()
	leader := waitForLeader(killed)
	replicas[killed] = startOperator(killed, "--leader-elect=true")
	return leader
}
