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
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// namespace holds the suite's workloads.
const namespace = "default"

// kubectl runs the cluster's kubectl as the admin and returns what it printed.
func kubectl(args ...string) (string, error) {
	cmd := exec.Command(cluster.kubectl, append([]string{"--kubeconfig", cluster.kubeconfig}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// kubectlApply applies a manifest with kubectl, as a user would.
func kubectlApply(manifest string) (string, error) {
	cmd := exec.Command(cluster.kubectl, "--kubeconfig", cluster.kubeconfig, "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// vms returns the emulator's VMs, deleting ones included, from its admin API.
func vms(g Gomega) []kakaocloud.Instance {
	listed, err := listVMs()
	g.Expect(err).NotTo(HaveOccurred())
	return listed
}

// listVMs is vms for a caller that cannot fail the spec (a sampler).
func listVMs() ([]kakaocloud.Instance, error) {
	var body emulator.AdminInstances
	err := getEmulator("/instances", &body)
	return body.Instances, err
}

// emulatorGet decodes the answer of a GET of the emulator's admin API (path below
// /_emulator).
func emulatorGet(g Gomega, path string, out any) {
	g.Expect(getEmulator(path, out)).To(Succeed())
}

func getEmulator(path string, out any) error {
	resp, err := http.Get(cluster.emulatorURL + "/_emulator" + path)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /_emulator%s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func vmIDs(g Gomega) []string {
	var ids []string
	for _, vm := range vms(g) {
		ids = append(ids, vm.ID)
	}
	return ids
}

// readmeManifest is the KCNodeClass and NodePool of the README, under another name.
func readmeManifest(name string) string {
	return strings.NewReplacer("NAME", name).Replace(`apiVersion: karpenter.kakaocloud.com/v1
kind: KCNodeClass
metadata:
  name: NAME
spec:
  bootstrap:
    kubernetesVersion: "1.36"
  subnetSelectorTerms:
  - name: karpenter-subnet-a
  securityGroupSelectorTerms:
  - name: karpenter-workers
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: NAME
spec:
  template:
    spec:
      requirements:
      - key: karpenter.kakaocloud.com/instance-family
        operator: In
        values: ["m2a", "c2a", "r2a"]
      nodeClassRef:
        group: karpenter.kakaocloud.com
        kind: KCNodeClass
        name: NAME
  limits:
    cpu: 1000
`)
}

// createPool creates a KCNodeClass and a NodePool of the same name, as in the README but
// without consolidation (so that a spec about provisioning sees only its own nodes change),
// with tweak applied to the NodePool, waits until both are Ready, and removes them, their
// NodeClaims, nodes and VMs when the spec ends.
func createPool(name string, tweak func(*karpv1.NodePool)) {
	GinkgoHelper()
	createPoolOf(name, nil, tweak)
}

// createPoolOf is createPool with nodeClassTweak applied to the KCNodeClass as well.
func createPoolOf(name string, nodeClassTweak func(*kcv1.KCNodeClass), tweak func(*karpv1.NodePool)) {
	GinkgoHelper()
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
		},
	}
	pool := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
					{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"m2a", "c2a", "r2a"}},
				},
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: name},
			}},
			Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration("Never")},
			Limits:     karpv1.Limits{corev1.ResourceCPU: resource.MustParse("1000")},
		},
	}
	if nodeClassTweak != nil {
		nodeClassTweak(nodeClass)
	}
	if tweak != nil {
		tweak(pool)
	}
	Expect(kube.Create(ctx, nodeClass)).To(Succeed())
	Expect(kube.Create(ctx, pool)).To(Succeed())
	DeferCleanup(deletePool, name)
	waitPoolReady(name)
}

func waitPoolReady(name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		nodeClass := &kcv1.KCNodeClass{}
		g.Expect(kube.Get(ctx, client.ObjectKey{Name: name}, nodeClass)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(nodeClass.Status.Conditions, kcv1.ConditionTypeReady)).To(BeTrue(), "KCNodeClass %s Ready", name)
		pool := &karpv1.NodePool{}
		g.Expect(kube.Get(ctx, client.ObjectKey{Name: name}, pool)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(pool.Status.Conditions, karpv1.ConditionTypeReady)).To(BeTrue(), "NodePool %s Ready", name)
	}).Should(Succeed())
}

