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

package workload

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

// Cluster is a running cluster as the API server holds it: every object a disruption pass
// reads, and the instance types the cloud provider returns for its KCNodeClass.
type Cluster struct {
	// Now is when the cluster is observed: every node's consolidateAfter has elapsed.
	Now time.Time
	// NodeClass is the KCNodeClass of every NodePool, its status resolved against the
	// emulator's built-in catalog.
	NodeClass *kcv1.KCNodeClass
	// InstanceTypes are what the cloud provider returns for NodeClass over the emulator's
	// built-in catalog: every NodePool gets them all and narrows them by its requirements.
	InstanceTypes []*cloudprovider.InstanceType
	Namespaces    []*corev1.Namespace
	NodePools     []*karpv1.NodePool
	NodeClaims    []*karpv1.NodeClaim
	Nodes         []*corev1.Node
	DaemonSets    []*appsv1.DaemonSet
	// Pods are the DaemonSets' pods and the Deployments' (owned by their ReplicaSets), all
	// bound and running.
	Pods []*corev1.Pod
	PDBs []*policyv1.PodDisruptionBudget
}

// Names the consolidation cluster uses.
const (
	// WorkloadLabel is the label of the compute and memory NodePools' nodes and the key of
	// their taint; their pods select and tolerate it.
	WorkloadLabel = "example.com/workload"
	// ConsolidationNodeClass names the KCNodeClass every NodePool refers to.
	ConsolidationNodeClass = "default"
	// region of the emulator's built-in catalog.
	region = "kr-central-2"
	// kubeletVersion is the version the nodes report, the emulator cluster's.
	kubeletVersion = "v1.36.4"
)

// consolidationZones are the zones of the emulator's subnets karpenter-subnet-a|b|c.
var consolidationZones = []string{emulator.ZoneA, emulator.ZoneB, emulator.ZoneC}

// poolShape is one NodePool of the consolidation cluster: which instance types its nodes
// are, and what its Deployments' pods request.
type poolShape struct {
	name  string
	share float64 // of the nodes
	// families and their weights; sizes of each family are drawn from sizeWeights, over
	// large (2 vCPUs) to 8xlarge (32).
	families    []string
	familyShare []float64
	sizeWeights []float64
	// ratios are the GiB of memory per vCPU its Deployments' pods request, one per Deployment.
	ratios []float64
	// dedicated pools taint their nodes; their pods tolerate the taint and select the label.
	dedicated bool
}

var consolidationPools = []poolShape{
	{name: "general", share: 0.6, families: []string{"m2a", "c2a"}, familyShare: []float64{0.7, 0.3},
		sizeWeights: []float64{1, 3, 4, 3, 1}, ratios: []float64{1, 2, 3}},
	{name: "compute", share: 0.2, families: []string{"c2a"}, familyShare: []float64{1},
		sizeWeights: []float64{1, 2, 4, 3, 2}, ratios: []float64{0.5, 1, 1.5}, dedicated: true},
	{name: "memory", share: 0.2, families: []string{"r2a"}, familyShare: []float64{1},
		sizeWeights: []float64{1, 3, 4, 2, 1}, ratios: []float64{4, 5, 6}, dedicated: true},
}

var consolidationSizes = []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge"}

// cpuLadder are the CPU requests (millicores) of the Deployments' pods.
var cpuLadder = []int64{100, 200, 250, 500, 750, 1000, 1500, 2000, 3000, 4000}

// appNamespaces hold the Deployments; the DaemonSets run in kube-system.
var appNamespaces = []string{"shop", "payments", "search", "catalog", "analytics"}

// daemonSetShapes run on every node (they tolerate every taint): a CNI agent, a log shipper
// and a node-local DNS cache.
var daemonSetShapes = []struct {
	name     string
	cpu, mem int64 // millicores, MiB
}{{"cilium", 100, 128}, {"fluent-bit", 100, 200}, {"node-local-dns", 50, 64}}

// Deployment kinds: plain, spread over zones (maxSkew 1), or one pod per zone (required zonal
// anti-affinity).
const (
	kindPlain      = "plain"
	kindZoneSpread = "zone-spread"
	kindZoneAnti   = "zone-anti-affinity"
)

