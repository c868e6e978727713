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
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// Labels upstream's fake instance types carry besides the well-known ones.
const (
	LabelSize    = "size"    // "small", or "large" above 4 vCPU and 8 GiB
	LabelSpecial = "special" // "optional" on large types, absent on small ones
	LabelInteger = "integer" // the vCPU count
	// DiscoveryLabel is the label upstream's test objects (pods, the NodePool template)
	// carry for cleanup.
	DiscoveryLabel = "testing/cluster"
)

// The provider's own labels are well-known, as upstream's fake cloud provider makes its labels
// well-known: a NodeClaim whose types differ in them leaves them to the launch.
func init() {
	karpv1.WellKnownLabels.Insert(LabelSize, LabelSpecial, LabelInteger)
}

// Zones are the zones of upstream's fake offerings.
var Zones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

// UpstreamInstanceTypes returns upstream's fake.InstanceTypes(400): type i has i+1 vCPU, 2(i+1)
// GiB and room for 10(i+1) pods, less a kube-reserved 100m CPU and 10Mi memory; it is offered
// as spot in the first two zones and on demand in all three, every offering at upstream's
// PriceFromResources (0.1 per vCPU plus 0.1 per 10^9 bytes of memory).
func UpstreamInstanceTypes() []*cloudprovider.InstanceType {
	out := make([]*cloudprovider.InstanceType, 400)
	for i := range out {
		n := int64(i + 1)
		name := fmt.Sprintf("fake-it-%d", i)
		memory := 2 * n << 30
		labels := map[string]string{
			karpv1.LabelInstanceType: name,
			karpv1.LabelArch:         "amd64",
			karpv1.LabelOS:           "linux",
			LabelSize:                "small",
			LabelInteger:             strconv.FormatInt(n, 10),
		}
		if n > 4 && memory > 8<<30 {
			labels[LabelSize] = "large"
			labels[LabelSpecial] = "optional"
		}
		it := &cloudprovider.InstanceType{
			Name:   name,
			Labels: labels,
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(n, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
				corev1.ResourcePods:   *resource.NewQuantity(10*n, resource.DecimalSI),
			},
			Overhead: cloudprovider.Overhead{KubeReserved: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("10Mi"),
			}},
		}
		price := 0.1*float64(n) + 0.1*float64(memory)/1e9
		for _, of := range []struct{ capacityType, zone string }{
			{karpv1.CapacityTypeSpot, Zones[0]}, {karpv1.CapacityTypeSpot, Zones[1]},
			{karpv1.CapacityTypeOnDemand, Zones[0]}, {karpv1.CapacityTypeOnDemand, Zones[1]}, {karpv1.CapacityTypeOnDemand, Zones[2]},
		} {
			it.Offerings = append(it.Offerings, cloudprovider.Offering{Zone: of.zone, CapacityType: of.capacityType, Price: price, Available: true})
		}
		out[i] = it
	}
	return out
}

// UpstreamNodePool is upstream's test.NodePool for the benchmark: no requirements, the
// discovery label on its template and limits of 10,000,000 CPU and 10,000,000 Gi of memory, so
// that limit accounting runs for every NodeClaim.
func UpstreamNodePool() *karpv1.NodePool {
	limits := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("10000000"),
		corev1.ResourceMemory: resource.MustParse("10000000Gi"),
	}
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{
				ObjectMeta: karpv1.ObjectMeta{Labels: map[string]string{DiscoveryLabel: "unspecified"}},
				Spec: karpv1.NodeClaimTemplateSpec{
					NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.kakaocloud.com", Kind: "KCNodeClass", Name: "default"},
				},
			},
			Limits: karpv1.Limits(limits),
		},
	}
	return np
}

// DiversePods draws pods from seed in upstream Karpenter's diverse mix (its benchmark draws
// from 42): one fifth each of pods without constraints, zonal topology spread, hostname
// topology spread, zonal self-affinity and hostname anti-affinity (every such pod repels every other one, so each
// needs a node of its own). Spread and plain pods carry my-label, affinity pods my-affinity,
// with values drawn from a to g; a spread's selector value is drawn independently of the pod's
// own label, as upstream does. Every pod also carries upstream's discovery label.
func DiversePods(count int, seed uint64) []*corev1.Pod {
	rng := rand.New(rand.NewPCG(seed, seed))
	cpus := []string{"100m", "250m", "500m", "1", "1.5"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	values := []string{"a", "b", "c", "d", "e", "f", "g"}
	value := func() string { return values[rng.IntN(len(values))] }
	out := make([]*corev1.Pod, 0, count)
	add := func(own map[string]string, mutate func(*corev1.Pod)) {
		podLabels := maps.Clone(own)
		podLabels[DiscoveryLabel] = "unspecified"
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%05d", len(out)), Namespace: "default", Labels: podLabels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "app",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(cpus[rng.IntN(len(cpus))]),
					corev1.ResourceMemory: resource.MustParse(mems[rng.IntN(len(mems))]),
				}},
			}}},
		}
		if mutate != nil {
			mutate(p)
		}
		out = append(out, p)
	}
	fifth := count / 5
	for range fifth {
		add(map[string]string{"my-label": value()}, nil)
	}
	for _, key := range []string{corev1.LabelTopologyZone, corev1.LabelHostname} {
		for range fifth {
			selector := map[string]string{"my-label": value()}
			add(map[string]string{"my-label": value()}, func(p *corev1.Pod) {
				p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: selector},
				}}
			})
		}
	}
	for range fifth {
		group := map[string]string{"my-affinity": value()}
		add(group, func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: group}, TopologyKey: corev1.LabelTopologyZone,
			}}}}
		})
	}
	nginx := map[string]string{"app": "nginx"}
	for range fifth {
		add(nginx, func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: nginx}, TopologyKey: corev1.LabelHostname,
			}}}}
		})
	}
	for len(out) < count {
		add(map[string]string{"my-label": value()}, nil)
	}
	return out
}
