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

// Command demo walks the scenarios of the product documents on a running local cluster
// (hack/local-up) and prints a timeline: scale inflate to 30 and watch nodes appear, scale it
// to 0 and watch them consolidated away, then set a budget of one node, change the
// KCNodeClass's Kubernetes version and watch the drifted nodes replaced one at a time. It ends
// with a summary and fails (exit 1) when a scenario does not reach its goal in time.
//
// make demo brings the cluster up, runs this and tears the cluster down.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

const (
	demoNamespace = "default"
	fromVersion   = "1.35"
	toVersion     = "1.36"
)

type demo struct {
	kube     client.Client
	emulator string
	timeline *timeline
	timeout  time.Duration
}

func main() {
	emulatorURL := flag.String("emulator-url", os.Getenv("KAKAOCLOUD_EMULATOR_URL"), "The KakaoCloud emulator's base URL (its admin API lists the VMs).")
	timeout := flag.Duration("timeout", 5*time.Minute, "How long each scenario may take to reach its goal.")
	flag.Parse()
	if *emulatorURL == "" {
		fmt.Fprintln(os.Stderr, "demo: set KAKAOCLOUD_EMULATOR_URL or --emulator-url (hack/local-up writes it in cluster.env)")
		os.Exit(2)
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(karpv1.AddToScheme(scheme))
	utilruntime.Must(kcv1.AddToScheme(scheme))
	kube, err := client.New(ctrl.GetConfigOrDie(), client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := &demo{kube: kube, emulator: strings.TrimSuffix(*emulatorURL, "/"), timeline: newTimeline(kube, os.Stdout), timeout: *timeout}
	go d.timeline.run(ctx)
	if err := d.run(ctx); err != nil {
		d.timeline.poll(ctx)
		fmt.Fprintln(os.Stdout, "\nDEMO FAILED:", err)
		os.Exit(1)
	}
}

//nolint:gocyclo // the demo's script, one step after another as the timeline prints them; split, it would no longer read as the story it tells
func (d *demo) run(ctx context.Context) error {
	d.timeline.section("Set up: KCNodeClass default (Kubernetes " + fromVersion + ") and NodePool default, deployment inflate (1 CPU per pod, 0 replicas)")
	if err := d.setUp(ctx); err != nil {
		return err
	}

	d.timeline.section("Scenario 1: scale inflate to 30 - nodes appear and every pod runs")
	scaled := time.Now()
	if err := d.scale(ctx, 30); err != nil {
		return err
	}
	if err := d.waitFor(ctx, "30 inflate pods running", func() (bool, error) { return d.inflateRunning(ctx, 30) }); err != nil {
		return err
	}
	allRunning := time.Since(scaled)
	peakCost, peakNodes, err := d.capacityCost(ctx)
	if err != nil {
		return err
	}
	d.timeline.printf("all 30 pods running %.1fs after the scale-up, on %d nodes costing %.1f/h (relative units)", allRunning.Seconds(), peakNodes, peakCost)

	d.timeline.section("Scenario 2: scale inflate to 0 - the empty nodes are consolidated away")
	if err := d.scale(ctx, 0); err != nil {
		return err
	}
	if err := d.waitFor(ctx, "no NodeClaim and no VM left", func() (bool, error) { return d.empty(ctx) }); err != nil {
		return err
	}

	d.timeline.section(`Scenario 3: budget nodes "1", Kubernetes ` + fromVersion + " -> " + toVersion + " - drifted nodes replaced one at a time")
	if err := d.scale(ctx, 12); err != nil {
		return err
	}
	if err := d.waitFor(ctx, "12 inflate pods running", func() (bool, error) { return d.inflateRunning(ctx, 12) }); err != nil {
		return err
	}
	// Node names come from the VMs' addresses and can be reused: follow the NodeClaims.
	before, err := d.poolNames(ctx, &karpv1.NodeClaimList{})
	if err != nil {
		return err
	}
	if len(before) < 2 {
		return fmt.Errorf("scenario 3 needs at least 2 nodes, got %d", len(before))
	}
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if err := d.patch(ctx, np, `patched NodePool default: disruption.budgets = [{nodes: "1"}]`, func() {
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
	}); err != nil {
		return err
	}
	nodeClass := &kcv1.KCNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if err := d.patch(ctx, nodeClass, "patched KCNodeClass default: bootstrap.kubernetesVersion = "+toVersion, func() {
		nodeClass.Spec.Bootstrap.KubernetesVersion = toVersion
	}); err != nil {
		return err
	}
	maxDisrupting := 0
	err = d.waitFor(ctx, "every node replaced by one of Kubernetes "+toVersion, func() (bool, error) {
		n, err := d.disrupting(ctx)
		if err != nil {
			return false, err
		}
		maxDisrupting = max(maxDisrupting, n)
		now, err := d.poolNames(ctx, &karpv1.NodeClaimList{})
		if err != nil {
			return false, err
		}
		for _, name := range before {
			if slices.Contains(now, name) {
				return false, nil
			}
		}
		if ok, err := d.nodesAt(ctx, "v"+toVersion+"."); !ok || err != nil {
			return false, err
		}
		return d.inflateRunning(ctx, 12)
	})
	if err != nil {
		return err
	}
	d.timeline.printf("the %d drifted nodes were replaced; at most %d was being disrupted at a time", len(before), maxDisrupting)
	if maxDisrupting > 1 {
		return fmt.Errorf("the budget allows 1 node at a time, %d were disrupted together", maxDisrupting)
	}

	d.timeline.section("Clean up: delete inflate - nodes consolidated, no VM left")
	if err := d.kube.Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "inflate", Namespace: demoNamespace}}); err != nil {
		return err
	}
	if err := d.waitFor(ctx, "no NodeClaim and no VM left", func() (bool, error) { return d.empty(ctx) }); err != nil {
		return err
	}

	launched := d.timeline.launchedTypes()
	fmt.Printf("\n=== Summary\n")
	fmt.Printf("nodes launched:          %d (%s)\n", len(launched), summarizeTypes(launched))
	fmt.Printf("time to all 30 Running:  %.1fs\n", allRunning.Seconds())
	fmt.Printf("capacity for 30 pods:    %d nodes, %.1f/h in relative cost units (docs/instance-types.md)\n", peakNodes, peakCost)
	fmt.Printf("drift with budget 1:     %d nodes replaced, at most %d at a time\n", len(before), maxDisrupting)
	fmt.Printf("VMs left:                0\n")
	return nil
}