// deletePool empties and deletes a pool: its NodeClaims (which drains and removes their nodes
// and VMs), then the NodePool and the KCNodeClass, and waits until all of it is gone.
func deletePool(name string) {
	GinkgoHelper()
	var vmsOfPool []string
	for _, c := range claimsOf(name)(Default) {
		if id, ok := strings.CutPrefix(c.Status.ProviderID, kcv1.ProviderIDPrefix); ok {
			vmsOfPool = append(vmsOfPool, id)
		}
	}
	Expect(kube.DeleteAllOf(ctx, &karpv1.NodeClaim{}, client.MatchingLabels{karpv1.LabelNodePool: name})).To(Succeed())
	Eventually(claimsOf(name)).Should(BeEmpty(), "NodeClaims of %s deleted", name)
	Eventually(nodesOf(name)).Should(BeEmpty(), "nodes of %s deleted", name)
	Expect(client.IgnoreNotFound(kube.Delete(ctx, &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
	Expect(client.IgnoreNotFound(kube.Delete(ctx, &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(kube.Get(ctx, client.ObjectKey{Name: name}, &karpv1.NodePool{})).NotTo(Succeed())
		g.Expect(kube.Get(ctx, client.ObjectKey{Name: name}, &kcv1.KCNodeClass{})).NotTo(Succeed())
	}).Should(Succeed(), "NodePool and KCNodeClass %s deleted", name)
	if len(vmsOfPool) > 0 {
		Eventually(vmIDs).ShouldNot(ContainElements(vmsOfPool), "the VMs of %s are gone", name)
	}
}

func claimsOf(pool string) func(Gomega) []karpv1.NodeClaim {
	return func(g Gomega) []karpv1.NodeClaim {
		list := &karpv1.NodeClaimList{}
		g.Expect(kube.List(ctx, list, client.MatchingLabels{karpv1.LabelNodePool: pool})).To(Succeed())
		return list.Items
	}
}

func nodesOf(pool string) func(Gomega) []corev1.Node {
	return func(g Gomega) []corev1.Node {
		list := &corev1.NodeList{}
		g.Expect(kube.List(ctx, list, client.MatchingLabels{karpv1.LabelNodePool: pool})).To(Succeed())
		return list.Items
	}
}

// leftovers names what an earlier run left: NodePools, NodeClaims, nodes, VMs.
func leftovers(g Gomega) []string {
	var left []string
	pools := &karpv1.NodePoolList{}
	g.Expect(kube.List(ctx, pools)).To(Succeed())
	for _, p := range pools.Items {
		left = append(left, "NodePool "+p.Name)
	}
	claims := &karpv1.NodeClaimList{}
	g.Expect(kube.List(ctx, claims)).To(Succeed())
	for _, c := range claims.Items {
		left = append(left, "NodeClaim "+c.Name)
	}
	nodes := &corev1.NodeList{}
	g.Expect(kube.List(ctx, nodes)).To(Succeed())
	for _, n := range nodes.Items {
		left = append(left, "Node "+n.Name)
	}
	for _, id := range vmIDs(g) {
		left = append(left, "VM "+id)
	}
	return left
}

// podTemplate is a pod of the inflate kind: pause, one container asking for cpu.
func podTemplate(app, cpu string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{
				Name: app, Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
			}},
		},
	}
}

// createDeployment creates a Deployment of replicas pods and deletes it, and waits for its
// pods to go, when the spec ends.
func createDeployment(name string, replicas int32, template corev1.PodTemplateSpec) *appsv1.Deployment {
	GinkgoHelper()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: template.Labels},
			Template: template,
		},
	}
	Expect(kube.Create(ctx, d)).To(Succeed())
	DeferCleanup(func() {
		Expect(client.IgnoreNotFound(kube.Delete(ctx, d))).To(Succeed())
		Eventually(podsOf(template.Labels["app"])).Should(BeEmpty(), "pods of %s deleted", name)
	})
	return d
}

func podsOf(app string) func(Gomega) []corev1.Pod {
	return func(g Gomega) []corev1.Pod {
		list := &corev1.PodList{}
		g.Expect(kube.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{"app": app})).To(Succeed())
		return list.Items
	}
}

