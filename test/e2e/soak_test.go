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
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instance"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/signing"
)

// The fault soak (SPEC S26–S29): cycles of scale-up, drift and scale-down while KakaoCloud
// misbehaves and the operator is killed, watched throughout for what must never happen.
// E2E_SOAK_SEED repeats a run's plan (which faults, how strong, when the operator is killed);
// E2E_SOAK_CYCLES sets the number of cycles (3 by default).
const (
	soakPool = "soak"
	// soakMinAvailable is the PDB's minAvailable while the replicas change; every cycle keeps
	// more replicas than that. While nodes drift it is one less than the replicas.
	soakMinAvailable = 3
	// soakCycleLabel is the NodePool template label each cycle changes, which drifts every node.
	soakCycleLabel = "soak.example.com/cycle"
	// soakDriftKills is how long into a drift the operator is still killed. A kill costs more
	// than its restart: a create it cuts short is in doubt for the lookup window (two minutes,
	// docs/assumptions.md A6) and a drift whose pods would go to that NodeClaim waits for it,
	// and the commands under way and the offerings found without capacity are forgotten, as
	// upstream Karpenter's, which keeps them in memory too. Kills every 20 to 60 s can so hold
	// a drift back for as long as they go on; the drift must then finish within the rest of
	// its ten minutes.
	soakDriftKills = 4 * time.Minute
)