// ConsolidationCluster draws, from seed, a cluster of nodes nodes (at least 1) at 60–80 %
// utilisation that consolidation has work in. Its parts:
//   - three NodePools of one KCNodeClass, WhenEmptyOrUnderutilized after 30s with the default
//     10 % budget: general (m2a and c2a), and compute (c2a) and memory (r2a), both tainted and
//     labelled example.com/workload; instance types of 2 to 32 vCPUs, with the capacity,
//     overhead and relative cost the cloud provider gives the emulator's built-in flavors;
//   - nodes spread evenly over the three zones, each with its initialized, Consolidatable
//     NodeClaim, running three DaemonSets' pods and, most of them, 6–9 Deployment pods that
//     request 60–80 % of their allocatable CPU or memory; one in seven is underused (2–4
//     pods, 20–45 %), so about 10 pods per node in all;
//   - Deployments (pods owned by a ReplicaSet) in five namespaces, each of one pool and one pod
//     shape: plain, spread over zones with maxSkew 1, or one pod per zone by required zonal
//     anti-affinity; their pods are placed so that every spread and anti-affinity holds;
//   - PodDisruptionBudgets for about 60 % of the Deployments, by minAvailable or
//     maxUnavailable (a number or a percentage), with the status the disruption controller
//     would give them; some single-replica Deployments' budgets allow no disruption.
//
// The same nodes and seed give the same cluster.
func ConsolidationCluster(nodes int, seed uint64) *Cluster {
	g := &consolidationGen{
		rng:  rand.New(rand.NewPCG(seed, seed^0x5bd1e9955bd1e995)),
		c:    &Cluster{Now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)},
		open: map[deploymentKey][]*deployment{}, names: map[string]bool{},
	}
	g.c.NodeClass = CatalogNodeClass()
	g.c.InstanceTypes = CatalogInstanceTypes(g.c.NodeClass)
	for _, ns := range append([]string{metav1.NamespaceSystem}, appNamespaces...) {
		g.c.Namespaces = append(g.c.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{corev1.LabelMetadataName: ns}}})
	}
	for _, shape := range consolidationPools {
		g.c.NodePools = append(g.c.NodePools, consolidationNodePool(shape, g.c.Now))
	}
	for _, ds := range daemonSetShapes {
		g.c.DaemonSets = append(g.c.DaemonSets, daemonSet(ds.name, ds.cpu, ds.mem))
	}
	for i := range max(nodes, 1) {
		g.node(i)
	}
	g.finish()
	return g.c
}

type consolidationGen struct {
	rng *rand.Rand
	c   *Cluster
	// open are the Deployments still taking pods, by pool, pod CPU and memory ratio.
	open        map[deploymentKey][]*deployment
	deployments []*deployment
	names       map[string]bool
}

type deploymentKey struct {
	pool  string
	cpu   int64
	ratio float64
}

type deployment struct {
	name, namespace, kind, pool string
	replicaSet                  string
	cpu, mem                    int64 // millicores, bytes
	want                        int   // replicas it is drawn with
	perZone                     map[string]int
	pods                        []*corev1.Pod
}

// CatalogNodeClass is the KCNodeClass of the emulator's subnets (all three zones) and security
// group, with the status its controller resolves (the subnets' zones are what instance types
// read).
func CatalogNodeClass() *kcv1.KCNodeClass {
	nodeClass := &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: ConsolidationNodeClass},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: "1.36"},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: emulator.DefaultSecurityGroupName}},
			RootVolume:                 kcv1.RootVolume{SizeGiB: 50},
		},
	}
	for _, zone := range consolidationZones {
		name := "karpenter-subnet-" + zone[len(zone)-1:]
		nodeClass.Spec.SubnetSelectorTerms = append(nodeClass.Spec.SubnetSelectorTerms, kcv1.SubnetSelectorTerm{Name: name})
		nodeClass.Status.Subnets = append(nodeClass.Status.Subnets, kcv1.Subnet{ID: name, Name: name, Zone: zone})
	}
	return nodeClass
}

// catalogFlavors serves the emulator's built-in flavors.
type catalogFlavors []kakaocloud.Flavor

func (f catalogFlavors) Flavors(context.Context) ([]kakaocloud.Flavor, error) { return f, nil }