// running returns how many pods are Running and Ready.
func running(pods []corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "" && slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
			return c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
		}) {
			n++
		}
	}
	return n
}

func ready(node corev1.Node) bool {
	return slices.ContainsFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	})
}

// eventNotes returns the notes of the events of reason about the object named name.
func eventNotes(name, reason string) func(Gomega) []string {
	return func(g Gomega) []string {
		list := &eventsv1.EventList{}
		g.Expect(kube.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		var notes []string
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Reason == reason {
				notes = append(notes, fmt.Sprintf("%s: %s", e.ReportingController, e.Note))
			}
		}
		return notes
	}
}

// update reads obj fresh, applies mutate and writes it back, again on conflicts.
func update[T client.Object](obj T, mutate func(T)) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(kube.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
		mutate(obj)
		g.Expect(kube.Update(ctx, obj)).To(Succeed())
	}).Should(Succeed(), "updating %T %s", obj, obj.GetName())
}

// emulatorAdmin calls the emulator's admin API (path below /_emulator) with a JSON body and
// expects 200.
func emulatorAdmin(method, path string, body any) {
	GinkgoHelper()
	data, err := json.Marshal(body)
	Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequest(method, cluster.emulatorURL+"/_emulator"+path, bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	answer, _ := io.ReadAll(resp.Body)
	Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s /_emulator%s: %s", method, path, answer)
}

// emulatorCalls returns how many calls of op the emulator has received.
func emulatorCalls(g Gomega, op string) int {
	var body emulator.AdminCalls
	emulatorGet(g, "/calls", &body)
	return body.Calls[op]
}

// operatorMetric returns the value of the operator's metric sample whose name and labels
// (as Prometheus prints them, e.g. `name{label="value"}`) are given, and whether it is there.
func operatorMetric(g Gomega, sample string) (string, bool) {
	g.Expect(cluster.operatorMetrics).NotTo(BeEmpty(), "cluster.env names OPERATOR_METRICS_URL")
	value, ok, err := scrape(cluster.operatorMetrics, sample)
	g.Expect(err).NotTo(HaveOccurred())
	return value, ok
}

// scrape reads a Prometheus endpoint and returns the value of the sample, and whether it is
// there.
func scrape(url, sample string) (string, bool, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", false, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", false, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			return strings.TrimSpace(v), true, nil
		}
	}
	return "", false, nil
}

// disrupted: the node is tainted karpenter.sh/disrupted or being deleted.
func disrupted(node corev1.Node) bool {
	return !node.DeletionTimestamp.IsZero() || slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool {
		return t.MatchTaint(&karpv1.DisruptedNoScheduleTaint)
	})
}

// initialized: the NodeClaim's node is registered and initialized.
func initialized(c karpv1.NodeClaim) bool {
	return meta.IsStatusConditionTrue(c.Status.Conditions, karpv1.ConditionTypeInitialized)
}

func claimNames(claims []karpv1.NodeClaim) []string {
	var names []string
	for _, c := range claims {
		names = append(names, c.Name)
	}
	return names
}

// createPoolPod creates a bare pod named name of the inflate kind that only the NodePool pool's
// nodes take, deleted when the spec ends.
func createPoolPod(name, pool, cpu string) *corev1.Pod {
	GinkgoHelper()
	template := poolPod(pool, name, cpu)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: template.Labels}, Spec: template.Spec}
	Expect(kube.Create(ctx, pod)).To(Succeed())
	DeferCleanup(func() { Expect(client.IgnoreNotFound(kube.Delete(ctx, pod))).To(Succeed()) })
	return pod
}

// poolPod is a pod of the inflate kind that only the NodePool pool's nodes take.
func poolPod(pool, app, cpu string) corev1.PodTemplateSpec {
	template := podTemplate(app, cpu)
	template.Spec.NodeSelector = map[string]string{karpv1.LabelNodePool: pool}
	return template
}

// fourCPUNodes is a createPool tweak: four-CPU nodes, which hold three one-CPU pods each,
// and the disruption settings d.
func fourCPUNodes(d karpv1.Disruption) func(*karpv1.NodePool) {
	return func(p *karpv1.NodePool) {
		p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements,
			requirement(kcv1.LabelInstanceCPU, corev1.NodeSelectorOpIn, "4"))
		p.Spec.Disruption = d
	}
}

