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

package disruption_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/disruption"
	engine "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/disruption"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/state"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// BenchmarkConsolidationPass1000 and BenchmarkConsolidationPass5000 time the disruption
// controller's passes on workload.ConsolidationCluster (seed 1) as the operator runs them: the
// objects live in a real kube-apiserver and etcd, the controller reads them through the
// manager's cache (state.Read), and the cloud provider lists instance types from the
// KakaoCloud emulator over HTTP. Each iteration times the pieces of a pass by calling what
// Pass calls: read (state.Read, instance types, volumes), snapshot, decide and, on the
// snapshot the loop takes after the validation delay, validate. Then Pass itself runs once
// to decide (pass1), the fake clock moves on by the validation delay, and Pass runs again
// (pass2): it reads the cluster again, validates the command and starts it (taints the
// candidates' nodes, marks their NodeClaims, deletes them or launches the replacement).
// Run with -benchtime=1x: filling the API server takes minutes.
func BenchmarkConsolidationPass1000(b *testing.B) { benchmarkPass(b, 1000) }

func BenchmarkConsolidationPass5000(b *testing.B) { benchmarkPass(b, 5000) }

func benchmarkPass(b *testing.B, nodes int) {
	cluster := workload.ConsolidationCluster(nodes, 1)
	env, err := test.NewEnvironment(test.EnvironmentOptions{FakeClock: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = env.Stop() })
	env.Clock.SetTime(time.Now())
	controllers := env.Controllers(func(o *operator.Options) { o.DisruptionValidation = engine.DefaultValidationDelay })
	if err := env.Start(); err != nil {
		b.Fatal(err)
	}
	// The controller's own log lines (a command names its 100 candidates) stay out of the
	// figures.
	ctx := log.IntoContext(env.Ctx, logr.Discard())

	started := time.Now()
	populate(ctx, b, env, controllers, cluster)
	b.Logf("%d nodes, %d pods, %d PodDisruptionBudgets created through the API server in %s",
		len(cluster.Nodes), len(cluster.Pods), len(cluster.PDBs), time.Since(started).Round(time.Second))
	started = time.Now()
	waitForCache(ctx, b, env, cluster)
	b.Logf("the manager's cache holds them all %s later", time.Since(started).Round(100*time.Millisecond))
	checkInstanceTypes(ctx, b, controllers, cluster)

	c := controllers.Disruption
	var read, snapshot, decide, validate time.Duration
	var d *engine.Decision
	var in engine.SnapshotInput
	for b.Loop() {
		start := time.Now()
		if in, err = c.ReadSnapshotInput(ctx); err != nil {
			b.Fatal(err)
		}
		readAt := time.Now()
		snap := engine.NewSnapshot(in)
		snapshotAt := time.Now()
		d = snap.Decide(engine.Options{})
		decidedAt := time.Now()
		if d.Command == nil {
			b.Fatalf("no command found; %d nodes held", len(d.Blocked))
		}
		later := in
		later.Now = in.Now.Add(engine.DefaultValidationDelay)
		laterSnap := engine.NewSnapshot(later)
		validateAt := time.Now()
		if cmd, why := laterSnap.Validate(d.Command); cmd == nil {
			b.Fatalf("%s does not hold after the validation delay: %s", d.Command.Method, why)
		}
		read, snapshot, decide = read+readAt.Sub(start), snapshot+snapshotAt.Sub(readAt), decide+decidedAt.Sub(snapshotAt)
		validate += time.Since(validateAt)
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(read), "read-ms")
	b.ReportMetric(per(snapshot), "snapshot-ms")
	b.ReportMetric(per(decide), "decide-ms")
	b.ReportMetric(per(validate), "validate-ms")
	b.ReportMetric(float64(len(in.Nodes)), "nodes")
	b.ReportMetric(float64(len(in.Pods)), "pods")

	// The passes themselves, once: the first decides, the second validates and starts.
	// PASS_CPUPROFILE=<file> profiles these two passes alone: a -cpuprofile of the whole run
	// is mostly the minutes spent filling the API server.
	stopProfile := startProfile(b, os.Getenv("PASS_CPUPROFILE"))
	cmd := decideAndValidate(ctx, b, env, c)
	stopProfile()
	pass1, pass2 := cmd.pass1, cmd.pass2
	b.ReportMetric(float64(pass1.Microseconds())/1000, "pass1-ms")
	b.ReportMetric(float64(pass2.Microseconds())/1000, "pass2-ms")
	b.ReportMetric(float64(len(cmd.commands)), "commands")
	for _, started := range cmd.commands {
		tainted := 0
		for _, cand := range started.Candidates {
			node := &corev1.Node{}
			if err := env.APIClient.Get(ctx, client.ObjectKey{Name: cand.Node.Name}, node); err == nil && slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool {
				return t.MatchTaint(&karpv1.DisruptedNoScheduleTaint)
			}) {
				tainted++
			}
		}
		if tainted != len(started.Candidates) {
			b.Fatalf("the second pass tainted %d of the %d candidates' nodes of %s", tainted, len(started.Candidates), started.Names())
		}
		b.Logf("%s: %s of %d nodes (%d pods moved), %d replacements, savings %.3f",
			started.Method, started.Decision(), len(started.Candidates), len(started.Placed), len(started.Replacements), started.Savings)
	}
	b.Logf("pass1 %s (it decided %d commands), pass2 %s (it validated and started them)", pass1.Round(time.Millisecond), len(cmd.commands), pass2.Round(time.Millisecond))
}

