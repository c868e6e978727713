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

package conformance

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

var zones = []string{"kr-central-2-a", "kr-central-2-b", "kr-central-2-c"}

// Custom labels: teamLabel is defined by some NodePools' template labels, tierLabel by some
// NodePools' requirements, and undefinedLabel by none (pods asking for it must stay pending).
const (
	teamLabel      = "example.com/team"
	tierLabel      = "example.com/tier"
	undefinedLabel = "example.com/undefined"
	groupLabel     = "example.com/node-group" // on unmanaged nodes only
	appLabel       = "app"
	roleLabel      = "example.com/role"  // pods of several apps a pod affinity term selects together
	hashLabel      = "pod-template-hash" // a Deployment's revision, for matchLabelKeys
)

// blockDriver is the CSI driver of the drawn volumes and StorageClass, whose attach limit some
// nodes' CSINodes set.
const blockDriver = "block.csi.kakaocloud.com"

// world is one random cluster and workload.
type world struct {
	seed   uint64
	rng    *rand.Rand
	now    time.Time
	serial int

	instanceTypes []*cloudprovider.InstanceType
	nodePools     []*karpv1.NodePool
	nodes         []*corev1.Node
	nodeClaims    []*karpv1.NodeClaim
	pods          []*corev1.Pod // bound and pending
	daemonSets    []*corev1.Pod // templates, with the DaemonSet's name as the pod name
	namespaces    []*corev1.Namespace
	volumes       []*corev1.PersistentVolume
	claims        []*corev1.PersistentVolumeClaim
	classes       []*storagev1.StorageClass
	csiNodes      []*storagev1.CSINode
	pdbs          []*policyv1.PodDisruptionBudget
	// nominated is where provisioning put each pod that waits for a NodeClaim in flight, as
	// the provisioner remembers it for its next pass.
	nominated map[types.UID]destination.Destination
}

func (w *world) name(prefix string) string {
	w.serial++
	return fmt.Sprintf("%s-%d", prefix, w.serial)
}

func (w *world) pick(n int) int { return w.rng.IntN(n) }

func (w *world) chance(p float64) bool { return w.rng.Float64() < p }

// newWorld draws a cluster: instance types in three families, one to three NodePools with
// weights, taints, labels and limits, unmanaged and managed nodes with pods, daemonsets, and
// namespaces.
func newWorld(seed uint64) *world {
	w := &world{seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	w.instanceTypes = instanceTypes(w)
	for _, ns := range []string{"default", "team-a", "team-b"} {
		w.namespaces = append(w.namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"kubernetes.io/metadata.name": ns, "tenant": ns}}})
	}
	w.classes = append(w.classes, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "zonal"}, Provisioner: blockDriver,
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)})
	w.drawNodePools()
	w.drawDaemonSets()
	w.drawUnmanagedNodes()
	w.drawManagedNodes()
	return w
}

