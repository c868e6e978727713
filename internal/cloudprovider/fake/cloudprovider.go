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

package fake

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
)

// ProviderIDPrefix starts the provider id of every VM the fake creates.
const ProviderIDPrefix = "fake:///"

var _ cloudprovider.CloudProvider = (*CloudProvider)(nil)

// CloudProvider is the fake. Its fields are the spec's to set between calls; the calls are
// safe to make from several goroutines.
type CloudProvider struct {
	mu sync.Mutex

	// InstanceTypes are what every NodePool may launch, unless InstanceTypesFor names it;
	// ErrorsFor makes GetInstanceTypes fail for a NodePool.
	InstanceTypes    []*cloudprovider.InstanceType
	InstanceTypesFor map[string][]*cloudprovider.InstanceType
	ErrorsFor        map[string]error

	// NextCreateErr, NextDeleteErr and NextGetErr are returned by the next call of theirs,
	// which then does nothing, once.
	NextCreateErr, NextDeleteErr, NextGetErr error
	// LaunchErrors answers CheckLaunch, by NodeClaim name.
	LaunchErrors map[string]error
	// Drifted answers IsDrifted for every NodeClaim, unless DriftedFor names it.
	Drifted    cloudprovider.Drift
	DriftedFor map[string]cloudprovider.Drift
	// Policies are the repair policies; States the VMs' states, by provider id.
	Policies []cloudprovider.RepairPolicy
	States   map[string]string

	// CreateCalls and DeleteCalls are the NodeClaims of every call, in order, as given.
	CreateCalls, DeleteCalls []*karpv1.NodeClaim

	// vms are the VMs that exist, by provider id.
	vms map[string]*karpv1.NodeClaim
}

// New is a fake that sells instanceTypes to every NodePool.
func New(instanceTypes ...*cloudprovider.InstanceType) *CloudProvider {
	c := &CloudProvider{}
	c.Reset()
	c.InstanceTypes = instanceTypes
	return c
}

// Reset forgets every VM, call, answer and error, and the instance types.
func (c *CloudProvider) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.InstanceTypes, c.InstanceTypesFor, c.ErrorsFor = nil, map[string][]*cloudprovider.InstanceType{}, map[string]error{}
	c.NextCreateErr, c.NextDeleteErr, c.NextGetErr = nil, nil, nil
	c.LaunchErrors, c.Drifted, c.DriftedFor = map[string]error{}, cloudprovider.Drift{}, map[string]cloudprovider.Drift{}
	c.Policies, c.States = nil, map[string]string{}
	c.CreateCalls, c.DeleteCalls = nil, nil
	c.vms = map[string]*karpv1.NodeClaim{}
}