// CatalogInstanceTypes lists the instance types of the emulator's built-in catalog for a node
// class (its status's subnets give the zones) as the cloud provider does: the same provider
// over the flavors the emulator serves, with the built-in relative costs.
func CatalogInstanceTypes(nodeClass *kcv1.KCNodeClass) []*cloudprovider.InstanceType {
	instanceTypes, err := instancetype.NewProvider(catalogFlavors(emulator.DefaultCatalog().Flavors), nil, nil).List(context.Background(), nodeClass)
	if err != nil {
		panic(err) // the built-in catalog and a valid node class
	}
	return instanceTypes
}

func consolidationNodePool(shape poolShape, now time.Time) *karpv1.NodePool {
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: shape.name, Generation: 1},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
					{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: slices.Clone(shape.families)},
					{Key: kcv1.LabelInstanceCPU, Operator: corev1.NodeSelectorOpLt, Values: []string{"33"}},
					{Key: karpv1.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
				},
				NodeClassRef: &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: ConsolidationNodeClass},
				ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
			}},
			Disruption: karpv1.Disruption{
				ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter:    karpv1.MustParseNillableDuration("30s"),
				Budgets:             []karpv1.Budget{{Nodes: "10%"}},
			},
		},
		Status: karpv1.NodePoolStatus{Conditions: []metav1.Condition{
			{Type: karpv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: metav1.NewTime(now.Add(-30 * 24 * time.Hour))},
		}},
	}
	if shape.dedicated {
		np.Spec.Template.Labels = map[string]string{WorkloadLabel: shape.name}
		np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: WorkloadLabel, Value: shape.name, Effect: corev1.TaintEffectNoSchedule}}
	}
	return np
}

func daemonSet(name string, cpu, mem int64) *appsv1.DaemonSet {
	labels := map[string]string{"app.kubernetes.io/name": name}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem, UID: types.UID("ds-" + name), Generation: 1},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers:  []corev1.Container{container(name, cpu, mem<<20)},
				},
			},
		},
	}
}

func container(name string, cpu, mem int64) corev1.Container {
	return corev1.Container{
		Name: name, Image: "registry.example.com/" + name + ":1.0",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(mem, resource.BinarySI),
		}},
	}
}

// suffix is a random lower-case suffix, as generated names end.
func (g *consolidationGen) suffix(n int) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[g.rng.IntN(len(letters))]
	}
	return string(b)
}

// unique is prefix-<suffix>, not used before.
func (g *consolidationGen) unique(prefix string, n int) string {
	for {
		name := prefix + "-" + g.suffix(n)
		if !g.names[name] {
			g.names[name] = true
			return name
		}
	}
}