// instanceTypes are 2 to 16 vCPU in three memory ratios, and a GPU family of 8 and 16 vCPU with
// one GPU per 8, each offered in two or three zones, with a 50 GiB root volume for
// ephemeral storage.
func instanceTypes(w *world) []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, fam := range []struct {
		name  string
		ratio int64 // GiB per vCPU
		price float64
		gpu   bool
	}{{"c2a", 2, 0.04, false}, {"m2a", 4, 0.05, false}, {"r2a", 8, 0.065, false}, {"p2a", 8, 0.2, true}} {
		for _, cpu := range []int64{2, 4, 8, 16} {
			if fam.gpu && cpu < 8 {
				continue
			}
			name := fmt.Sprintf("%s.%dxlarge", fam.name, cpu/2)
			mem := cpu * fam.ratio * 1024
			it := &cloudprovider.InstanceType{
				Name: name,
				Labels: map[string]string{
					karpv1.LabelInstanceType: name, karpv1.LabelArch: "amd64", karpv1.LabelOS: "linux",
					kcv1.LabelInstanceFamily: fam.name, kcv1.LabelInstanceSize: fmt.Sprintf("%dxlarge", cpu/2),
					kcv1.LabelInstanceCPU: strconv.FormatInt(cpu, 10), kcv1.LabelInstanceMemory: strconv.FormatInt(mem, 10),
				},
				Capacity: corev1.ResourceList{
					corev1.ResourceCPU:              *resource.NewQuantity(cpu, resource.DecimalSI),
					corev1.ResourceMemory:           *resource.NewQuantity(mem<<20, resource.BinarySI),
					corev1.ResourcePods:             *resource.NewQuantity(min(10*cpu, 110), resource.DecimalSI),
					corev1.ResourceEphemeralStorage: resource.MustParse("50Gi"),
				},
				Overhead: cloudprovider.Overhead{KubeReserved: corev1.ResourceList{
					corev1.ResourceCPU:              resource.MustParse("100m"),
					corev1.ResourceMemory:           resource.MustParse("512Mi"),
					corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
				}},
			}
			if fam.gpu {
				it.Capacity[gpuResource] = *resource.NewQuantity(cpu/8, resource.DecimalSI)
			}
			for i, z := range zones {
				if (cpu == 16 && i == 2) || w.chance(0.1) {
					continue // gaps: not every type is sold in every zone
				}
				it.Offerings = append(it.Offerings, cloudprovider.Offering{Zone: z, CapacityType: "on-demand",
					Price: fam.price * float64(cpu) * (1 + 0.02*float64(i)), Available: true})
			}
			if len(it.Offerings) > 0 {
				out = append(out, it)
			}
		}
	}
	return out
}

func (w *world) drawNodePools() {
	count := 1 + w.pick(3)
	for i := range count {
		np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%d", i), Generation: 1}}
		np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: kcv1.Group, Kind: "KCNodeClass", Name: "default"}
		reqs := []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}}
		switch w.pick(4) {
		case 0:
			reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"c2a", "m2a"}})
		case 1:
			reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: zones[:2]})
		case 2:
			reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: kcv1.LabelInstanceCPU, Operator: corev1.NodeSelectorOpLt, Values: []string{"16"}})
		}
		if w.chance(0.4) {
			reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: tierLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{"gold", "silver"}})
		}
		np.Spec.Template.Spec.Requirements = reqs
		if w.chance(0.5) {
			np.Spec.Template.Labels = map[string]string{teamLabel: []string{"a", "b"}[w.pick(2)]}
		}
		if i > 0 && w.chance(0.5) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "example.com/dedicated", Value: np.Name, Effect: corev1.TaintEffectNoSchedule}}
		}
		if w.chance(0.2) {
			np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, corev1.Taint{Key: "example.com/spare", Effect: corev1.TaintEffectPreferNoSchedule})
		}
		if w.chance(0.3) {
			np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoSchedule}}
		}
		if w.chance(0.5) {
			np.Spec.Weight = new(int32(1 + w.pick(100)))
		}
		if w.chance(0.3) {
			np.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: *resource.NewQuantity(int64(8+w.pick(40)), resource.DecimalSI)}
		}
		np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("0s")
		np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: []string{"1", "50%", "100%"}[w.pick(3)]}}
		np.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: metav1.NewTime(w.now)}}
		w.nodePools = append(w.nodePools, np)
	}
}

func (w *world) drawDaemonSets() {
	w.daemonSets = append(w.daemonSets, w.daemonSet("node-agent", "50m", "64Mi", nil, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}))
	if w.chance(0.6) {
		w.daemonSets = append(w.daemonSets, w.daemonSet("log-shipper", "200m", "256Mi", nil, nil))
	}
	if w.chance(0.4) {
		w.daemonSets = append(w.daemonSets, w.daemonSet("team-a-agent", "100m", "128Mi", map[string]string{teamLabel: "a"}, nil))
	}
}

func (w *world) daemonSet(name, cpu, mem string, selector map[string]string, tolerations []corev1.Toleration) *corev1.Pod {
	return &corev1.Pod{
		// Named and owned like the pods the DaemonSet makes, as the controllers read templates.
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", Labels: map[string]string{appLabel: name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: name, UID: types.UID("ds-" + name), Controller: new(true)}}},
		Spec: corev1.PodSpec{NodeSelector: selector, Tolerations: tolerations, Containers: []corev1.Container{{
			Name: "agent", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}},
		}}},
	}
}