var _ = Describe("Fault soak", Label("soak"), func() {
	It("leaks no VM, makes none twice, deletes none that is not its own, breaks no PDB and runs every pod, through scale-up, drift and scale-down under KakaoCloud faults and operator kills", func() {
		seed := soakSetting("E2E_SOAK_SEED", uint64(time.Now().UnixNano()))
		cycles := int(soakSetting("E2E_SOAK_CYCLES", 3))
		fmt.Fprintf(GinkgoWriter, "soak: seed %d, %d cycles (E2E_SOAK_SEED=%d repeats this plan)\n", seed, cycles, seed)
		plan := rand.New(rand.NewPCG(seed, 0x50a4))
		started := time.Now()
		DeferCleanup(clearSoakFaults)
		DeferCleanup(restoreOperator)

		// Nodes of three families: a shortage of one flavor leaves others.
		createPool(soakPool, fourCPUNodes(karpv1.Disruption{
			ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
			ConsolidateAfter:    karpv1.MustParseNillableDuration("10s"),
			Budgets:             []karpv1.Budget{{Nodes: "50%"}},
		}))
		template := poolPod(soakPool, soakPool, "1")
		createDeployment(soakPool, soakMinAvailable+1, template)
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: soakPool, Namespace: namespace},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: new(intstr.FromInt32(soakMinAvailable)),
				Selector:     &metav1.LabelSelector{MatchLabels: template.Labels},
			},
		}
		Expect(kube.Create(ctx, pdb)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pdb))).To(Succeed()) })
		Eventually(func(g Gomega) int { return running(podsOf(soakPool)(g)) }).Should(Equal(soakMinAvailable + 1))

		By("adding VMs that are not this cluster's: unsigned, signed for another cluster, and signed for this one with the description edited")
		foreign := createForeignVMs()
		watch := watchSoak(foreign)
		DeferCleanup(func() {
			if CurrentSpecReport().Failed() {
				fmt.Fprintf(GinkgoWriter, "soak: failed; the watcher saw %+v\n", watch())
			}
		})
		// Counted from here: the soak's own VMs and calls so far are not the operator's.
		baseline := emulatorCounts(Default)

		var kills []int
		replicas := int32(soakMinAvailable + 1)
		deck := &faultDeck{plan: plan, dealt: sets.New[int]()}
		for cycle := 1; cycle <= cycles; cycle++ {
			By(fmt.Sprintf("cycle %d: injecting faults", cycle))
			for _, what := range deck.deal() {
				fmt.Fprintf(GinkgoWriter, "soak: cycle %d: %s\n", cycle, what)
			}
			stopKiller := killOperatorEvery(rand.New(rand.NewPCG(plan.Uint64(), 0)))

			up := int32(6 + plan.IntN(7))
			By(fmt.Sprintf("cycle %d: scaling up to %d pods", cycle, up))
			scaleSoak(up)
			Eventually(func(g Gomega) int { return running(podsOf(soakPool)(g)) }, 6*time.Minute).Should(Equal(int(up)), "every pod Running after the scale-up")

			By(fmt.Sprintf("cycle %d: drifting every node (a new template label), the PDB letting one pod at a time go", cycle))
			setMinAvailable(pdb, up-1)
			value := strconv.Itoa(cycle)
			update(&karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: soakPool}}, func(p *karpv1.NodePool) {
				p.Spec.Template.Labels = map[string]string{soakCycleLabel: value}
			})
			quiet := time.AfterFunc(soakDriftKills, func() {
				fmt.Fprintf(GinkgoWriter, "soak: cycle %d: the drift goes on after %s; the operator is no longer killed in this cycle\n", cycle, soakDriftKills)
				stopKiller()
			})
			Eventually(func(g Gomega) {
				for _, node := range nodesOf(soakPool)(g) {
					g.Expect(node.Labels).To(HaveKeyWithValue(soakCycleLabel, value), "node %s is replaced", node.Name)
				}
				g.Expect(running(podsOf(soakPool)(g))).To(Equal(int(up)))
			}, 10*time.Minute).Should(Succeed(), func() string { return "every node replaced by drift, every pod Running; " + driftLeft(value) })
			quiet.Stop()

			setMinAvailable(pdb, soakMinAvailable)
			replicas = int32(soakMinAvailable + 1 + plan.IntN(2))
			By(fmt.Sprintf("cycle %d: scaling down to %d pods, and letting consolidation act", cycle, replicas))
			scaleSoak(replicas)
			Eventually(func(g Gomega) int { return running(podsOf(soakPool)(g)) }, 3*time.Minute).Should(Equal(int(replicas)))
			time.Sleep(time.Duration(15+plan.IntN(16)) * time.Second)

			kills = append(kills, stopKiller())
			clearSoakFaults()
		}

		By("with the faults cleared: every pod Running, every VM accounted for")
		restoreOperator()
		Eventually(func(g Gomega) int { return running(podsOf(soakPool)(g)) }, 3*time.Minute).Should(Equal(int(replicas)))
		// Leaked VMs are collected every two minutes, after a grace of 30 s.
		Eventually(vmAccounting, 5*time.Minute, time.Second).WithArguments(foreign).Should(BeEmpty(), "every VM has its NodeClaim and every NodeClaim its VM")
		findings := watch()
		unaccounted := vmAccounting(Default, foreign)
		counts := emulatorCounts(Default)
		launched := counts.Created - baseline.Created

		fmt.Fprintf(GinkgoWriter, "soak: %d cycles in %.0f s, seed %d\n", cycles, time.Since(started).Seconds(), seed)
		restarts := 0
		for _, n := range kills {
			restarts += n
		}
		fmt.Fprintf(GinkgoWriter, "soak: operator killed and restarted %d times (%v by cycle)\n", restarts, kills)
		fmt.Fprintf(GinkgoWriter, "soak: %d VMs created for %d NodeClaims, %d KakaoCloud calls\n", launched, findings.nodeClaims, sumCounts(counts.Calls)-sumCounts(baseline.Calls))
		injected := 0
		for _, kind := range slices.Sorted(maps.Keys(counts.Injected)) {
			if n := counts.Injected[kind] - baseline.Injected[kind]; n > 0 {
				injected += n
				fmt.Fprintf(GinkgoWriter, "soak: failures injected %4d × %s\n", n, kind)
			}
		}
		fmt.Fprintf(GinkgoWriter, "soak: %d failures injected in all; %d of the %d kinds of fault dealt\n", injected, deck.dealt.Len(), len(soakFaults))
		fmt.Fprintf(GinkgoWriter, "soak: PDB: fewest healthy pods above minAvailable in a sample: %d in its status, %d counted from the pods; %d samples\n",
			findings.closestPDB, findings.closest, findings.samples)
		fmt.Fprintf(GinkgoWriter, "soak: zero counts: %d VMs made twice for a name, %d foreign VMs deleted, %d PDB breaches, %d VMs or NodeClaims unaccounted at the end\n",
			len(findings.doubled), len(findings.foreignGone), len(findings.breaches), len(unaccounted))

		Expect(unaccounted).To(BeEmpty())
		Expect(findings.doubled).To(BeEmpty(), "a VM name (a NodeClaim's) had more than one VM")
		Expect(findings.foreignGone).To(BeEmpty(), "a VM that is not this cluster's was deleted")
		Expect(findings.breaches).To(BeEmpty(), "the PDB went below minAvailable")
		Expect(findings.samples).To(BeNumerically(">", 100), "the watcher sampled throughout")
		Expect(kills).To(HaveEach(BeNumerically(">", 0)), "the operator was killed in every cycle")
		Expect(launched).To(BeNumerically(">", 0))
		Expect(injected).To(BeNumerically(">", 0), "the faults were met")
	})
})