func weighted(rng *rand.Rand, weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := rng.Float64() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

func (g *consolidationGen) pickPool() poolShape {
	shares := make([]float64, len(consolidationPools))
	for i, p := range consolidationPools {
		shares[i] = p.share
	}
	return consolidationPools[weighted(g.rng, shares)]
}

func (g *consolidationGen) instanceType(name string) *cloudprovider.InstanceType {
	for _, it := range g.c.InstanceTypes {
		if it.Name == name {
			return it
		}
	}
	panic("no instance type " + name)
}

// node adds the i-th node: its NodeClaim, its DaemonSet pods and its Deployment pods.
func (g *consolidationGen) node(i int) {
	shape := g.pickPool()
	family := shape.families[weighted(g.rng, shape.familyShare)]
	it := g.instanceType(family + "." + consolidationSizes[weighted(g.rng, shape.sizeWeights)])
	zone := consolidationZones[i%len(consolidationZones)]
	np := g.c.NodePools[slices.IndexFunc(consolidationPools, func(p poolShape) bool { return p.name == shape.name })]
	name := g.unique(shape.name, 5)
	created := g.c.Now.Add(-time.Duration(1+g.rng.IntN(20*24)) * time.Hour)
	providerID := fmt.Sprintf("%s%08x-%04x-%04x-%04x-%012x", kcv1.ProviderIDPrefix, g.rng.Uint32(), g.rng.IntN(1<<16), g.rng.IntN(1<<16), g.rng.IntN(1<<16), g.rng.Uint64()&(1<<48-1))

	labels := map[string]string{
		karpv1.LabelNodePool: shape.name, karpv1.LabelTopologyZone: zone, karpv1.LabelTopologyRegion: region,
		karpv1.LabelCapacityType: karpv1.CapacityTypeOnDemand, karpv1.LabelRegistered: "true", karpv1.LabelInitialized: "true",
		kcv1.LabelNodeClass: ConsolidationNodeClass,
	}
	maps.Copy(labels, it.Labels)
	maps.Copy(labels, np.Spec.Template.Labels)
	nodeClaim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("nodeclaim-" + name),
			CreationTimestamp: metav1.NewTime(created), Finalizers: []string{karpv1.TerminationFinalizer}},
		Spec: karpv1.NodeClaimSpec{
			Taints: slices.Clone(np.Spec.Template.Spec.Taints),
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: karpv1.LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{shape.name}},
				{Key: karpv1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{it.Name}},
				{Key: karpv1.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
			},
			NodeClassRef: np.Spec.Template.Spec.NodeClassRef.DeepCopy(),
			ExpireAfter:  np.Spec.Template.Spec.ExpireAfter,
		},
		Status: karpv1.NodeClaimStatus{ProviderID: providerID, NodeName: name, Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable()},
	}
	for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized, karpv1.ConditionTypeReady} {
		nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: metav1.NewTime(created.Add(time.Minute))})
	}
	// Consolidatable since some minutes after its pods last changed, well past consolidateAfter.
	nodeClaim.Status.Conditions = append(nodeClaim.Status.Conditions, metav1.Condition{Type: karpv1.ConditionTypeConsolidatable, Status: metav1.ConditionTrue,
		Reason: karpv1.ConditionTypeConsolidatable, LastTransitionTime: metav1.NewTime(g.c.Now.Add(-time.Duration(5+g.rng.IntN(120)) * time.Minute))})

	nodeLabels := maps.Clone(labels)
	nodeLabels[corev1.LabelHostname] = name
	heartbeat := metav1.NewTime(g.c.Now.Add(-10 * time.Second))
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels, UID: types.UID("node-" + name), CreationTimestamp: metav1.NewTime(created.Add(time.Minute))},
		Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: slices.Clone(np.Spec.Template.Spec.Taints)},
		Status: corev1.NodeStatus{
			Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: heartbeat, LastTransitionTime: metav1.NewTime(created.Add(time.Minute))}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", 16*(i%3)+i/250%16, 2+i%250)}, {Type: corev1.NodeHostName, Address: name}},
			NodeInfo:  corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: kubeletVersion, ContainerRuntimeVersion: "containerd://2.1.4"},
		},
	}
	g.c.NodeClaims = append(g.c.NodeClaims, nodeClaim)
	g.c.Nodes = append(g.c.Nodes, node)

	var usedCPU, usedMem int64
	for _, ds := range g.c.DaemonSets {
		pod := g.daemonSetPod(ds, node)
		usedCPU += pod.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		usedMem += pod.Spec.Containers[0].Resources.Requests.Memory().Value()
	}
	g.fill(shape, node, usedCPU, usedMem)
}

func (g *consolidationGen) daemonSetPod(ds *appsv1.DaemonSet, node *corev1.Node) *corev1.Pod {
	name := g.unique(ds.Name, 5)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ds.Namespace, UID: types.UID(ds.Namespace + "/" + name), Labels: maps.Clone(ds.Spec.Template.Labels),
			CreationTimestamp: node.CreationTimestamp,
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: new(true), BlockOwnerDeletion: new(true)}},
		},
		Spec: *ds.Spec.Template.Spec.DeepCopy(),
	}
	// As the DaemonSet controller pins its pods to their node.
	pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node.Name}}}}},
	}}}
	g.bind(pod, node)
	return pod
}

func (g *consolidationGen) bind(pod *corev1.Pod, node *corev1.Node) {
	pod.Spec.NodeName = node.Name
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: new(pod.CreationTimestamp),
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}
	g.c.Pods = append(g.c.Pods, pod)
}