// drawUnmanagedNodes adds the managed node group nodes Karpenter does not own: tainted,
// cordoned or plain.
func (w *world) drawUnmanagedNodes() {
	for i := range 1 + w.pick(3) {
		zone := zones[w.pick(len(zones))]
		n := w.node(fmt.Sprintf("ng-%d", i), "m2a.2xlarge", zone, map[string]string{groupLabel: "system"})
		switch w.pick(4) {
		case 0:
			n.Spec.Taints = []corev1.Taint{{Key: "example.com/system", Effect: corev1.TaintEffectNoSchedule}}
		case 1:
			// Cordoned; the node lifecycle controller may not have added its taint yet.
			n.Spec.Unschedulable = true
			if w.chance(0.5) {
				n.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
			}
		}
		w.nodes = append(w.nodes, n)
		w.bindDaemonSets(n)
		w.fill(n, 0.3+0.5*w.rng.Float64())
		w.attachVolumes(n)
	}
}

// drawManagedNodes adds nodes Karpenter launched, registered with their NodeClaims; some are
// being disrupted (tainted, and the NodeClaim deleting).
func (w *world) drawManagedNodes() { w.drawManagedNodesN(w.pick(6), 0.2, 0.9) }

// drawManagedNodesN adds count managed nodes, each filled to between low and high of its CPU.
func (w *world) drawManagedNodesN(count int, low, high float64) {
	for range count {
		np := w.nodePools[w.pick(len(w.nodePools))]
		it := w.compatibleType(np)
		if it == nil {
			continue
		}
		zone := it.Offerings[w.pick(len(it.Offerings))].Zone
		labels := map[string]string{karpv1.LabelNodePool: np.Name, karpv1.LabelCapacityType: "on-demand", karpv1.LabelRegistered: "true", karpv1.LabelInitialized: "true"}
		maps.Copy(labels, np.Spec.Template.Labels)
		for _, r := range np.Spec.Template.Spec.Requirements {
			if r.Key == tierLabel {
				labels[tierLabel] = r.Values[0]
			}
		}
		name := w.name("managed")
		n := w.node(name, it.Name, zone, labels)
		n.Spec.Taints = append(n.Spec.Taints, np.Spec.Template.Spec.Taints...)
		n.Status.Allocatable = it.Allocatable()
		nodeClaim := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: n.Labels}}
		nodeClaim.Spec.NodeClassRef = np.Spec.Template.Spec.NodeClassRef
		nodeClaim.Spec.Taints = np.Spec.Template.Spec.Taints
		nodeClaim.Status.ProviderID = n.Spec.ProviderID
		nodeClaim.Status.NodeName = n.Name
		nodeClaim.Status.Capacity, nodeClaim.Status.Allocatable = it.Capacity, it.Allocatable()
		nodeClaim.Status.Conditions = []metav1.Condition{{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized", LastTransitionTime: metav1.NewTime(w.now)}}
		if w.chance(0.15) {
			// Being disrupted: tainted, its NodeClaim deleting.
			n.Spec.Taints = append(n.Spec.Taints, karpv1.DisruptedNoScheduleTaint)
			nodeClaim.DeletionTimestamp = new(metav1.NewTime(w.now))
		}
		w.nodes = append(w.nodes, n)
		w.nodeClaims = append(w.nodeClaims, nodeClaim)
		w.bindDaemonSets(n)
		w.fill(n, low+(high-low)*w.rng.Float64())
		w.attachVolumes(n)
	}
}