// soakSetting reads a whole number from the environment, else def.
func soakSetting(name string, def uint64) uint64 {
	GinkgoHelper()
	value := os.Getenv(name)
	if value == "" {
		return def
	}
	n, err := strconv.ParseUint(value, 10, 64)
	Expect(err).NotTo(HaveOccurred(), "%s must be a whole number", name)
	return n
}

// setMinAvailable changes the PDB's minAvailable and waits until its status reflects it,
// so that no eviction is judged by the earlier one.
func setMinAvailable(pdb *policyv1.PodDisruptionBudget, n int32) {
	GinkgoHelper()
	update(pdb, func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = new(intstr.FromInt32(n)) })
	Eventually(func(g Gomega) {
		current := &policyv1.PodDisruptionBudget{}
		g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(pdb), current)).To(Succeed())
		g.Expect(current.Status.ObservedGeneration).To(Equal(current.Generation))
		g.Expect(current.Status.DesiredHealthy).To(Equal(n))
	}).Should(Succeed(), "the PDB's status has minAvailable %d", n)
}

func scaleSoak(replicas int32) {
	GinkgoHelper()
	out, err := kubectl("-n", namespace, "scale", "deployment", soakPool, fmt.Sprintf("--replicas=%d", replicas))
	Expect(err).NotTo(HaveOccurred(), out)
}

// driftLeft describes, when a drift did not finish, each node of the soak's pool without the
// cycle's label value and each of the pool's NodeClaims without a node (launching), by the
// conditions of its NodeClaim that are not True and the last event about either, the
// NodePool's last event (a budget that holds the drift says so there) and the pods not
// Running: what holds the drift. It is read once, for the failure's message.
func driftLeft(value string) string {
	events, claims, nodes, pods := &eventsv1.EventList{}, &karpv1.NodeClaimList{}, &corev1.NodeList{}, &corev1.PodList{}
	for _, list := range []struct {
		into client.ObjectList
		opts []client.ListOption
	}{
		{events, []client.ListOption{client.InNamespace(namespace)}},
		{claims, []client.ListOption{client.MatchingLabels{karpv1.LabelNodePool: soakPool}}},
		{nodes, []client.ListOption{client.MatchingLabels{karpv1.LabelNodePool: soakPool}}},
		{pods, []client.ListOption{client.InNamespace(namespace), client.MatchingLabels{"app": soakPool}}},
	} {
		if err := kube.List(ctx, list.into, list.opts...); err != nil {
			return "listing what holds the drift failed: " + err.Error()
		}
	}
	byNode := map[string]karpv1.NodeClaim{}
	var left, launching []string
	for _, claim := range claims.Items {
		if claim.Status.NodeName == "" {
			launching = append(launching, describeClaim(claim, events.Items))
		}
		byNode[claim.Status.NodeName] = claim
	}
	for _, node := range nodes.Items {
		if node.Labels[soakCycleLabel] != value {
			left = append(left, fmt.Sprintf("node %s: %s", node.Name, describeClaim(byNode[node.Name], events.Items)))
		}
	}
	return fmt.Sprintf("nodes not replaced: %v; NodeClaims launching: %v; the NodePool's last event: %s; pods not Running: %v",
		left, launching, lastEvent(events.Items, "NodePool", soakPool), notRunning(pods.Items))
}

// describeClaim names a NodeClaim, its conditions that are not True and the last event about
// it or its node.
func describeClaim(claim karpv1.NodeClaim, events []eventsv1.Event) string {
	var notTrue []string
	for _, c := range claim.Status.Conditions {
		if c.Status != metav1.ConditionTrue {
			notTrue = append(notTrue, c.Type+"="+c.Reason)
		}
	}
	return fmt.Sprintf("NodeClaim %q, not True: %v, last event: %s", claim.Name, notTrue, lastEvent(events, "", claim.Name, claim.Status.NodeName))
}

