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

// Command perf-upstream serves make perf-upstream, which runs upstream Karpenter's performance
// suite (test/suites/performance) against upstream's kwok provider and against this operator,
// on the same machine, one after the other (hack/perf-upstream/run). It has two commands:
//
//	perf-upstream instance-types
//
// prints the instance types upstream's kwok provider is given (its INSTANCE_TYPES_FILE_PATH):
// the KakaoCloud emulator's built-in flavors the comparison uses, each with the allocatable
// resources and the prices this operator computes for it, so that both systems choose among
// the same sizes at the same prices.
//
//	perf-upstream table -ours DIR -upstream DIR
//
// reads the two runs' results (upstream's reports of each spec's phases, and the nodes the
// runner sampled) and prints a table per scenario: time, the controller's heap, memory and CPU,
// nodes and cost against the lower bound, for ours and upstream's, and their ratio.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/workload"
)

// maxVCPUs bounds the compared instance types' size. Upstream's performance suite narrows
// its NodePool to kwok instance sizes under 32 (vCPUs, for the names this command gives);
// the NodePool ours runs with (nodepool-kakaocloud.yaml) is narrowed the same way.
const maxVCPUs = 32

// comparedInstanceTypes are the emulator's flavors both systems choose among: those without
// GPUs (upstream's kwok provider would offer a GPU flavor as a plain one) of fewer than
// maxVCPUs vCPUs, in the emulator's three zones, as this operator lists them.
func comparedInstanceTypes() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, it := range workload.CatalogInstanceTypes(workload.CatalogNodeClass()) {
		if _, gpu := it.Labels[kcv1.LabelInstanceGPUCount]; gpu || it.Capacity.Cpu().Value() >= maxVCPUs {
			continue
		}
		out = append(out, it)
	}
	return out
}

// kwokName is an instance type's name in upstream's kwok provider: the flavor's name with a
// dash for the dot. With the dot, the provider would read the size from it as from an AWS
// name ("xlarge"), which upstream's size requirement (a number) never matches; with the dash it
// reads the size as the vCPUs and the family as the flavor's family.
func kwokName(name string) string { return strings.ReplaceAll(name, ".", "-") }

// kwokInstanceType is an entry of upstream's kwok instance-types file (its
// InstanceTypeOptions).
type kwokInstanceType struct {
	Name             string              `json:"name"`
	Offerings        []kwokOffering      `json:"offerings"`
	Architecture     string              `json:"architecture"`
	OperatingSystems []string            `json:"operatingSystems"`
	Resources        corev1.ResourceList `json:"resources"`
}

type kwokOffering struct {
	Price        float64                          `json:"Price"`
	Available    bool                             `json:"Available"`
	Requirements []corev1.NodeSelectorRequirement `json:"Requirements"`
}

// kwokReservedMemory is the memory upstream's kwok provider holds back from every instance
// type (its newInstanceType, with 100m of CPU).
var kwokReservedMemory = resource.MustParse("10Mi")

// kwokInstanceTypes are the instance types as upstream's kwok provider reads them, with the
// same offerings and prices, and resources such that its allocatable resources are ours: the
// memory is our allocatable memory and what upstream's provider holds back. The CPU stays the
// flavor's vCPUs, as upstream's provider takes its instance-size label, which the performance
// suite compares as a whole number, from it; its allocatable CPU (100m held back) is then
// within 30m of ours.
func kwokInstanceTypes(types []*cloudprovider.InstanceType) []kwokInstanceType {
	out := make([]kwokInstanceType, 0, len(types))
	for _, it := range types {
		allocatable := it.Allocatable()
		memory := allocatable[corev1.ResourceMemory]
		memory.Add(kwokReservedMemory)
		entry := kwokInstanceType{
			Name:             kwokName(it.Name),
			Architecture:     it.Labels[karpv1.LabelArch],
			OperatingSystems: []string{string(corev1.Linux)},
			Resources: corev1.ResourceList{
				corev1.ResourceCPU:    it.Capacity[corev1.ResourceCPU],
				corev1.ResourceMemory: memory,
				corev1.ResourcePods:   allocatable[corev1.ResourcePods],
			},
		}
		for _, of := range it.Offerings {
			entry.Offerings = append(entry.Offerings, kwokOffering{Price: of.Price, Available: true, Requirements: []corev1.NodeSelectorRequirement{
				{Key: karpv1.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{of.CapacityType}},
				{Key: karpv1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{of.Zone}},
			}})
		}
		out = append(out, entry)
	}
	return out
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: perf-upstream instance-types | table -ours DIR -upstream DIR")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "instance-types":
		encoder := json.NewEncoder(os.Stdout)
		encoder.SetIndent("", "  ")
		if err := encoder.Encode(kwokInstanceTypes(comparedInstanceTypes())); err != nil {
			fmt.Fprintln(os.Stderr, "perf-upstream:", err)
			os.Exit(1)
		}
	case "table":
		flags := flag.NewFlagSet("table", flag.ExitOnError)
		ours := flags.String("ours", "", "the results of the run against this operator")
		upstream := flags.String("upstream", "", "the results of the run against upstream's kwok provider")
		_ = flags.Parse(os.Args[2:])
		if *ours == "" || *upstream == "" {
			fmt.Fprintln(os.Stderr, "perf-upstream table: -ours and -upstream are required")
			os.Exit(2)
		}
		out, err := table(*ours, *upstream, comparedInstanceTypes())
		if err != nil {
			fmt.Fprintln(os.Stderr, "perf-upstream:", err)
			os.Exit(1)
		}
		fmt.Print(out)
	default:
		fmt.Fprintf(os.Stderr, "perf-upstream: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}
