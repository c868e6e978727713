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
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The operator's processes, which the soak and the leader-election specs kill and start again
// as a Deployment's pods would be: killed without warning, started with the same command.

// operatorProcess is an operator process this suite started: it is its parent, so it reaps it.
type operatorProcess struct {
	flags  []string
	exited chan struct{}
}

var (
	operatorsMu sync.Mutex
	// startedOperators are the processes this suite started, by process id.
	startedOperators = map[int]*operatorProcess{}
)

// operatorPIDs returns the ids of the operator processes that run, oldest first: the one
// hack/local-up started and those this suite started, all listed in the cluster's pids file.
func operatorPIDs() []int {
	GinkgoHelper()
	data, err := os.ReadFile(cluster.pids)
	Expect(err).NotTo(HaveOccurred(), "cluster.env names the pids file (PIDS)")
	var pids []int
	for line := range strings.SplitSeq(string(data), "\n") {
		name, value, _ := strings.Cut(line, " ")
		if pid, err := strconv.Atoi(strings.TrimSpace(value)); err == nil && name == "operator" && operatorAlive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// operatorAlive reports whether the process runs. A child of this suite that exited is a
// zombie until reaped, which signal 0 still reaches, so those are asked of their Wait instead.
func operatorAlive(pid int) bool {
	operatorsMu.Lock()
	started, ours := startedOperators[pid]
	operatorsMu.Unlock()
	if ours {
		select {
		case <-started.exited:
			return false
		default:
			return true
		}
	}
	return syscall.Kill(pid, 0) == nil
}

// killOperator kills the process with SIGKILL, as a node failure or an OOM kill would, and
// waits until it is gone.
func killOperator(pid int) {
	GinkgoHelper()
	Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed(), "killing operator process %d", pid)
	Eventually(operatorAlive, 30*time.Second, 50*time.Millisecond).WithArguments(pid).Should(BeFalse(), "operator process %d exits", pid)
}

// startOperator starts the operator as replica 1 or 2 with flags added to the cluster's own,
// its output appended to the operator's log, lists it in the pids file (so that
// hack/local-down stops it) and waits until its health probe answers.
func startOperator(replica int, flags ...string) int {
	GinkgoHelper()
	Expect(cluster.operatorRun).NotTo(BeEmpty(), "cluster.env names OPERATOR_RUN")
	logFile, err := os.OpenFile(cluster.operatorLog, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = logFile.Close() }()
	cmd := exec.Command(cluster.operatorRun, flags...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("OPERATOR_REPLICA=%d", replica))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: an interrupt of the suite does not reach it, hack/local-down
	// stops it like the cluster's other processes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	Expect(cmd.Start()).To(Succeed())
	started := &operatorProcess{flags: flags, exited: make(chan struct{})}
	operatorsMu.Lock()
	startedOperators[cmd.Process.Pid] = started
	operatorsMu.Unlock()
	go func() {
		_ = cmd.Wait()
		close(started.exited)
	}()
	pids, err := os.OpenFile(cluster.pids, os.O_APPEND|os.O_WRONLY, 0o644)
	Expect(err).NotTo(HaveOccurred())
	_, err = fmt.Fprintf(pids, "operator %d\n", cmd.Process.Pid)
	Expect(err).NotTo(HaveOccurred())
	Expect(pids.Close()).To(Succeed())

	health := cluster.operatorHealth
	if replica == 2 {
		health = cluster.operator2Health
	}
	Eventually(func(g Gomega) {
		g.Expect(operatorAlive(cmd.Process.Pid)).To(BeTrue(), "the operator exited; see %s", cluster.operatorLog)
		resp, err := http.Get(health)
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}, time.Minute).Should(Succeed(), "operator replica %d answers its health probe", replica)
	return cmd.Process.Pid
}

// restoreOperator leaves the cluster as hack/local-up made it: one operator, replica 1,
// without leader election.
func restoreOperator() {
	GinkgoHelper()
	running := operatorPIDs()
	if len(running) == 1 {
		operatorsMu.Lock()
		started, ours := startedOperators[running[0]]
		operatorsMu.Unlock()
		if !ours || len(started.flags) == 0 {
			return
		}
	}
	for _, pid := range running {
		killOperator(pid)
	}
	startOperator(1)
}
