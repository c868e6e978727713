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
	"context"
	"fmt"
	"slices"
	"strings"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// Values of a flavor's instance_type the provider launches; bare metal ("bm") needs a
// different create call and is not offered.
const (
	flavorTypeVM  = "vm"
	flavorTypeGPU = "gpu"
)

// FlavorSource lists KakaoCloud flavors; the catalog's cached Flavors satisfies it.
type FlavorSource interface {
	Flavors(ctx context.Context) ([]kakaocloud.Flavor, error)
}

// Provider lists the instance types of a KCNodeClass. It is safe for concurrent use.
type Provider struct {
	flavors     FlavorSource
	prices      *PriceTable
	unavailable *UnavailableOfferings
}

// NewProvider returns a Provider reading flavors from flavors, pricing offerings with prices
// and marking unavailable the offerings in unavailable. Nil prices and unavailable mean the
// built-in prices and an empty cache with the default TTL.
func NewProvider(flavors FlavorSource, prices *PriceTable, unavailable *UnavailableOfferings) *Provider {
	if prices == nil {
		prices = NewPriceTable()
	}
	if unavailable == nil {
		unavailable = NewUnavailableOfferings(0, nil)
	}
	return &Provider{flavors: flavors, prices: prices, unavailable: unavailable}
}

// List returns every VM and GPU instance type, sorted by name, shaped by nodeClass: its kubelet
// settings and root volume give capacity and overhead, its subnets' zones the offerings. A
// type sold in none of those zones is returned without offerings, so that callers can say why
// nothing fits. Invalid kubelet settings are ignored (their defaults apply) and reported in
// the error returned with the list; a nil list comes with an error only when the flavors
// could not be read.
func (p *Provider) List(ctx context.Context, nodeClass *kcv1.KCNodeClass) ([]*cloudprovider.InstanceType, error) {
	flavors, err := p.flavors.Flavors(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing flavors: %w", err)
	}
	settings, settingsErr := resolveNodeClass(nodeClass)
	instanceTypes := make([]*cloudprovider.InstanceType, 0, len(flavors))
	for _, f := range flavors {
		if f.InstanceType != flavorTypeVM && f.InstanceType != flavorTypeGPU {
			continue
		}
		arch, known := kubernetesArch(f.Architecture)
		if !known {
			// No worker image exists for it, so it could never be launched.
			continue
		}
		capacity := newCapacity(f, settings)
		instanceTypes = append(instanceTypes, &cloudprovider.InstanceType{
			Name:      f.Name,
			Labels:    newLabels(f, arch),
			Offerings: p.offerings(f, settings.zones),
			Capacity:  capacity,
			Overhead:  newOverhead(capacity, settings.kubelet),
		})
	}
	slices.SortFunc(instanceTypes, func(a, b *cloudprovider.InstanceType) int { return strings.Compare(a.Name, b.Name) })
	return instanceTypes, settingsErr
}

// offerings returns an on-demand offering in each of zones the flavor is sold in; KakaoCloud
// sells no spot or reserved capacity.
func (p *Provider) offerings(f kakaocloud.Flavor, zones []string) cloudprovider.Offerings {
	offerings := make(cloudprovider.Offerings, 0, len(zones))
	price := p.prices.Price(f)
	for _, zone := range zones {
		if !slices.Contains(f.Zones, zone) {
			continue
		}
		offerings = append(offerings, cloudprovider.Offering{
			Zone:         zone,
			CapacityType: karpv1.CapacityTypeOnDemand,
			Price:        price,
			Available:    !p.unavailable.IsUnavailable(f.Name, zone, karpv1.CapacityTypeOnDemand),
		})
	}
	return offerings
}