// attachVolumes gives most nodes a CSINode for the block driver, most of those with an attach
// limit of one to three volumes, and gives some of the node's running pods a block volume,
// up to its limit: pending pods with block volumes then find some nodes full. A node
// without a CSINode, or whose driver declares no count, is not limited.
func (w *world) attachVolumes(n *corev1.Node) {
	limit := -1
	if w.chance(0.8) {
		driver := storagev1.CSINodeDriver{Name: blockDriver, NodeID: n.Name}
		if w.chance(0.75) {
			limit = 1 + w.pick(3)
			driver.Allocatable = &storagev1.VolumeNodeResources{Count: new(int32(limit))}
		}
		w.csiNodes = append(w.csiNodes, &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: n.Name}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{driver}}})
	}
	attached := 0
	for _, pod := range w.pods {
		if pod.Spec.NodeName != n.Name || pod.Status.Phase != corev1.PodRunning || len(pod.OwnerReferences) > 0 || attached == limit || !w.chance(0.3) {
			continue
		}
		w.zonalVolume(pod, n.Labels[karpv1.LabelTopologyZone])
		attached++
	}
}

func (w *world) compatibleType(np *karpv1.NodePool) *cloudprovider.InstanceType {
	for range 20 {
		it := w.instanceTypes[w.pick(len(w.instanceTypes))]
		ok := true
		for _, r := range np.Spec.Template.Spec.Requirements {
			if v, has := it.Labels[r.Key]; has && r.Operator == corev1.NodeSelectorOpIn && !slices.Contains(r.Values, v) {
				ok = false
			}
			if r.Key == kcv1.LabelInstanceCPU && r.Operator == corev1.NodeSelectorOpLt && it.Labels[kcv1.LabelInstanceCPU] == "16" {
				ok = false
			}
			if r.Key == karpv1.LabelTopologyZone && !slices.Contains(r.Values, it.Offerings[0].Zone) {
				ok = false
			}
		}
		if ok {
			return it
		}
	}
	return nil
}

// node is a Ready node of the instance type in the zone.
func (w *world) node(name, instanceType, zone string, extra map[string]string) *corev1.Node {
	var it *cloudprovider.InstanceType
	for _, t := range w.instanceTypes {
		if t.Name == instanceType {
			it = t
		}
	}
	if it == nil {
		it = w.instanceTypes[0]
	}
	labels := map[string]string{corev1.LabelHostname: name, karpv1.LabelTopologyZone: zone, karpv1.LabelTopologyRegion: "kr-central-2"}
	maps.Copy(labels, it.Labels)
	maps.Copy(labels, extra)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: "kakaocloud:///" + name},
		Status: corev1.NodeStatus{
			Capacity: it.Capacity, Allocatable: it.Allocatable(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
}

// bindDaemonSets puts on the node a pod of every daemonset whose selector and tolerations let it.
func (w *world) bindDaemonSets(n *corev1.Node) {
	for _, ds := range w.daemonSets {
		if !daemonSetRunsOn(ds, n) {
			continue
		}
		pod := daemonSetPod(ds, n.Name)
		w.pods = append(w.pods, pod)
	}
}

// daemonSetRunsOn is the DaemonSet controller's test: node selector and NoSchedule/NoExecute
// taints.
func daemonSetRunsOn(ds *corev1.Pod, n *corev1.Node) bool {
	for k, v := range ds.Spec.NodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for _, tol := range ds.Spec.Tolerations {
			if tol.ToleratesTaint(klog.Background(), &t, false) {
				tolerated = true
			}
		}
		if !tolerated {
			return false
		}
	}
	return true
}

func daemonSetPod(ds *corev1.Pod, node string) *corev1.Pod {
	pod := ds.DeepCopy()
	pod.Name = ds.Name + "-" + node
	pod.UID = types.UID(pod.Namespace + "/" + pod.Name)
	pod.Spec.NodeName = node
	pod.Status.Phase = corev1.PodRunning
	return pod
}

// fill binds plain pods of a few apps to the node until about frac of its CPU is requested.
// Some pods are terminating or finished: the kube-scheduler ignores them for spreads.
func (w *world) fill(n *corev1.Node, frac float64) {
	budget := int64(float64(n.Status.Allocatable.Cpu().MilliValue()) * frac)
	for budget > 0 {
		cpu := []int64{250, 500, 1000}[w.pick(3)]
		app := fmt.Sprintf("app-%d", w.pick(4))
		pod := w.pod("default", app, cpu, cpu*2)
		if w.chance(0.3) {
			w.constrainRunning(pod)
		}
		pod.Spec.NodeName = n.Name
		pod.Status.Phase = corev1.PodRunning
		switch {
		case w.chance(0.05):
			pod.DeletionTimestamp = new(metav1.NewTime(w.now))
		case w.chance(0.05):
			pod.Status.Phase = corev1.PodSucceeded
		}
		w.pods = append(w.pods, pod)
		budget -= cpu
	}
}