// requirement is a NodePool requirement.
func requirement(key string, op corev1.NodeSelectorOperator, values ...string) karpv1.NodeSelectorRequirementWithMinValues {
	return karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

// watchNodeClassReady samples the KCNodeClass named every 500 ms from now on and returns a
// stop that ends the sampling and returns each sample in which it was not Ready.
func watchNodeClassReady(name string) (stop func() []string) {
	var mu sync.Mutex
	var lost []string
	stopSampling := sampleEvery(500*time.Millisecond, func(now time.Time) {
		current := &kcv1.KCNodeClass{}
		if kube.Get(ctx, client.ObjectKey{Name: name}, current) == nil && !meta.IsStatusConditionTrue(current.Status.Conditions, kcv1.ConditionTypeReady) {
			mu.Lock()
			defer mu.Unlock()
			lost = append(lost, fmt.Sprintf("%s: %+v", now.Format(time.StampMilli), meta.FindStatusCondition(current.Status.Conditions, kcv1.ConditionTypeReady)))
		}
	})
	DeferCleanup(stopSampling)
	return func() []string {
		stopSampling()
		mu.Lock()
		defer mu.Unlock()
		return lost
	}
}

// operatorSecret returns the operator's Secret of that name, wherever it is installed.
func operatorSecret(name string) *corev1.Secret {
	GinkgoHelper()
	secrets := &corev1.SecretList{}
	Expect(kube.List(ctx, secrets, client.MatchingFields{"metadata.name": name})).To(Succeed())
	Expect(secrets.Items).To(HaveLen(1), "the operator's Secret %s", name)
	return &secrets.Items[0]
}

// sampleEvery calls f every interval on its own goroutine until the returned stop is called;
// stop returns once f no longer runs. f must not use Gomega's Default (it does not run on
// the spec's goroutine). The last call of f starts after stop is called: a spec that stops
// once an Eventually has seen the end state then has that state sampled too, where a sample
// that was already listing when the state changed would otherwise be the last one.
func sampleEvery(interval time.Duration, f func(now time.Time)) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(exited)
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		for {
			f(time.Now())
			select {
			case <-done:
				f(time.Now())
				return
			case <-ticker.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-exited
	}
}

// vmNameLedger records, for every VM name seen, the VMs that had it. A NodeClaim's VM is named
// for the NodeClaim, so a name that had two VMs is a NodeClaim launched twice.
type vmNameLedger map[string]sets.Set[string]

func (l vmNameLedger) record(listed []kakaocloud.Instance) {
	for _, vm := range listed {
		if l[vm.Name] == nil {
			l[vm.Name] = sets.New[string]()
		}
		l[vm.Name].Insert(vm.ID)
	}
}

// doubled names each VM name that had more than one VM, with their ids.
func (l vmNameLedger) doubled() []string {
	var doubled []string
	for _, name := range slices.Sorted(maps.Keys(l)) {
		if ids := l[name]; ids.Len() > 1 {
			doubled = append(doubled, fmt.Sprintf("%s: %v", name, sets.List(ids)))
		}
	}
	return doubled
}

// upgradeReadiness is what a KCNodeClass says of its nodes' versions.
type upgradeReadiness struct {
	Versions  []kcv1.NodeVersionCount
	Condition metav1.Condition
}

// nodeClassUpgradeReadiness reads a KCNodeClass's node versions and its
// NodesOnControlPlaneVersion condition.
func nodeClassUpgradeReadiness(name string) func(Gomega) upgradeReadiness {
	return func(g Gomega) upgradeReadiness {
		nodeClass := &kcv1.KCNodeClass{}
		g.Expect(kube.Get(ctx, client.ObjectKey{Name: name}, nodeClass)).To(Succeed())
		c := meta.FindStatusCondition(nodeClass.Status.Conditions, kcv1.ConditionTypeNodesOnControlPlaneVersion)
		g.Expect(c).NotTo(BeNil(), "KCNodeClass %s has no %s condition", name, kcv1.ConditionTypeNodesOnControlPlaneVersion)
		return upgradeReadiness{Versions: nodeClass.Status.NodeVersions, Condition: *c}
	}
}