// notRunning describes the pods that are not Running and Ready: phase, node, and why the
// kube-scheduler has not placed them.
func notRunning(pods []corev1.Pod) []string {
	var out []string
	for _, pod := range pods {
		if running([]corev1.Pod{pod}) == 1 {
			continue
		}
		why := ""
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
				why = ": " + c.Message
			}
		}
		out = append(out, fmt.Sprintf("%s (%s on %q%s)", pod.Name, pod.Status.Phase, pod.Spec.NodeName, why))
	}
	return out
}

// lastEvent is the reason and note of the latest of the events about the objects named, of
// kind kind unless it is "".
func lastEvent(events []eventsv1.Event, kind string, names ...string) string {
	var last *eventsv1.Event
	seen := func(e *eventsv1.Event) time.Time {
		if e.Series != nil {
			return e.Series.LastObservedTime.Time
		}
		if e.DeprecatedLastTimestamp.After(e.EventTime.Time) {
			return e.DeprecatedLastTimestamp.Time
		}
		return e.EventTime.Time
	}
	for i := range events {
		e := &events[i]
		about := e.Regarding.Name != "" && slices.Contains(names, e.Regarding.Name) && (kind == "" || e.Regarding.Kind == kind)
		if about && (last == nil || seen(e).After(seen(last))) {
			last = e
		}
	}
	if last == nil {
		return "none"
	}
	note := last.Note
	if len(note) > 200 {
		note = note[:200] + "..."
	}
	return last.Reason + ": " + note
}

// soakFault is one kind of misbehaviour: inject sets it up, with strengths drawn from the
// plan, and says what it did. Faults of the same slot replace each other in the emulator
// (one fault per operation), so a cycle takes at most one of each slot.
type soakFault struct {
	slot   string
	inject func(plan *rand.Rand) string
}

// soakFlavors are the flavors the soak's NodePool launches.
var soakFlavors = []string{"m2a.xlarge", "c2a.xlarge", "r2a.xlarge"}

var soakFaults = []soakFault{
	{"create", func(plan *rand.Rand) string {
		fraction := 0.3 + 0.3*plan.Float64()
		emulatorAdmin("POST", "/faults", map[string]any{"operation": emulator.OpCreateInstance, "status": 429, "fraction": fraction, "retry_after": "1s"})
		return fmt.Sprintf("%.0f %% of creates throttled (429, Retry-After 1 s)", 100*fraction)
	}},
	{"create", func(plan *rand.Rand) string {
		count := 1 + plan.IntN(2)
		emulatorAdmin("POST", "/faults", map[string]any{"operation": emulator.OpCreateInstance, "status": 502, "count": count, "commit": true, "drop": true})
		return fmt.Sprintf("the next %d creates carried out with their answer lost", count)
	}},
	{"read", func(plan *rand.Rand) string {
		op := []string{emulator.OpListInstances, emulator.OpGetInstance}[plan.IntN(2)]
		status := []int{500, 503}[plan.IntN(2)]
		fraction := 0.2 + 0.2*plan.Float64()
		emulatorAdmin("POST", "/faults", map[string]any{"operation": op, "status": status, "fraction": fraction})
		return fmt.Sprintf("%.0f %% of %s answer %d", 100*fraction, op, status)
	}},
	{"delete", func(plan *rand.Rand) string {
		commit := plan.IntN(2) == 0
		fraction := 0.3 + 0.3*plan.Float64()
		emulatorAdmin("POST", "/faults", map[string]any{"operation": emulator.OpDeleteInstance, "status": 500, "fraction": fraction, "commit": commit})
		return fmt.Sprintf("%.0f %% of deletes answer 500 (carried out: %t)", 100*fraction, commit)
	}},
	{"latency", func(plan *rand.Rand) string {
		latency := time.Duration(500+plan.IntN(2500)) * time.Millisecond
		emulatorAdmin("POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": latency.String()})
		return fmt.Sprintf("creates answer after %s", latency)
	}},
	{"list-lag", func(plan *rand.Rand) string {
		lag := time.Duration(5+plan.IntN(16)) * time.Second
		emulatorAdmin("POST", "/list-lag", map[string]any{"lag": lag.String()})
		return fmt.Sprintf("new VMs listed %s late", lag)
	}},
	{"capacity", func(plan *rand.Rand) string {
		flavor := soakFlavors[plan.IntN(len(soakFlavors))]
		emulatorAdmin("POST", "/capacity", map[string]any{"flavor": flavor, "zone": emulator.ZoneA, "remaining": 0})
		return fmt.Sprintf("no capacity for %s in %s (its VMs go to error)", flavor, emulator.ZoneA)
	}},
	{"boot", func(plan *rand.Rand) string {
		count := 1 + plan.IntN(2)
		emulatorAdmin("POST", "/fail-instances", map[string]any{"count": count})
		return fmt.Sprintf("the next %d VMs fail to boot", count)
	}},
}