// constrainRunning makes a running pod one of four services with topology constraints, so
// that moving it (consolidation, drift) must respect them: a zone spread, a hostname or a
// zonal anti-affinity, a zonal affinity to its own service.
func (w *world) constrainRunning(pod *corev1.Pod) {
	svc := []string{"svc-spread", "svc-anti", "svc-affinity", "svc-zone-anti", "svc-guard"}[w.pick(5)]
	pod.Labels[appLabel] = svc
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: svc}}
	switch svc {
	case "svc-spread":
		pod.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	case "svc-anti":
		pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelHostname, LabelSelector: sel}}}}
	case "svc-zone-anti":
		pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelTopologyZone, LabelSelector: sel}}}}
	case "svc-guard":
		// Keeps the pending pods labelled role=batch (of every namespace) off its node: the
		// kube-scheduler's symmetric rule, which binds a pod that owns no term.
		pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{roleLabel: "batch"}},
			NamespaceSelector: &metav1.LabelSelector{},
		}}}}
	default:
		pod.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelTopologyZone, LabelSelector: sel}}}}
	}
}

// pod is a pod of app requesting cpu millicores and memMi MiB.
func (w *world) pod(namespace, app string, cpu, memMi int64) *corev1.Pod {
	name := w.name(app)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID(namespace + "/" + name), Labels: map[string]string{appLabel: app},
			CreationTimestamp: metav1.NewTime(w.now.Add(time.Duration(w.serial) * time.Second))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: *resource.NewMilliQuantity(cpu, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI),
		}}}}},
	}
}

// pending marks a pod the way the kube-scheduler leaves one it could not place.
func pending(pod *corev1.Pod) *corev1.Pod {
	pod.Status.Phase = corev1.PodPending
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	return pod
}

// workloadKinds are the constraint families a deployment of the workload draws from.
var workloadKinds = []string{
	"plain", "zone-spread", "hostname-spread", "zone-affinity", "hostname-anti-affinity",
	"preferred-anti-affinity", "preferred-node-affinity", "team-selector", "tier-affinity",
	"undefined-label", "tolerate-dedicated", "host-port", "zonal-volume", "spread-honor-taints",
	"spread-ignore-affinity", "affinity-or-terms", "existing-app-spread", "preempting",
	"min-domains", "sidecar-port", "schedule-anyway", "match-label-keys", "namespace-anti", "affinity-and-anti",
	"guarded", "unbound-claim", "scratch", "gpu", "block-volumes", "block-volumes",
}

// gpuResource is the extended resource of the GPU family.
const gpuResource corev1.ResourceName = "nvidia.com/gpu"

// drawWorkload adds pending deployments, each of one kind, about pods pods in all.
func (w *world) drawWorkload(pods int) {
	for added := 0; added < pods; {
		kind := workloadKinds[w.pick(len(workloadKinds))]
		replicas := 1 + w.pick(6)
		added += w.deployment(kind, replicas)
	}
}

