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
	"maps"
	"strings"
	"sync"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// KakaoCloud has no price API, so instance types are compared by relative cost values: a
// linear function of a flavor's vCPUs, memory and GPUs. The unit is the cost of one vCPU.
const (
	// costPerVCPU is the cost of one vCPU, the unit.
	costPerVCPU = 1.0
	// costPerMemoryGiB makes 8 GiB cost as much as a vCPU, close to the ratio in public cloud
	// list prices. It is what makes a memory-optimized flavor cost more than a general-purpose
	// one of the same vCPUs, and a compute-optimized one less.
	costPerMemoryGiB = 0.125
	// defaultCostPerGPU is the cost of a GPU not in costPerGPUByName: an unknown GPU is taken
	// to be data-centre class and costs as much as an A100.
	defaultCostPerGPU = 800.0
)

// costPerGPUByName is the cost of one GPU by the flavor's hw_name (lower case). GPU costs are
// set far above their share of a real bill on purpose: a GPU flavor then costs more than any
// CPU flavor, so pods that do not ask for a GPU land on a GPU node only when nothing else
// fits, and consolidation moves them off it.
var costPerGPUByName = map[string]float64{
	"t4":   200,
	"a100": 800,
	"h100": 1600,
}

// PriceTable gives each flavor its relative cost value: an operator's override when there is
// one, else the built-in value from its vCPUs, memory and GPUs. It is safe for concurrent
// use.
type PriceTable struct {
	mu        sync.RWMutex
	overrides map[string]float64
}

// NewPriceTable returns a table of built-in values without overrides.
func NewPriceTable() *PriceTable {
	return &PriceTable{}
}

// Price returns the relative cost value of a flavor.
func (t *PriceTable) Price(f kakaocloud.Flavor) float64 {
	t.mu.RLock()
	override, ok := t.overrides[f.Name]
	t.mu.RUnlock()
	if ok {
		return override
	}
	return builtInPrice(f)
}

// SetOverrides replaces every override with overrides, keyed by flavor name. Flavors not in
// it go back to their built-in values.
func (t *PriceTable) SetOverrides(overrides map[string]float64) {
	copied := maps.Clone(overrides)
	t.mu.Lock()
	t.overrides = copied
	t.mu.Unlock()
}

// builtInPrice is vCPUs × costPerVCPU + memory GiB × costPerMemoryGiB + GPUs × the GPU's
// cost. Within a family, where memory per vCPU is fixed, the value grows in proportion to the
// size.
func builtInPrice(f kakaocloud.Flavor) float64 {
	price := float64(f.VCPUs)*costPerVCPU + float64(f.MemoryMB)/1024*costPerMemoryGiB
	if isGPU(f) {
		perGPU, known := costPerGPUByName[strings.ToLower(f.HWName)]
		if !known {
			perGPU = defaultCostPerGPU
		}
		price += float64(f.HWCount) * perGPU
	}
	return price
}