// faultDeck deals the soak's faults in an order drawn from the plan, each kind once before any
// kind again, so that a few cycles meet every kind.
type faultDeck struct {
	plan  *rand.Rand
	left  []int
	dealt sets.Set[int]
}

// deal injects three to five faults of different slots and says what they are; a fault whose
// slot this cycle already has stays on top of the deck for the next cycle.
func (d *faultDeck) deal() []string {
	GinkgoHelper()
	var done []string
	slots := sets.New[string]()
	want := 3 + d.plan.IntN(3)
	for len(done) < want {
		if len(d.left) == 0 {
			d.left = d.plan.Perm(len(soakFaults))
		}
		next := slices.IndexFunc(d.left, func(i int) bool { return !slots.Has(soakFaults[i].slot) })
		if next < 0 {
			break
		}
		fault := soakFaults[d.left[next]]
		d.dealt.Insert(d.left[next])
		d.left = slices.Delete(d.left, next, next+1)
		slots.Insert(fault.slot)
		done = append(done, fault.inject(d.plan))
	}
	return done
}

// clearSoakFaults clears every kind of fault the soak injects.
func clearSoakFaults() {
	GinkgoHelper()
	emulatorAdmin("DELETE", "/faults", nil)
	emulatorAdmin("POST", "/latency", map[string]any{"operation": emulator.OpCreateInstance, "latency": "0s"})
	emulatorAdmin("POST", "/list-lag", map[string]any{"lag": "0s"})
	emulatorAdmin("POST", "/fail-instances", map[string]any{"count": 0})
	for _, flavor := range soakFlavors {
		emulatorAdmin("POST", "/capacity", map[string]any{"flavor": flavor, "zone": emulator.ZoneA, "remaining": -1})
	}
}

// killOperatorEvery kills the operator at moments drawn from plan (first 3 to 15 s after the
// start, so that every cycle has a kill, then every 20 to 60 s) and starts it again 0 to 2 s
// later, until the returned stop, which leaves one running and says how many kills there were.
func killOperatorEvery(plan *rand.Rand) (stop func() int) {
	done := make(chan struct{})
	exited := make(chan struct{})
	kills := 0
	go func() {
		defer GinkgoRecover()
		defer close(exited)
		wait := time.Duration(3000+plan.IntN(12000)) * time.Millisecond
		for {
			select {
			case <-done:
				return
			case <-time.After(wait):
			}
			wait = time.Duration(20000+plan.IntN(40000)) * time.Millisecond
			for _, pid := range operatorPIDs() {
				killOperator(pid)
			}
			time.Sleep(time.Duration(plan.IntN(2000)) * time.Millisecond)
			startOperator(1)
			kills++
		}
	}()
	var once sync.Once
	stop = func() int {
		once.Do(func() { close(done) })
		<-exited
		return kills
	}
	// A spec that fails mid-cycle stops the kills before its other cleanups run.
	DeferCleanup(func() { stop() })
	return stop
}

// foreignVM is a VM the soak made that garbage collection must leave alone.
type foreignVM struct{ id, name, why string }

