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

package scheduling

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
)

// benchInstanceTypes returns 400 types: type i has i+1 vCPU, 2(i+1) GiB, room for 10(i+1)
// pods and no overhead, offered on demand in three zones at a price proportional to its size.
func benchInstanceTypes() []*cloudprovider.InstanceType {
	out := make([]*cloudprovider.InstanceType, 400)
	for i := range out {
		n := int64(i + 1)
		name := fmt.Sprintf("bench.%dx", n)
		it := &cloudprovider.InstanceType{
			Name: name,
			Labels: map[string]string{
				karpv1.LabelInstanceType: name,
				karpv1.LabelArch:         "amd64",
				karpv1.LabelOS:           "linux",
			},
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(n, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(2*n<<30, resource.BinarySI),
				corev1.ResourcePods:   *resource.NewQuantity(10*n, resource.DecimalSI),
			},
		}
		for _, z := range []string{zoneA, zoneB, zoneC} {
			it.Offerings = append(it.Offerings, cloudprovider.Offering{Zone: z, CapacityType: karpv1.CapacityTypeOnDemand, Price: 0.05 * float64(n), Available: true})
		}
		out[i] = it
	}
	return out
}

// benchPods draws pods with seed 42 in upstream Karpenter's diverse mix: one fifth each of
// pods without constraints, zonal topology spread, hostname topology spread, zonal
// self-affinity and hostname anti-affinity (every such pod repels every other one, so each
// needs a node of its own). Spread and plain pods carry my-label, affinity pods my-affinity,
// with values drawn from a to g; a spread's selector value is drawn independently of the pod's
// own label, as upstream does.
func benchPods(count int) []*corev1.Pod {
	rng := rand.New(rand.NewPCG(42, 42))
	cpus := []string{"100m", "250m", "500m", "1", "1.5"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	values := []string{"a", "b", "c", "d", "e", "f", "g"}
	value := func() string { return values[rng.IntN(len(values))] }
	out := make([]*corev1.Pod, 0, count)
	add := func(labels map[string]string, mutate func(*corev1.Pod)) {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%05d", len(out)), Namespace: "default", Labels: labels},
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
		labels := map[string]string{"my-affinity": value()}
		add(labels, func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: corev1.LabelTopologyZone,
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

func benchmarkScheduling(b *testing.B, count int) {
	in := Input{
		Pods:      benchPods(count),
		NodePools: []NodePoolInput{{NodePool: nodePool("default", 0), InstanceTypes: benchInstanceTypes()}},
	}
	var res *Results
	b.ResetTimer()
	for b.Loop() {
		res = Schedule(in)
	}
	b.StopTimer()
	if len(res.PodErrors) > 0 {
		b.Fatalf("%d pods not scheduled, e.g. %v", len(res.PodErrors), res.PodErrors)
	}
	cost := 0.0
	for _, n := range res.NewNodeClaims {
		if of, ok := n.InstanceTypes[0].Offerings.Available().Cheapest(); ok {
			cost += of.Price
		}
	}
	b.ReportMetric(float64(count)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(len(res.NewNodeClaims)), "nodes")
	b.ReportMetric(cost, "cost")
}

func BenchmarkSchedulingDiverse100(b *testing.B)   { benchmarkScheduling(b, 100) }
func BenchmarkSchedulingDiverse1000(b *testing.B)  { benchmarkScheduling(b, 1000) }
func BenchmarkSchedulingDiverse5000(b *testing.B)  { benchmarkScheduling(b, 5000) }
func BenchmarkSchedulingDiverse20000(b *testing.B) { benchmarkScheduling(b, 20000) }
