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

package instancetype

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"math/bits"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	resourceutil "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// defaultMaxPods is the kubelet's own default.
const defaultMaxPods = 110

// reservableResources are the keys kubeReserved and systemReserved accept, as the CRD does.
// pid is kept in the overhead although no instance type has a pid capacity: it then takes
// nothing from allocatable, as on a real node, where pids are not a schedulable resource.
var reservableResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, "pid",
}

// evictionSignalResources are the hard eviction signals the kubelet subtracts from a node's
// allocatable, and the resource each one reduces.
var evictionSignalResources = map[string]corev1.ResourceName{
	"memory.available": corev1.ResourceMemory,
	"nodefs.available": corev1.ResourceEphemeralStorage,
}

// evictionSignalsOutsideAllocatable are hard eviction signals the kubelet accepts but does not
// subtract from allocatable (inodes, pids, and imagefs, which the kubelet accounts apart from
// the nodefs pods write to).
var evictionSignalsOutsideAllocatable = []string{
	"nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available",
}

// nodeClassSettings is what a KCNodeClass contributes to every instance type, resolved once
// per List.
type nodeClassSettings struct {
	// zones are the zones of the node class's subnets, sorted, without duplicates.
	zones []string
	// rootVolume is the size of the boot volume, the node's ephemeral storage.
	rootVolume resource.Quantity
	kubelet    kubeletSettings
}

// kubeletSettings are the kubelet settings that shape capacity and overhead.
type kubeletSettings struct {
	maxPods int64
	// podsPerCore caps pods per vCPU; 0 means no cap.
	podsPerCore int64
	// kubeReserved and systemReserved hold the resources the node class sets; they replace
	// the defaults of those resources only.
	kubeReserved   corev1.ResourceList
	systemReserved corev1.ResourceList
	// evictionHardSignals is every hard eviction threshold by signal, as written: the
	// kubelet's defaults with the valid ones the node class sets in their place.
	evictionHardSignals map[string]string
	// evictionHard holds those of evictionHardSignals that reduce allocatable, by resource.
	evictionHard map[corev1.ResourceName]evictionThreshold
}

// pods is the pods capacity of a node with vcpus vCPUs: maxPods, capped by podsPerCore.
func (k kubeletSettings) pods(vcpus int) int64 {
	if k.podsPerCore > 0 {
		return min(k.maxPods, k.podsPerCore*int64(vcpus))
	}
	return k.maxPods
}

// evictionThreshold is a hard eviction threshold: an absolute quantity, or a share of the
// resource's capacity.
type evictionThreshold struct {
	quantity resource.Quantity
	// numerator/denominator is the exact share of capacity, from 0 to 1, of a percentage;
	// denominator is 0 for an absolute quantity.
	numerator, denominator uint64
}

// of returns the threshold for a node whose capacity of the resource is capacity. A share is
// rounded up to the byte, so that allocatable is never overestimated.
func (t evictionThreshold) of(capacity resource.Quantity) resource.Quantity {
	if t.denominator == 0 {
		return t.quantity.DeepCopy()
	}
	// 128-bit arithmetic: capacity × numerator overflows 64 bits for large volumes and
	// precise percentages, while the quotient, at most capacity, does not.
	hi, lo := bits.Mul64(uint64(capacity.Value()), t.numerator)
	bytes, remainder := bits.Div64(hi, lo, t.denominator)
	if remainder > 0 {
		bytes++
	}
	return *resource.NewQuantity(int64(bytes), resource.BinarySI)
}

// resolveNodeClass reads the settings of nodeClass that shape instance types. Invalid kubelet
// values (the CRD rejects them, but objects can bypass it) are left out, so that their
// defaults apply, and reported in the error.
func resolveNodeClass(nodeClass *kcv1.KCNodeClass) (nodeClassSettings, error) {
	var errs []error
	rootGiB := int64(nodeClass.Spec.RootVolume.SizeGiB)
	if rootGiB < 0 {
		errs = append(errs, fmt.Errorf("spec.rootVolume.sizeGiB: %d is negative, using %d", rootGiB, defaultRootVolumeGiB))
	}
	if rootGiB <= 0 {
		rootGiB = defaultRootVolumeGiB
	}
	kubelet, err := parseKubelet(nodeClass.Spec.Kubelet)
	return nodeClassSettings{
		zones:      subnetZones(nodeClass.Status.Subnets),
		rootVolume: *resource.NewQuantity(rootGiB<<30, resource.BinarySI),
		kubelet:    kubelet,
	}, errors.Join(append(errs, err)...)
}