// Create launches the NodeClaim on the cheapest available offering of the instance types its
// requirements allow whose allocatable holds its requests, as KakaoCloud's provider chooses;
// a second call for the same NodeClaim returns the same VM.
func (c *CloudProvider) Create(ctx context.Context, nodeClaim *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.CreateCalls = append(c.CreateCalls, nodeClaim.DeepCopy())
	if err := take(&c.NextCreateErr); err != nil {
		return nil, err
	}
	if vm, ok := c.vms[ProviderIDPrefix+nodeClaim.Name]; ok {
		return vm.DeepCopy(), nil
	}
	types, err := c.instanceTypes(nodeClaim.Labels[karpv1.LabelNodePool])
	if err != nil {
		return nil, err
	}
	reqs := scheduling.FromNodeClaimRequirements(nodeClaim.Spec.Requirements...)
	var best *cloudprovider.InstanceType
	var offering cloudprovider.Offering
	for _, it := range types {
		if !compatible(reqs, it.Labels) || !fits(nodeClaim.Spec.Resources.Requests, it.Allocatable()) {
			continue
		}
		for _, of := range it.Offerings {
			if !of.Available || !reqs.Get(karpv1.LabelTopologyZone).Has(of.Zone) || !reqs.Get(karpv1.LabelCapacityType).Has(of.CapacityType) {
				continue
			}
			// The cheapest, then the first name and zone: the same NodeClaim always gets the
			// same VM.
			if best == nil || cmp.Or(cmp.Compare(of.Price, offering.Price), cmp.Compare(it.Name, best.Name), cmp.Compare(of.Zone, offering.Zone)) < 0 {
				best, offering = it, of
			}
		}
	}
	if best == nil {
		return nil, &cloudprovider.InsufficientCapacityError{Err: fmt.Errorf("no available offering of the instance types NodeClaim %s allows holds its requests", nodeClaim.Name)}
	}
	vm := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: nodeClaim.Name, Labels: maps.Clone(nodeClaim.Labels), Annotations: maps.Clone(nodeClaim.Annotations)},
		Spec:       *nodeClaim.Spec.DeepCopy(),
		Status: karpv1.NodeClaimStatus{
			ProviderID: ProviderIDPrefix + nodeClaim.Name, Capacity: best.Capacity.DeepCopy(), Allocatable: best.Allocatable(),
		},
	}
	if vm.Labels == nil {
		vm.Labels = map[string]string{}
	}
	maps.Copy(vm.Labels, best.Labels)
	vm.Labels[karpv1.LabelInstanceType] = best.Name
	vm.Labels[karpv1.LabelTopologyZone] = offering.Zone
	vm.Labels[karpv1.LabelCapacityType] = offering.CapacityType
	c.vms[vm.Status.ProviderID] = vm
	return vm.DeepCopy(), nil
}

// Delete removes the NodeClaim's VM; NodeClaimNotFoundError once it is gone.
func (c *CloudProvider) Delete(_ context.Context, nodeClaim *karpv1.NodeClaim) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.DeleteCalls = append(c.DeleteCalls, nodeClaim.DeepCopy())
	if err := take(&c.NextDeleteErr); err != nil {
		return err
	}
	id := cmp.Or(nodeClaim.Status.ProviderID, ProviderIDPrefix+nodeClaim.Name)
	if _, ok := c.vms[id]; !ok {
		return &cloudprovider.NodeClaimNotFoundError{Err: fmt.Errorf("no VM %s", id)}
	}
	delete(c.vms, id)
	return nil
}

// Get returns the VM of providerID.
func (c *CloudProvider) Get(_ context.Context, providerID string) (*karpv1.NodeClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := take(&c.NextGetErr); err != nil {
		return nil, err
	}
	vm, ok := c.vms[providerID]
	if !ok {
		return nil, &cloudprovider.NodeClaimNotFoundError{Err: fmt.Errorf("no VM %s", providerID)}
	}
	return vm.DeepCopy(), nil
}

// List returns every VM, by provider id.
func (c *CloudProvider) List(context.Context) ([]*karpv1.NodeClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*karpv1.NodeClaim, 0, len(c.vms))
	for _, id := range slices.Sorted(maps.Keys(c.vms)) {
		out = append(out, c.vms[id].DeepCopy())
	}
	return out, nil
}

// GetInstanceTypes returns the NodePool's instance types.
func (c *CloudProvider) GetInstanceTypes(_ context.Context, nodePool *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instanceTypes(nodePool.Name)
}

func (c *CloudProvider) instanceTypes(nodePool string) ([]*cloudprovider.InstanceType, error) {
	if err := c.ErrorsFor[nodePool]; err != nil {
		return nil, err
	}
	if types, ok := c.InstanceTypesFor[nodePool]; ok {
		return types, nil
	}
	return c.InstanceTypes, nil
}

// CheckLaunch answers LaunchErrors' error for the NodeClaim, nil when it has none.
func (c *CloudProvider) CheckLaunch(_ context.Context, nodeClaim *karpv1.NodeClaim) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.LaunchErrors[nodeClaim.Name]
}