// fill binds Deployment pods to the node until their requests, with the DaemonSets' (used),
// reach the node's drawn utilisation of its allocatable CPU or memory: count pods of sizes
// that share what is left, and a few more while it is not nearly reached.
func (g *consolidationGen) fill(shape poolShape, node *corev1.Node, usedCPU, usedMem int64) {
	util, count := 0.6+0.2*g.rng.Float64(), 6+g.rng.IntN(4)
	if g.rng.IntN(7) == 0 {
		util, count = 0.2+0.25*g.rng.Float64(), 2+g.rng.IntN(3)
	}
	allocCPU, allocMem := node.Status.Allocatable.Cpu().MilliValue(), node.Status.Allocatable.Memory().Value()
	targetCPU, targetMem := int64(util*float64(allocCPU)), int64(util*float64(allocMem))
	nodeRatio := float64(allocMem) / (1 << 30) / (float64(allocCPU) / 1000)
	zone := node.Labels[karpv1.LabelTopologyZone]
	for slot := 0; ; slot++ {
		left := count - slot
		if left <= 0 {
			if slot >= count+3 || float64(usedCPU) >= 0.95*float64(targetCPU) || float64(usedMem) >= 0.95*float64(targetMem) {
				return
			}
			left = 1
		}
		perPod := float64(targetCPU-usedCPU) / float64(left) * (0.7 + 0.6*g.rng.Float64())
		// The step of the ladder nearest perPod, then smaller ones while the pod does not fit;
		// memory ratios the node cannot follow are left out.
		placed := false
		for step := nearest(cpuLadder, perPod); step >= 0 && !placed; step-- {
			cpu := cpuLadder[step]
			if usedCPU+cpu > targetCPU {
				continue
			}
			var ratios []float64
			for _, r := range shape.ratios {
				if r <= nodeRatio && usedMem+podMemory(r, cpu) <= targetMem {
					ratios = append(ratios, r)
				}
			}
			if len(ratios) == 0 {
				continue
			}
			d := g.deploymentFor(shape, cpu, ratios[g.rng.IntN(len(ratios))], zone)
			g.deploymentPod(d, node)
			usedCPU, usedMem = usedCPU+d.cpu, usedMem+d.mem
			placed = true
		}
		if !placed {
			return
		}
	}
}

// nearest is the index of the value of ladder nearest v.
func nearest(ladder []int64, v float64) int {
	best := 0
	for i, step := range ladder {
		if math.Abs(float64(step)-v) < math.Abs(float64(ladder[best])-v) {
			best = i
		}
	}
	return best
}

// podMemory is the memory request, in whole MiB, of a pod of cpu millicores at ratio GiB per
// vCPU.
func podMemory(ratio float64, cpu int64) int64 {
	return int64(ratio*float64(cpu)/1000*(1<<30)) >> 20 << 20
}

// deploymentFor returns a Deployment of the pool and pod shape that may take a pod in zone: an
// open one whose spread or anti-affinity the pod keeps, or a new one.
func (g *consolidationGen) deploymentFor(shape poolShape, cpu int64, ratio float64, zone string) *deployment {
	key := deploymentKey{pool: shape.name, cpu: cpu, ratio: ratio}
	open := g.open[key]
	var fits []*deployment
	for _, d := range open {
		if d.accepts(zone) {
			fits = append(fits, d)
		}
	}
	if len(fits) > 0 {
		d := fits[g.rng.IntN(len(fits))]
		if len(d.pods)+1 >= d.want {
			g.open[key] = slices.DeleteFunc(open, func(o *deployment) bool { return o == d })
		}
		return d
	}
	d := g.newDeployment(shape, cpu, ratio)
	if d.want > 1 {
		g.open[key] = append(open, d)
	}
	return d
}

// accepts reports whether a pod in zone keeps the Deployment's zone spread (maxSkew 1) or
// anti-affinity (one pod per zone).
func (d *deployment) accepts(zone string) bool {
	switch d.kind {
	case kindZoneAnti:
		return d.perZone[zone] == 0
	case kindZoneSpread:
		least := math.MaxInt
		for _, z := range consolidationZones {
			least = min(least, d.perZone[z])
		}
		return d.perZone[zone] == least
	}
	return true
}

