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

package simulation

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// catalogTypes lists the instance types of the emulator's built-in catalog, through the
// client and the instance type provider as the controller does, for a node class with a subnet
// in each zone.
func catalogTypes(b *testing.B) []*cloudprovider.InstanceType {
	_, client, stop, err := testenv.Emulator(emulator.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	nodeClass := &kcv1.KCNodeClass{}
	for i, z := range []string{emulator.ZoneA, emulator.ZoneB, emulator.ZoneC} {
		nodeClass.Status.Subnets = append(nodeClass.Status.Subnets, kcv1.Subnet{ID: fmt.Sprint("subnet-", i), Zone: z})
	}
	provider := instancetype.NewProvider(catalog.New(client, catalog.Options{ClusterName: emulator.DefaultClusterName}), nil, nil)
	types, err := provider.List(b.Context(), nodeClass)
	if err != nil {
		b.Fatal(err)
	}
	return types
}

// deploymentPods draws 20 deployments with a fixed seed, each of identical pods with cpu from
// {250m, 500m, 1, 2} and memory from {256Mi, 512Mi, 1Gi, 2Gi, 4Gi}, count pods in all.
func deploymentPods(count int) []*corev1.Pod {
	rng := rand.New(rand.NewPCG(7, 7))
	cpus := []string{"250m", "500m", "1", "2"}
	mems := []string{"256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	const deployments = 20
	out := make([]*corev1.Pod, 0, count)
	for d := range deployments {
		requests := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpus[rng.IntN(len(cpus))]),
			corev1.ResourceMemory: resource.MustParse(mems[rng.IntN(len(mems))]),
		}
		replicas := count / deployments
		if d < count%deployments {
			replicas++
		}
		for i := range replicas {
			out = append(out, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("deploy-%02d-%05d", d, i), Namespace: "default", Labels: map[string]string{"app": fmt.Sprint("deploy-", d)}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: requests}}}},
			})
		}
	}
	return out
}

func benchmarkCatalog(b *testing.B, count int) {
	types := catalogTypes(b)
	np := &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{Key: kcv1.LabelInstanceFamily, Operator: karpv1.NodeSelectorOpIn, Values: []string{"m2a", "c2a", "r2a"}}},
		}}},
	}
	pods := deploymentPods(count)
	in := Input{Pods: pods, NodePools: []NodePoolInput{{NodePool: np, InstanceTypes: types}}}
	var res *Results
	for b.Loop() {
		res = Schedule(in)
	}
	b.StopTimer()
	if err := checkPlacements(in, res); err != nil {
		b.Fatal(err)
	}
	cost := 0.0
	for _, n := range res.NewNodeClaims {
		of, _ := n.InstanceTypes[0].Offerings.Available().Cheapest()
		cost += of.Price
	}
	cpu, gib := 0.0, 0.0
	for _, p := range pods {
		r := resources.PodRequests(p)
		cpu += float64(r.Cpu().MilliValue()) / 1000
		gib += float64(r.Memory().Value()) / (1 << 30)
	}
	bound := workload.LowerBound(types, cpu, gib)
	b.ReportMetric(float64(count)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(len(res.NewNodeClaims)), "nodes")
	b.ReportMetric(cost, "cost")
	b.ReportMetric(bound, "lower-bound")
	b.ReportMetric(cost/bound, "cost/bound")
}

func BenchmarkSchedulingKakaoCloud1000(b *testing.B) { benchmarkCatalog(b, 1000) }
func BenchmarkSchedulingKakaoCloud5000(b *testing.B) { benchmarkCatalog(b, 5000) }