// createForeignVMs makes three VMs in the pool's subnet, named as its NodeClaims are, that
// are not this cluster's by their description, and deletes them when the spec ends.
func createForeignVMs() []foreignVM {
	GinkgoHelper()
	credentials := operatorSecret("karpenter-kakaocloud-credentials")
	endpoints := map[string]string{}
	for _, service := range kakaocloud.Services {
		endpoints[service] = cluster.emulatorURL + "/" + service
	}
	cloud, err := kakaocloud.New(kakaocloud.Config{Endpoints: endpoints, Credentials: kakaocloud.StaticCredentials{
		AccessKeyID:     string(credentials.Data[kakaocloud.SecretKeyAccessKeyID]),
		SecretAccessKey: string(credentials.Data[kakaocloud.SecretKeySecretAccessKey]),
	}})
	Expect(err).NotTo(HaveOccurred())
	keys := operatorSecret("karpenter-kakaocloud-signing-keys")
	keyring, err := signing.SecretKeyring{Reader: kube, Secret: types.NamespacedName{Namespace: keys.Namespace, Name: keys.Name}}.Keyring(ctx)
	Expect(err).NotTo(HaveOccurred())
	sign := func(name, clusterName string) string {
		description, err := keyring.Sign(signing.Subject{VMName: name, ClusterID: instance.SigningClusterID(clusterName), NodeClaim: name})
		Expect(err).NotTo(HaveOccurred())
		return description
	}
	// The pool's own VM is the model: same flavor, image, zone and security groups.
	var model kakaocloud.Instance
	for _, vm := range vms(Default) {
		if strings.HasPrefix(vm.Name, soakPool+"-") {
			model = vm
		}
	}
	Expect(model.ID).NotTo(BeEmpty(), "a VM of the soak's pool")
	subnets, err := cloud.ListSubnets(ctx, kakaocloud.SubnetFilter{Name: "karpenter-subnet-a"})
	Expect(err).NotTo(HaveOccurred())
	Expect(subnets).To(HaveLen(1))

	signedHere := sign("soak-edited", cluster.clusterName)
	// The edit changes the signature's last character, so the marker still parses.
	last := "A"
	if strings.HasSuffix(signedHere, last) {
		last = "B"
	}
	edited := signedHere[:len(signedHere)-1] + last
	wanted := []struct{ name, description, why string }{
		{"soak-unsigned", "a VM someone else made", "unsigned"},
		{"soak-othercluster", sign("soak-othercluster", "another-cluster"), "signed for another cluster"},
		{"soak-edited", signedHere, "signed for this cluster, description edited"},
	}
	var made []foreignVM
	for _, w := range wanted {
		created, err := cloud.CreateInstance(ctx, kakaocloud.CreateInstance{
			Name: w.name, Description: w.description, ImageID: model.Image.ID, FlavorID: model.Flavor.ID,
			AvailabilityZone: model.AvailabilityZone, Subnets: []kakaocloud.SubnetAttachment{{ID: subnets[0].ID}},
			Volumes:        []kakaocloud.VolumeSpec{kakaocloud.BootVolume(50, "")},
			SecurityGroups: model.SecurityGroups,
		})
		Expect(err).NotTo(HaveOccurred(), "creating %s", w.name)
		made = append(made, foreignVM{id: created.ID, name: w.name, why: w.why})
	}
	_, err = cloud.UpdateInstance(ctx, made[2].id, kakaocloud.UpdateInstance{Description: &edited})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		for _, vm := range made {
			Expect(cloud.DeleteInstance(ctx, vm.id)).To(Succeed(), "deleting %s", vm.name)
		}
	})
	return made
}

// soakFindings is what the soak's watcher saw.
type soakFindings struct {
	samples int
	// doubled names each VM name seen with more than one VM.
	doubled []string
	// foreignGone names each foreign VM that disappeared.
	foreignGone []string
	// breaches are the samples in which the PDB's healthy pods were below minAvailable.
	breaches []string
	// closestPDB and closest are the fewest healthy pods above the PDB's minAvailable seen in
	// a sample, by its status and counted from the pods: 0 means a disruption used all the PDB
	// allowed.
	closestPDB, closest int32
	nodeClaims          int
}