func (g *consolidationGen) newDeployment(shape poolShape, cpu int64, ratio float64) *deployment {
	d := &deployment{
		namespace: appNamespaces[g.rng.IntN(len(appNamespaces))], pool: shape.name,
		cpu: cpu, mem: podMemory(ratio, cpu), perZone: map[string]int{},
	}
	d.name = g.unique(shape.name+fmt.Sprintf("-svc%03d", len(g.deployments)), 3)
	d.replicaSet = g.unique(d.name, 10)
	switch x := g.rng.Float64(); {
	case x < 0.15:
		d.kind, d.want = kindZoneAnti, len(consolidationZones)
	case x < 0.5:
		d.kind = kindZoneSpread
	default:
		d.kind = kindPlain
	}
	if d.kind != kindZoneAnti {
		switch x := g.rng.Float64(); {
		case x < 0.1:
			d.want = 1
		case x < 0.5:
			d.want = 2 + g.rng.IntN(4)
		case x < 0.85:
			d.want = 6 + g.rng.IntN(15)
		default:
			d.want = 21 + g.rng.IntN(40)
		}
	}
	g.deployments = append(g.deployments, d)
	return d
}

func (g *consolidationGen) deploymentPod(d *deployment, node *corev1.Node) {
	name := g.unique(d.replicaSet, 5)
	labels := map[string]string{"app": d.name, appsv1.DefaultDeploymentUniqueLabelKey: d.replicaSet[len(d.name)+1:]}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.name}}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: d.namespace, UID: types.UID(d.namespace + "/" + name), Labels: labels,
			CreationTimestamp: metav1.NewTime(g.c.Now.Add(-time.Duration(10+g.rng.IntN(24*60)) * time.Minute)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: d.replicaSet,
				UID: types.UID("rs-" + d.namespace + "-" + d.replicaSet), Controller: new(true), BlockOwnerDeletion: new(true)}},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{container("app", d.cpu, d.mem)}},
	}
	if pod.CreationTimestamp.Before(&node.CreationTimestamp) {
		pod.CreationTimestamp = node.CreationTimestamp
	}
	if d.pool != consolidationPools[0].name {
		pod.Spec.NodeSelector = map[string]string{WorkloadLabel: d.pool}
		pod.Spec.Tolerations = []corev1.Toleration{{Key: WorkloadLabel, Operator: corev1.TolerationOpEqual, Value: d.pool, Effect: corev1.TaintEffectNoSchedule}}
	}
	switch d.kind {
	case kindZoneSpread:
		pod.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector}}
	case kindZoneAnti:
		pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: corev1.LabelTopologyZone, LabelSelector: selector}}}}
	}
	g.bind(pod, node)
	d.pods = append(d.pods, pod)
	d.perZone[node.Labels[karpv1.LabelTopologyZone]]++
}

// finish adds the PodDisruptionBudgets, now that every Deployment has its pods.
func (g *consolidationGen) finish() {
	for _, d := range g.deployments {
		replicas := len(d.pods)
		if g.rng.Float64() >= 0.6 || (replicas == 1 && g.rng.Float64() >= 0.3) {
			continue
		}
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: d.namespace, Generation: 1},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.name}}},
		}
		var allowed, desired int
		switch x := g.rng.Float64(); {
		case replicas == 1 || x < 0.25:
			// minAvailable n-1 (at least 1: a single replica may not be disrupted).
			m := max(replicas-1, 1)
			pdb.Spec.MinAvailable = new(intstr.FromInt32(int32(m)))
			desired = m
		case x < 0.5:
			pdb.Spec.MinAvailable = new(intstr.FromString("50%"))
			desired = (replicas + 1) / 2
		case x < 0.75:
			pdb.Spec.MaxUnavailable = new(intstr.FromInt32(1))
			desired = replicas - 1
		default:
			pdb.Spec.MaxUnavailable = new(intstr.FromString("25%"))
			desired = replicas - (replicas+3)/4
		}
		allowed = max(replicas-desired, 0)
		pdb.Status = policyv1.PodDisruptionBudgetStatus{
			ObservedGeneration: 1, DisruptionsAllowed: int32(allowed), CurrentHealthy: int32(replicas),
			DesiredHealthy: int32(desired), ExpectedPods: int32(replicas),
			Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: conditionStatus(allowed > 0),
				Reason:             map[bool]string{true: policyv1.SufficientPodsReason, false: policyv1.InsufficientPodsReason}[allowed > 0],
				LastTransitionTime: metav1.NewTime(g.c.Now.Add(-time.Hour)), ObservedGeneration: 1}},
		}
		g.c.PDBs = append(g.c.PDBs, pdb)
	}
}

func conditionStatus(b bool) metav1.ConditionStatus {
	if b {
		return metav1.ConditionTrue
	}
	return metav1.ConditionFalse
}