//nolint:gocyclo // one case per workload kind the judge draws; a table of functions would scatter what each kind is
func (w *world) deployment(kind string, replicas int) int {
	app := w.name(kind)
	ns := []string{"default", "team-a", "team-b"}[w.pick(3)]
	cpu := []int64{100, 250, 500, 1000, 1500}[w.pick(5)]
	mem := []int64{128, 256, 512, 1024, 2048}[w.pick(5)]
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: app}}
	zone := zones[w.pick(len(zones))]
	var volumeZone, sharedClaim string
	for i := range replicas {
		pod := pending(w.pod(ns, app, cpu, mem))
		spec := &pod.Spec
		switch kind {
		case "zone-spread":
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
		case "hostname-spread":
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
		case "zone-affinity":
			spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelTopologyZone, LabelSelector: sel}}}}
		case "hostname-anti-affinity":
			spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelHostname, LabelSelector: sel}}}}
		case "preferred-anti-affinity":
			spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: sel}}}}}
		case "preferred-node-affinity":
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}},
				{Weight: 5, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"x9z"}}}}},
			}}}
		case "team-selector":
			spec.NodeSelector = map[string]string{teamLabel: []string{"a", "b"}[w.pick(2)]}
			spec.Tolerations = []corev1.Toleration{{Key: "example.com/dedicated", Operator: corev1.TolerationOpExists}}
		case "tier-affinity":
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{tierRequirement(w)},
			}}}}}
		case "undefined-label":
			if w.chance(0.5) {
				spec.NodeSelector = map[string]string{undefinedLabel: "yes"}
			} else {
				spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: undefinedLabel, Operator: corev1.NodeSelectorOpExists}},
				}}}}}
			}
		case "tolerate-dedicated":
			spec.Tolerations = []corev1.Toleration{{Key: "example.com/dedicated", Operator: corev1.TolerationOpExists}, {Key: "example.com/system", Operator: corev1.TolerationOpExists}}
		case "host-port":
			spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 18080}}
			// An ordinary init container's port is released before the pod runs.
			spec.InitContainers = []corev1.Container{{Name: "init", Ports: []corev1.ContainerPort{{ContainerPort: 9000, HostPort: 19000}}}}
		case "sidecar-port":
			spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways), Ports: []corev1.ContainerPort{{ContainerPort: 9001, HostPort: 19001}}}}
		case "zonal-volume":
			if volumeZone == "" {
				volumeZone = zone
			}
			w.zonalVolume(pod, volumeZone)
		case "spread-honor-taints":
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel,
				NodeTaintsPolicy: ptr.To(corev1.NodeInclusionPolicyHonor)}}
		case "spread-ignore-affinity":
			spec.NodeSelector = map[string]string{karpv1.LabelTopologyZone: zone}
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel,
				NodeAffinityPolicy: ptr.To(corev1.NodeInclusionPolicyIgnore)}}
		case "affinity-or-terms":
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: kcv1.LabelInstanceFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"x9z"}}}},
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}},
			}}}}
		case "existing-app-spread":
			// Spread with the pods already running on the cluster's nodes (app-0 .. app-3).
			pod.Labels[appLabel] = fmt.Sprintf("app-%d", w.pick(4))
			pod.Namespace = "default"
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: int32(1 + w.pick(2)), TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: pod.Labels[appLabel]}}}}
		case "preempting":
			if i == 0 && len(w.nodes) > 0 {
				pod.Status.NominatedNodeName = w.nodes[0].Name
			}
		case "schedule-anyway":
			// A zone spread the kube-scheduler only scores, with a hostname spread it enforces.
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel},
				{MaxSkew: 2, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel},
			}
		case "match-label-keys":
			// Two revisions of a rolling update, each spread on its own.
			pod.Labels[hashLabel] = []string{"rev-1", "rev-2"}[i%2]
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: sel, MatchLabelKeys: []string{hashLabel}}}
		case "namespace-anti":
			// One per node among the pods labelled role=db of the tenants' namespaces.
			pod.Labels[roleLabel] = "db"
			spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{roleLabel: "db"}},
				NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tenant", Operator: metav1.LabelSelectorOpIn, Values: []string{"team-a", "team-b"}}}},
			}}}}
		case "affinity-and-anti":
			// Together in a zone, one per node.
			spec.Affinity = &corev1.Affinity{
				PodAffinity:     &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelTopologyZone, LabelSelector: sel}}},
				PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelHostname, LabelSelector: sel}}},
			}
		case "guarded":
			pod.Labels[roleLabel] = "batch" // running svc-guard pods keep it off their nodes
		case "scratch":
			// Ephemeral storage in tens of GiB: two or three such pods fill a node's root volume.
			scratch := *resource.NewQuantity(int64(10+10*w.pick(3))<<30, resource.BinarySI)
			spec.Containers[0].Resources.Requests[corev1.ResourceEphemeralStorage] = scratch
		case "gpu":
			// An extended resource is asked for with a limit equal to the request.
			gpu := *resource.NewQuantity(1, resource.DecimalSI)
			spec.Containers[0].Resources.Requests[gpuResource] = gpu
			spec.Containers[0].Resources.Limits = corev1.ResourceList{gpuResource: gpu}
		case "unbound-claim":
			w.unboundClaim(pod)
		case "block-volumes":
			w.blockVolumes(pod, &sharedClaim)
		case "min-domains":
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel,
				MinDomains: new(int32(3))}}
		}
		w.pods = append(w.pods, pod)
	}
	return replicas
}