func subnetZones(subnets []kcv1.Subnet) []string {
	zones := make([]string, 0, len(subnets))
	for _, s := range subnets {
		if s.Zone != "" {
			zones = append(zones, s.Zone)
		}
	}
	slices.Sort(zones)
	return slices.Compact(zones)
}

func parseKubelet(k *kcv1.KubeletConfiguration) (kubeletSettings, error) {
	if k == nil {
		k = &kcv1.KubeletConfiguration{}
	}
	settings := kubeletSettings{maxPods: defaultMaxPods}
	var errs []error
	if k.MaxPods != nil {
		if *k.MaxPods > 0 {
			settings.maxPods = int64(*k.MaxPods)
		} else {
			errs = append(errs, fmt.Errorf("spec.kubelet.maxPods: %d is not positive", *k.MaxPods))
		}
	}
	if k.PodsPerCore != nil {
		if *k.PodsPerCore >= 0 {
			settings.podsPerCore = int64(*k.PodsPerCore)
		} else {
			errs = append(errs, fmt.Errorf("spec.kubelet.podsPerCore: %d is negative", *k.PodsPerCore))
		}
	}
	var err error
	settings.kubeReserved, err = parseReserved("spec.kubelet.kubeReserved", k.KubeReserved)
	errs = append(errs, err)
	settings.systemReserved, err = parseReserved("spec.kubelet.systemReserved", k.SystemReserved)
	errs = append(errs, err)
	settings.evictionHardSignals = maps.Clone(kubeletDefaultEvictionHard)
	valid, err := validEvictionHard(k.EvictionHard)
	errs = append(errs, err)
	maps.Copy(settings.evictionHardSignals, valid)
	settings.evictionHard = map[corev1.ResourceName]evictionThreshold{}
	for signal, name := range evictionSignalResources {
		// Valid by now: a default, or checked above.
		settings.evictionHard[name], _ = parseEvictionThreshold(settings.evictionHardSignals[signal])
	}
	return settings, errors.Join(errs...)
}

func parseReserved(field string, values map[string]string) (corev1.ResourceList, error) {
	reserved := corev1.ResourceList{}
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(values)) {
		value := values[key]
		if !slices.Contains(reservableResources, corev1.ResourceName(key)) {
			errs = append(errs, fmt.Errorf("%s[%s]: %q is not a resource that can be reserved (cpu, memory, ephemeral-storage, pid)", field, key, key))
			continue
		}
		q, err := resourceutil.ParseNonNegative(value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s[%s]: %w", field, key, err))
			continue
		}
		reserved[corev1.ResourceName(key)] = q
	}
	return reserved, errors.Join(errs...)
}

// validEvictionHard returns the thresholds of values that are valid, by signal, trimmed, and
// an error naming each one that is not.
func validEvictionHard(values map[string]string) (map[string]string, error) {
	valid := map[string]string{}
	var errs []error
	for _, signal := range slices.Sorted(maps.Keys(values)) {
		_, reducesAllocatable := evictionSignalResources[signal]
		if !reducesAllocatable && !slices.Contains(evictionSignalsOutsideAllocatable, signal) {
			errs = append(errs, fmt.Errorf("spec.kubelet.evictionHard[%s]: unknown eviction signal", signal))
			continue
		}
		// Every value is checked, as the kubelet refuses to start with an invalid one.
		if _, err := parseEvictionThreshold(values[signal]); err != nil {
			errs = append(errs, fmt.Errorf("spec.kubelet.evictionHard[%s]: %w", signal, err))
			continue
		}
		valid[signal] = strings.TrimSpace(values[signal])
	}
	return valid, errors.Join(errs...)
}

// decimalPattern is the form of a percentage: plain decimal digits, so that exponents cannot
// make the exact arithmetic below arbitrarily large.
var decimalPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// parseEvictionThreshold reads "10%" (of capacity) or a quantity such as "500Mi".
func parseEvictionThreshold(value string) (evictionThreshold, error) {
	number, isPercentage := strings.CutSuffix(strings.TrimSpace(value), "%")
	if !isPercentage {
		q, err := resourceutil.ParseNonNegative(value)
		return evictionThreshold{quantity: q}, err
	}
	invalid := fmt.Errorf("%q is not a decimal percentage from 0%% to 100%%", value)
	if !decimalPattern.MatchString(number) {
		return evictionThreshold{}, invalid
	}
	share, _ := new(big.Rat).SetString(number)
	share.Quo(share, big.NewRat(100, 1))
	if share.Cmp(big.NewRat(1, 1)) > 0 || !share.Num().IsUint64() || !share.Denom().IsUint64() {
		return evictionThreshold{}, invalid
	}
	return evictionThreshold{numerator: share.Num().Uint64(), denominator: share.Denom().Uint64()}, nil
}