// startProfile starts a CPU profile written to path, and returns what stops it; with no path
// it does nothing.
func startProfile(b *testing.B, path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// passed are the commands two passes decided and started, and how long each pass took.
type passed struct {
	commands     []*engine.Command
	pass1, pass2 time.Duration
}

// decideAndValidate runs the passes of one consolidation move: the first decides and says the
// next pass is due before the validation delay is over; once it is, the second validates and
// starts the command and says the next pass is due at once.
func decideAndValidate(ctx context.Context, b testing.TB, env *test.Environment, c *disruption.Controller) passed {
	b.Helper()
	start := time.Now()
	next, err := c.PassDue(ctx)
	if err != nil {
		b.Fatal(err)
	}
	out := passed{pass1: time.Since(start), commands: c.Validating()}
	if len(out.commands) == 0 {
		b.Fatal("the first pass left no command waiting for validation")
	}
	if next <= 0 || next > engine.DefaultValidationDelay {
		b.Fatalf("after deciding, the next pass is due in %s, want within the %s validation delay", next, engine.DefaultValidationDelay)
	}
	env.Step(engine.DefaultValidationDelay)
	start = time.Now()
	if next, err = c.PassDue(ctx); err != nil {
		b.Fatal(err)
	}
	out.pass2 = time.Since(start)
	if c.Validating() != nil {
		b.Fatal("the second pass did not validate the command")
	}
	if next != 0 {
		b.Fatalf("after starting a validated command, the next pass is due in %s, want at once", next)
	}
	return out
}

// A consolidation move takes the validation delay, not three poll intervals: the pass that
// decides comes back when the delay is over, and the pass that starts the command decides
// the next one at once.
func TestConsolidationPassCadence(t *testing.T) {
	ctx, env, controllers := consolidationEnv(t)
	out := decideAndValidate(ctx, t, env, controllers.Disruption)
	for _, cmd := range out.commands {
		t.Logf("%s of %d nodes started", cmd.Method, len(cmd.Candidates))
	}
}

// consolidationEnv is an API server holding 40 realistic nodes with their pods, seen by a
// manager's cache, with the fake clock at now and upstream's validation delay.
func consolidationEnv(t *testing.T) (context.Context, *test.Environment, *operator.Controllers) {
	t.Helper()
	cluster := workload.ConsolidationCluster(40, 1)
	env, err := test.NewEnvironment(test.EnvironmentOptions{FakeClock: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	env.Clock.SetTime(time.Now())
	controllers := env.Controllers(func(o *operator.Options) { o.DisruptionValidation = engine.DefaultValidationDelay })
	if err := env.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := log.IntoContext(env.Ctx, logr.Discard())
	populate(ctx, t, env, controllers, cluster)
	waitForCache(ctx, t, env, cluster)
	return ctx, env, controllers
}

// A consolidation command that no longer holds once the validation delay is over is given up,
// and its candidates say why (upstream's ConsolidationRejected event).
func TestConsolidationRejected(t *testing.T) {
	ctx, env, controllers := consolidationEnv(t)
	c := controllers.Disruption
	if _, err := c.PassDue(ctx); err != nil {
		t.Fatal(err)
	}
	batch := c.Validating()
	if len(batch) == 0 {
		t.Fatal("the first pass left no command waiting for validation")
	}

	// Meanwhile a candidate's node of every command decided is told not to be disrupted.
	var nodes []*corev1.Node
	for _, cmd := range batch {
		node := &corev1.Node{}
		if err := env.APIClient.Get(ctx, client.ObjectKey{Name: cmd.Candidates[0].Node.Name}, node); err != nil {
			t.Fatal(err)
		}
		metav1.SetMetaDataAnnotation(&node.ObjectMeta, karpv1.DoNotDisruptAnnotationKey, "true")
		if err := env.APIClient.Update(ctx, node); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, node)
	}
	// The manager's cache is a real informer: wait until it has the annotations.
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, node := range nodes {
			cached := &corev1.Node{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(node), cached); err != nil || cached.Annotations[karpv1.DoNotDisruptAnnotationKey] != "true" {
				return false, err
			}
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	candidate, node := batch[0].Candidates[0], nodes[0]

	env.Step(engine.DefaultValidationDelay)
	if _, err := c.PassDue(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Validating() != nil {
		t.Fatal("the command is still waiting for validation")
	}
	for _, name := range []string{candidate.NodeClaim.Name, node.Name} {
		notes := env.Recorder.Notes(name, engine.ReasonConsolidationRejected)
		if len(notes) == 0 || !strings.Contains(notes[0], "Consolidation rejected") || !strings.Contains(notes[0], "do-not-disrupt") {
			t.Errorf("%s: ConsolidationRejected events %q, want one that names do-not-disrupt", name, notes)
		}
	}
	var started int
	claims := &karpv1.NodeClaimList{}
	if err := env.APIClient.List(ctx, claims); err != nil {
		t.Fatal(err)
	}
	for _, nodeClaim := range claims.Items {
		if !nodeClaim.DeletionTimestamp.IsZero() {
			started++
		}
	}
	if started != 0 {
		t.Errorf("%d NodeClaims deleting: the rejected command started", started)
	}
}

// populate creates the cluster's objects through the API server, as they would be there:
// the KCNodeClass resolved by its controller; NodePools, NodeClaims and PodDisruptionBudgets
// with the status their controllers give them; nodes as the kubelet registers them; pods bound.
func populate(ctx context.Context, b testing.TB, env *test.Environment, controllers *operator.Controllers, cluster *workload.Cluster) {
	// A client of its own, without client-side rate limits, writes the objects concurrently.
	cfg := rest.CopyConfig(env.Env.Config)
	cfg.QPS, cfg.Burst = -1, 0
	writer, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		b.Fatal(err)
	}
	for _, ns := range cluster.Namespaces {
		if err := writer.Create(ctx, ns.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
			b.Fatal(err)
		}
	}
	nodeClass := cluster.NodeClass.DeepCopy()
	nodeClass.Status = kcv1.KCNodeClassStatus{}
	if err := writer.Create(ctx, nodeClass); err != nil {
		b.Fatal(err)
	}
	resolveNodeClass(ctx, b, env, controllers, nodeClass.Name)

	type write struct {
		obj    client.Object
		status bool // the status is written after the object
	}
	writes := []write{}
	for _, np := range cluster.NodePools {
		writes = append(writes, write{np.DeepCopy(), true})
	}
	for _, ds := range cluster.DaemonSets {
		writes = append(writes, write{ds.DeepCopy(), false})
	}
	for _, pdb := range cluster.PDBs {
		writes = append(writes, write{pdb.DeepCopy(), true})
	}
	for _, node := range cluster.Nodes {
		writes = append(writes, write{node.DeepCopy(), false})
	}
	for _, nodeClaim := range cluster.NodeClaims {
		writes = append(writes, write{nodeClaim.DeepCopy(), true})
	}
	for _, pod := range cluster.Pods {
		writes = append(writes, write{pod.DeepCopy(), false})
	}
	each(b, writes, func(w write) error {
		obj := w.obj
		obj.SetUID("")
		obj.SetCreationTimestamp(metav1.Time{})
		status := statusOf(obj)
		if err := writer.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
		if node, ok := obj.(*corev1.Node); ok {
			return registered(ctx, writer, node, status)
		}
		if !w.status {
			return nil
		}
		status(obj)
		if err := writer.Status().Update(ctx, obj); err != nil {
			return fmt.Errorf("writing the status of %T %s: %w", obj, obj.GetName(), err)
		}
		return nil
	})
}

// registered does for a node just created what its kubelet and the node lifecycle controller
// do for a node that is up: the status it registered with (the API server keeps it, but put
// back if not), and no node.kubernetes.io/not-ready taint, which the API server adds to every
// new node until that controller sees it Ready.
func registered(ctx context.Context, writer client.Client, node *corev1.Node, status func(client.Object)) error {
	if len(node.Status.Allocatable) == 0 {
		status(node)
		if err := writer.Status().Update(ctx, node); err != nil {
			return fmt.Errorf("writing the status of node %s: %w", node.Name, err)
		}
	}
	kept := slices.DeleteFunc(slices.Clone(node.Spec.Taints), func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
	if len(kept) == len(node.Spec.Taints) {
		return nil
	}
	node.Spec.Taints = kept
	if err := writer.Update(ctx, node); err != nil {
		return fmt.Errorf("untainting node %s: %w", node.Name, err)
	}
	return nil
}

// statusOf keeps an object's status, which creating it drops, to put back before the status
// is written.
func statusOf(obj client.Object) func(client.Object) {
	switch o := obj.(type) {
	case *karpv1.NodePool:
		s := o.Status
		return func(obj client.Object) { obj.(*karpv1.NodePool).Status = s }
	case *karpv1.NodeClaim:
		s := o.Status
		return func(obj client.Object) { obj.(*karpv1.NodeClaim).Status = s }
	case *corev1.Node:
		s := o.Status
		return func(obj client.Object) { obj.(*corev1.Node).Status = s }
	case *policyv1.PodDisruptionBudget:
		s := o.Status
		return func(obj client.Object) { obj.(*policyv1.PodDisruptionBudget).Status = s }
	}
	return func(client.Object) {}
}

// each runs fn on every item from a pool of workers, and fails on the first error.
func each[T any](b testing.TB, items []T, fn func(T) error) {
	const workers = 48
	work := make(chan T)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for item := range work {
				if err := fn(item); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, item := range items {
		work <- item
	}
	close(work)
	wg.Wait()
	if first != nil {
		b.Fatal(first)
	}
}

// resolveNodeClass runs the KCNodeClass controller until the node class is Ready: its status
// (subnets and their zones) is what instance types are listed from.
func resolveNodeClass(ctx context.Context, b testing.TB, env *test.Environment, controllers *operator.Controllers, name string) {
	deadline := time.Now().Add(time.Minute)
	nodeClasses := reconcile.AsReconciler(controllers.NodeClass.Client, controllers.NodeClass)
	for {
		if _, err := nodeClasses.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Name: name}}); err != nil {
			b.Logf("reconciling KCNodeClass %s: %v", name, err)
		}
		nodeClass := &kcv1.KCNodeClass{}
		if err := env.APIClient.Get(ctx, client.ObjectKey{Name: name}, nodeClass); err != nil {
			b.Fatal(err)
		}
		if meta.IsStatusConditionTrue(nodeClass.Status.Conditions, kcv1.ConditionTypeReady) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("KCNodeClass %s is not ready: %v", name, nodeClass.Status.Conditions)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitForCache waits until the manager's cache, which the controller reads, holds every
// object.
func waitForCache(ctx context.Context, b testing.TB, env *test.Environment, cluster *workload.Cluster) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		read, err := state.Read(ctx, env.Manager.GetClient())
		if err != nil {
			b.Fatal(err)
		}
		if len(read.Nodes) == len(cluster.Nodes) && len(read.NodeClaims) == len(cluster.NodeClaims) && len(read.Pods) == len(cluster.Pods) &&
			len(read.PDBs) == len(cluster.PDBs) && len(read.DaemonSetPods) == len(cluster.DaemonSets) && len(read.NodePools) == len(cluster.NodePools) &&
			!slices.ContainsFunc(read.NodeClaims, func(nodeClaim *karpv1.NodeClaim) bool {
				return !meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeConsolidatable)
			}) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the cache holds %d nodes, %d NodeClaims and %d pods", len(read.Nodes), len(read.NodeClaims), len(read.Pods))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkInstanceTypes fails unless the cloud provider, over the emulator, gives every NodePool
// the instance types the cluster was drawn with: the nodes' prices and room are theirs.
func checkInstanceTypes(ctx context.Context, b testing.TB, controllers *operator.Controllers, cluster *workload.Cluster) {
	describe := func(types []*cloudprovider.InstanceType) []string {
		var out []string
		for _, it := range types {
			s := fmt.Sprintf("%s capacity=%v allocatable=%v", it.Name, quantities(it.Capacity), quantities(it.Allocatable()))
			for _, of := range it.Offerings {
				s += fmt.Sprintf(" %s/%s/%g/%t", of.Zone, of.CapacityType, of.Price, of.Available)
			}
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	want := describe(cluster.InstanceTypes)
	for _, np := range cluster.NodePools {
		got, err := controllers.CloudProvider.GetInstanceTypes(ctx, np)
		if err != nil {
			b.Fatal(err)
		}
		if have := describe(got); !slices.Equal(have, want) {
			b.Fatalf("NodePool %s: the cloud provider lists instance types other than the cluster's:\n%v\nwant\n%v", np.Name, have, want)
		}
	}
}

func quantities(l corev1.ResourceList) string {
	var out []string
	for name, q := range l {
		out = append(out, fmt.Sprintf("%s=%s", name, q.String()))
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}

// Drifted nodes are replaced side by side up to the budgets, as upstream requeues at once after
// a disruption: each pass that starts a drift command says the next is due at once, and the
// passes that follow start the next drifted nodes until every NodePool's budget is used; then
// the next pass waits a poll interval. No NodePool has more nodes disrupted than its budget.
func TestDriftPassCadence(t *testing.T) {
	const budget = 2
	cluster := workload.ConsolidationCluster(40, 1)
	for _, np := range cluster.NodePools {
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: fmt.Sprint(budget)}}
	}
	for _, nodeClaim := range cluster.NodeClaims {
		meta.SetStatusCondition(&nodeClaim.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue,
			Reason: "NodePoolDrifted", Message: "NodePool's template changed", LastTransitionTime: metav1.NewTime(cluster.Now)})
	}
	env, err := test.NewEnvironment(test.EnvironmentOptions{FakeClock: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	env.Clock.SetTime(time.Now())
	controllers := env.Controllers()
	if err := env.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := log.IntoContext(env.Ctx, logr.Discard())
	populate(ctx, t, env, controllers, cluster)
	waitForCache(ctx, t, env, cluster)

	// disrupted counts, per NodePool, the NodeClaims the loop has marked for disruption, read
	// from the API server.
	disrupted := func() map[string]int {
		list := &karpv1.NodeClaimList{}
		if err := env.APIClient.List(ctx, list); err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, nodeClaim := range list.Items {
			if meta.IsStatusConditionTrue(nodeClaim.Status.Conditions, karpv1.ConditionTypeDisruptionReason) {
				out[nodeClaim.Labels[karpv1.LabelNodePool]]++
			}
		}
		return out
	}
	// total adds up disrupted's counts, failing on a NodePool over its budget.
	total := func(pass int, m map[string]int) (n int) {
		for pool, count := range m {
			if count > budget {
				t.Fatalf("pass %d: NodePool %s has %d nodes disrupted, its budget allows %d", pass, pool, count, budget)
			}
			n += count
		}
		return n
	}
	var started []int
	for pass := 1; ; pass++ {
		before := total(pass, disrupted())
		next, err := controllers.Disruption.PassDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		newly := total(pass, disrupted()) - before
		if newly == 0 {
			if next != disruption.DefaultPollInterval {
				t.Fatalf("pass %d started nothing and says the next pass is due in %s, want the poll interval %s", pass, next, disruption.DefaultPollInterval)
			}
			break
		}
		if next != 0 {
			t.Fatalf("pass %d started a command of %d nodes and says the next pass is due in %s, want at once", pass, newly, next)
		}
		started = append(started, newly)
		if pass > len(cluster.NodeClaims) {
			t.Fatalf("%d passes and still starting commands", pass)
		}
	}
	if len(started) < 2 {
		t.Fatalf("the passes started %v nodes: drift did not go on at once after its first command", started)
	}
	if slices.Max(started) > budget || len(disrupted()) != len(cluster.NodePools) {
		t.Errorf("started %v over %d NodePools (budget %d each): %v", started, len(cluster.NodePools), budget, disrupted())
	}
	t.Logf("passes back to back started drift of %v nodes; disrupted per NodePool: %v", started, disrupted())
}