// watchSoak samples, every 500 ms until the returned stop: the PDB's healthy count from its
// status and from the pods themselves, every VM name's VMs, the foreign VMs and the
// NodeClaims.
func watchSoak(foreign []foreignVM) (stop func() soakFindings) {
	var mu sync.Mutex
	findings := soakFindings{closestPDB: 1 << 30, closest: 1 << 30}
	ledger := vmNameLedger{}
	nodeClaims, gone := sets.New[string](), sets.New[string]()
	stopSampling := sampleEvery(500*time.Millisecond, func(now time.Time) {
		mu.Lock()
		defer mu.Unlock()
		findings.samples++
		at := now.Format(time.StampMilli)
		pdb := &policyv1.PodDisruptionBudget{}
		if kube.Get(ctx, client.ObjectKey{Namespace: namespace, Name: soakPool}, pdb) != nil {
			return
		}
		minAvailable := int32(pdb.Spec.MinAvailable.IntValue())
		if pdb.Status.ObservedGeneration == pdb.Generation {
			findings.closestPDB = min(findings.closestPDB, pdb.Status.CurrentHealthy-minAvailable)
			if pdb.Status.CurrentHealthy < minAvailable {
				findings.breaches = append(findings.breaches, fmt.Sprintf("%s: PDB status currentHealthy %d, minAvailable %d", at, pdb.Status.CurrentHealthy, minAvailable))
			}
		}
		pods := &corev1.PodList{}
		if kube.List(ctx, pods, client.InNamespace(namespace), client.MatchingLabels{"app": soakPool}) == nil {
			var healthy int32
			for _, pod := range pods.Items {
				if pod.DeletionTimestamp.IsZero() && running([]corev1.Pod{pod}) == 1 {
					healthy++
				}
			}
			findings.closest = min(findings.closest, healthy-minAvailable)
			if healthy < minAvailable {
				findings.breaches = append(findings.breaches, fmt.Sprintf("%s: %d healthy pods, minAvailable %d", at, healthy, minAvailable))
			}
		}
		claims := &karpv1.NodeClaimList{}
		if kube.List(ctx, claims, client.MatchingLabels{karpv1.LabelNodePool: soakPool}) == nil {
			for _, claim := range claims.Items {
				nodeClaims.Insert(claim.Name)
			}
		}
		listed, err := listVMs()
		if err != nil {
			return
		}
		ledger.record(listed)
		present := sets.New[string]()
		for _, vm := range listed {
			present.Insert(vm.ID)
		}
		for _, vm := range foreign {
			if !present.Has(vm.id) && !gone.Has(vm.name) {
				gone.Insert(vm.name)
				findings.foreignGone = append(findings.foreignGone, fmt.Sprintf("%s (%s, gone at %s)", vm.name, vm.why, at))
			}
		}
	})
	DeferCleanup(stopSampling)
	return func() soakFindings {
		stopSampling()
		mu.Lock()
		defer mu.Unlock()
		findings.doubled = ledger.doubled()
		findings.nodeClaims = nodeClaims.Len()
		return findings
	}
}

// vmAccounting names every VM of the cluster without a NodeClaim, every NodeClaim without
// its VM, and every NodeClaim with more than one.
func vmAccounting(g Gomega, foreign []foreignVM) []string {
	foreignIDs := sets.New[string]()
	for _, vm := range foreign {
		foreignIDs.Insert(vm.id)
	}
	claims := &karpv1.NodeClaimList{}
	g.Expect(kube.List(ctx, claims)).To(Succeed())
	byProviderID := map[string]string{}
	for _, claim := range claims.Items {
		byProviderID[claim.Status.ProviderID] = claim.Name
	}
	var problems []string
	vmsByName := map[string]int{}
	live := sets.New[string]()
	for _, vm := range vms(g) {
		if foreignIDs.Has(vm.ID) || vm.Status == kakaocloud.InstanceStatusDeleting {
			continue
		}
		live.Insert(vm.ID)
		vmsByName[vm.Name]++
		if _, ok := byProviderID[kcv1.ProviderIDPrefix+vm.ID]; !ok {
			problems = append(problems, fmt.Sprintf("VM %s (%s, %s) has no NodeClaim", vm.ID, vm.Name, vm.Status))
		}
	}
	for _, claim := range claims.Items {
		id, ok := strings.CutPrefix(claim.Status.ProviderID, kcv1.ProviderIDPrefix)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("NodeClaim %s is not launched", claim.Name))
		case !live.Has(id):
			problems = append(problems, fmt.Sprintf("NodeClaim %s has no VM (%s)", claim.Name, id))
		case vmsByName[instance.VMName(claim.Name)] > 1:
			problems = append(problems, fmt.Sprintf("NodeClaim %s has %d VMs", claim.Name, vmsByName[instance.VMName(claim.Name)]))
		}
	}
	return problems
}

// emulatorCounts returns the emulator's call counts, injected failures and VMs made.
func emulatorCounts(g Gomega) emulator.AdminCalls {
	var counts emulator.AdminCalls
	emulatorGet(g, "/calls", &counts)
	return counts
}

func sumCounts(counts map[string]int) int {
	total := 0
	for _, n := range counts {
		total += n
	}
	return total
}