func summarizeTypes(launched map[string]string) string {
	counts := map[string]int{}
	for _, t := range launched {
		counts[t]++
	}
	var parts []string
	for t, n := range counts {
		parts = append(parts, fmt.Sprintf("%d× %s", n, t))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// setUp applies the seed documents' KCNodeClass and NodePool, sized so that 30 one-CPU pods
// need several nodes (instance sizes up to 8 vCPUs), and the inflate deployment.
func (d *demo) setUp(ctx context.Context) error {
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: fromVersion},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}, {Name: "karpenter-subnet-b"}, {Name: "karpenter-subnet-c"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
		},
	}
	if err := d.kube.Create(ctx, nodeClass); err != nil {
		return fmt.Errorf("creating KCNodeClass default: %w", err)
	}
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{
				ObjectMeta: karpv1.ObjectMeta{Labels: map[string]string{"team": "checkout", "env": "dev"}},
				Spec: karpv1.NodeClaimTemplateSpec{
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
						{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
						{Key: corev1.LabelOSStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}},
						{Key: karpv1.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
						{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"c2a", "m2a", "r2a"}},
						{Key: kcv1.LabelInstanceCPU, Operator: corev1.NodeSelectorOpLt, Values: []string{"9"}},
					},
					NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"},
					ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
				},
			},
			Limits: karpv1.Limits{corev1.ResourceCPU: resource.MustParse("1000")},
			Disruption: karpv1.Disruption{
				ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter:    karpv1.MustParseNillableDuration("10s"),
			},
		},
	}
	if err := d.kube.Create(ctx, np); err != nil {
		return fmt.Errorf("creating NodePool default: %w", err)
	}
	if err := d.waitFor(ctx, "NodePool default Ready", func() (bool, error) {
		if err := d.kube.Get(ctx, client.ObjectKeyFromObject(np), np); err != nil {
			return false, err
		}
		return meta.IsStatusConditionTrue(np.Status.Conditions, karpv1.ConditionTypeReady), nil
	}); err != nil {
		return err
	}
	labels := map[string]string{"app": "inflate"}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "inflate", Namespace: demoNamespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: ptr.To[int64](0),
					Containers: []corev1.Container{{
						Name: "inflate", Image: "registry.k8s.io/pause:3.10",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
					}},
				},
			},
		},
	}
	return d.kube.Create(ctx, deploy)
}