// IsDrifted answers DriftedFor's drift for the NodeClaim, else Drifted.
func (c *CloudProvider) IsDrifted(_ context.Context, nodeClaim *karpv1.NodeClaim) (cloudprovider.Drift, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if drift, ok := c.DriftedFor[nodeClaim.Name]; ok {
		return drift, nil
	}
	return c.Drifted, nil
}

// RepairPolicies returns Policies.
func (c *CloudProvider) RepairPolicies() []cloudprovider.RepairPolicy {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.Policies)
}

// InstanceState answers States' state of the NodeClaim's VM; "" for a VM that is gone.
func (c *CloudProvider) InstanceState(_ context.Context, nodeClaim *karpv1.NodeClaim) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.vms[nodeClaim.Status.ProviderID]; !ok {
		return "", nil
	}
	return c.States[nodeClaim.Status.ProviderID], nil
}

// Name is "fake".
func (c *CloudProvider) Name() string { return "fake" }

// take returns the error *next holds and clears it.
func take(next *error) error {
	err := *next
	*next = nil
	return err
}

// compatible reports whether a node with labels satisfies reqs on every key it has.
func compatible(reqs scheduling.Requirements, labels map[string]string) bool {
	for key, value := range labels {
		if !reqs.Get(key).Has(value) {
			return false
		}
	}
	return true
}

// fits reports whether requests fit allocatable.
func fits(requests, allocatable corev1.ResourceList) bool {
	for name, quantity := range requests {
		if available, ok := allocatable[name]; (!ok && !quantity.IsZero()) || (ok && quantity.Cmp(available) > 0) {
			return false
		}
	}
	return true
}

// InstanceType is a type named name of cpus vCPUs and memory GiB per vCPU, sold on demand
// in each of zones at price per vCPU, holding 110 pods, with a tenth of a CPU and 512 MiB
// held back for the system.
func InstanceType(name string, cpus, memoryPerCPU int64, pricePerCPU float64, zones ...string) *cloudprovider.InstanceType {
	it := &cloudprovider.InstanceType{
		Name:   name,
		Labels: map[string]string{karpv1.LabelInstanceType: name, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: string(corev1.Linux)},
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(cpus, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(cpus*memoryPerCPU<<30, resource.BinarySI),
			corev1.ResourcePods:   resource.MustParse("110"),
		},
		Overhead: cloudprovider.Overhead{KubeReserved: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("512Mi")}},
	}
	for _, zone := range zones {
		it.Offerings = append(it.Offerings, cloudprovider.Offering{Zone: zone, CapacityType: karpv1.CapacityTypeOnDemand, Price: pricePerCPU * float64(cpus), Available: true})
	}
	return it
}

// Families are KakaoCloud-shaped types sold in each of zones: the compute family c2a (2 GiB per
// vCPU, 1 per vCPU) and the general family m2a (4 GiB, 1.25), each of 2, 4 and 8 vCPUs
// (large, xlarge, 2xlarge), labelled with their family and vCPUs as KakaoCloud's provider
// labels them.
func Families(zones ...string) []*cloudprovider.InstanceType {
	var types []*cloudprovider.InstanceType
	for _, family := range []struct {
		name          string
		memoryPerCPU  int64
		priceOfOneCPU float64
	}{{"c2a", 2, 1}, {"m2a", 4, 1.25}} {
		for _, cpus := range []int64{2, 4, 8} {
			it := InstanceType(family.name+"."+map[int64]string{2: "large", 4: "xlarge", 8: "2xlarge"}[cpus], cpus, family.memoryPerCPU, family.priceOfOneCPU, zones...)
			it.Labels[kcv1.LabelInstanceFamily] = family.name
			it.Labels[kcv1.LabelInstanceCPU] = resource.NewQuantity(cpus, resource.DecimalSI).String()
			types = append(types, it)
		}
	}
	return types
}