// tierRequirement asks for the tier label NodePools may define: that it exists, or one or two
// of its values.
func tierRequirement(w *world) corev1.NodeSelectorRequirement {
	if w.chance(0.4) {
		return corev1.NodeSelectorRequirement{Key: tierLabel, Operator: corev1.NodeSelectorOpExists}
	}
	return corev1.NodeSelectorRequirement{Key: tierLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{"silver", "gold"}[:1+w.pick(2)]}
}

// zonalVolume gives the pod a claim bound to a volume in zone.
func (w *world) zonalVolume(pod *corev1.Pod, zone string) {
	name := pod.Name + "-data"
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + name, Labels: map[string]string{karpv1.LabelTopologyZone: zone}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName:       "zonal",
			ClaimRef:               &corev1.ObjectReference{Namespace: pod.Namespace, Name: name},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: blockDriver, VolumeHandle: name}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}},
			}}}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pod.Namespace, Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: new("zonal"), VolumeName: pv.Name,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
	w.volumes = append(w.volumes, pv)
	w.claims = append(w.claims, pvc)
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
}

// unboundClaim gives the pod a claim of the WaitForFirstConsumer class, not bound yet: the
// volume is provisioned where the pod lands.
func (w *world) unboundClaim(pod *corev1.Pod) {
	name := pod.Name + "-scratch"
	w.claims = append(w.claims, unboundClaimNamed(name, pod.Namespace))
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
}

// blockVolumes gives the pod one or two volumes of the block driver, counted by nodes' attach
// limits: claims of the WaitForFirstConsumer class not bound yet, a generic ephemeral volume,
// or a claim (not bound yet either) the deployment's replicas share, attached once to a node
// that runs two of them.
func (w *world) blockVolumes(pod *corev1.Pod, sharedClaim *string) {
	for v := range 1 + w.pick(2) {
		switch w.pick(3) {
		case 0:
			name := fmt.Sprintf("%s-block-%d", pod.Name, v)
			w.claims = append(w.claims, unboundClaimNamed(name, pod.Namespace))
			pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: fmt.Sprintf("block-%d", v), VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
		case 1:
			// The ephemeral volume controller's claim: named after the pod and volume, owned by the pod.
			volume := fmt.Sprintf("ephemeral-%d", v)
			claim := unboundClaimNamed(pod.Name+"-"+volume, pod.Namespace)
			claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: new(true)}}
			w.claims = append(w.claims, claim)
			pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: claim.Spec}}}})
		default:
			if *sharedClaim == "" {
				*sharedClaim = pod.Name + "-shared"
				w.claims = append(w.claims, unboundClaimNamed(*sharedClaim, pod.Namespace))
			}
			if slices.ContainsFunc(pod.Spec.Volumes, func(vol corev1.Volume) bool { return vol.Name == "shared" }) {
				continue
			}
			pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "shared", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: *sharedClaim}}})
		}
	}
}

// unboundClaimNamed is a claim of the WaitForFirstConsumer class, not bound yet.
func unboundClaimNamed(name, namespace string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: new("zonal"),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
}

// nominate remembers where provisioning put a pod, as the provisioner does for its next pass.
func (w *world) nominate(pod *corev1.Pod, where destination.Destination) {
	if w.nominated == nil {
		w.nominated = map[types.UID]destination.Destination{}
	}
	w.nominated[pod.UID] = where
}