func (d *demo) scale(ctx context.Context, replicas int32) error {
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: demoNamespace, Name: "inflate"}}
	return d.patch(ctx, deploy, fmt.Sprintf("kubectl scale deployment inflate --replicas %d", replicas), func() { deploy.Spec.Replicas = &replicas })
}

// patch changes obj (read fresh first) with mutate and prints what says it did.
func (d *demo) patch(ctx context.Context, obj client.Object, what string, mutate func()) error {
	if err := d.kube.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return err
	}
	stored := obj.DeepCopyObject().(client.Object)
	mutate()
	d.timeline.printf("%s", what)
	return d.kube.Patch(ctx, obj, client.MergeFrom(stored))
}

// waitFor polls cond every second until it holds, failing after the scenario timeout.
func (d *demo) waitFor(ctx context.Context, what string, cond func() (bool, error)) error {
	err := wait.PollUntilContextTimeout(ctx, time.Second, d.timeout, true, func(context.Context) (bool, error) { return cond() })
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	d.timeline.printf("reached: %s", what)
	return nil
}

func (d *demo) inflateRunning(ctx context.Context, want int) (bool, error) {
	list := &corev1.PodList{}
	if err := d.kube.List(ctx, list, client.InNamespace(demoNamespace), client.MatchingLabels{"app": "inflate"}); err != nil {
		return false, err
	}
	running := 0
	for _, p := range list.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
			running++
		}
	}
	return running == want && len(list.Items) == want, nil
}

// poolNames names the objects of list's kind in the default NodePool.
func (d *demo) poolNames(ctx context.Context, list client.ObjectList) ([]string, error) {
	if err := d.kube.List(ctx, list, client.MatchingLabels{karpv1.LabelNodePool: "default"}); err != nil {
		return nil, err
	}
	objects, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, o := range objects {
		names = append(names, o.(client.Object).GetName())
	}
	return names, nil
}

// nodesAt reports whether every managed node's kubelet has the version prefix.
func (d *demo) nodesAt(ctx context.Context, prefix string) (bool, error) {
	list := &corev1.NodeList{}
	if err := d.kube.List(ctx, list, client.MatchingLabels{karpv1.LabelNodePool: "default"}); err != nil {
		return false, err
	}
	for _, n := range list.Items {
		if !strings.HasPrefix(n.Status.NodeInfo.KubeletVersion, prefix) {
			return false, nil
		}
	}
	return len(list.Items) > 0, nil
}

// disrupting counts the NodeClaims on their way out.
func (d *demo) disrupting(ctx context.Context) (int, error) {
	list := &karpv1.NodeClaimList{}
	if err := d.kube.List(ctx, list); err != nil {
		return 0, err
	}
	n := 0
	for _, c := range list.Items {
		if !c.DeletionTimestamp.IsZero() {
			n++
		}
	}
	return n, nil
}

// empty reports whether no NodeClaim, no managed node and no VM remain.
func (d *demo) empty(ctx context.Context) (bool, error) {
	claims := &karpv1.NodeClaimList{}
	if err := d.kube.List(ctx, claims); err != nil {
		return false, err
	}
	nodes, err := d.poolNames(ctx, &corev1.NodeList{})
	if err != nil {
		return false, err
	}
	vms, err := d.vms(ctx)
	if err != nil {
		return false, err
	}
	return len(claims.Items) == 0 && len(nodes) == 0 && len(vms) == 0, nil
}

// vms lists the emulator's VMs through its admin API.
func (d *demo) vms(ctx context.Context) ([]kakaocloud.Instance, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.emulator+"/_emulator/instances", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Instances []kakaocloud.Instance `json:"instances"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("reading the emulator's instances: %w", err)
	}
	return body.Instances, nil
}

// capacityCost prices the VMs running now with the built-in relative cost table.
func (d *demo) capacityCost(ctx context.Context) (float64, int, error) {
	vms, err := d.vms(ctx)
	if err != nil {
		return 0, 0, err
	}
	prices := instancetype.NewPriceTable()
	total := 0.0
	for _, vm := range vms {
		f := vm.Flavor
		total += prices.Price(kakaocloud.Flavor{Name: f.Name, VCPUs: f.VCPUs, MemoryMB: f.MemoryMB, HWType: f.HWType, HWCount: f.HWCount})
	}
	return total, len(vms), nil
}
