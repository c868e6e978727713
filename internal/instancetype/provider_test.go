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
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

var (
	catalogSizes     = []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge"}
	catalogGPUs      = []string{"gn1i.xlarge", "gn1i.2xlarge", "gn1i.8xlarge"}
	allZones         = []string{emulator.ZoneA, emulator.ZoneB, emulator.ZoneC}
	largestHostZones = []string{emulator.ZoneA, emulator.ZoneB}
)

func TestListEmulatorCatalog(t *testing.T) {
	provider := NewProvider(emulatorCatalog(t, nil), nil, nil)
	types, err := provider.List(t.Context(), nodeClassInZones(allZones...))
	if err != nil {
		t.Fatalf("List: %v", err)
	}

	var wantNames []string
	for _, family := range []string{"c2a", "m2a", "r2a"} {
		for _, size := range catalogSizes {
			wantNames = append(wantNames, family+"."+size)
		}
	}
	wantNames = append(wantNames, catalogGPUs...)
	slices.Sort(wantNames)
	if got := names(types); !slices.Equal(got, wantNames) {
		t.Fatalf("types = %v, want the %d of the catalog %v", got, len(wantNames), wantNames)
	}

	byName := indexByName(types)
	expectLabels(t, byName["m2a.xlarge"], map[string]string{
		"node.kubernetes.io/instance-type":         "m2a.xlarge",
		"kubernetes.io/arch":                       "amd64",
		"kubernetes.io/os":                         "linux",
		"karpenter.kakaocloud.com/instance-family": "m2a",
		"karpenter.kakaocloud.com/instance-size":   "xlarge",
		"karpenter.kakaocloud.com/instance-cpu":    "4",
		"karpenter.kakaocloud.com/instance-memory": "16384",
	})
	expectLabels(t, byName["gn1i.xlarge"], map[string]string{
		"node.kubernetes.io/instance-type":            "gn1i.xlarge",
		"kubernetes.io/arch":                          "amd64",
		"kubernetes.io/os":                            "linux",
		"karpenter.kakaocloud.com/instance-family":    "gn1i",
		"karpenter.kakaocloud.com/instance-size":      "xlarge",
		"karpenter.kakaocloud.com/instance-cpu":       "4",
		"karpenter.kakaocloud.com/instance-memory":    "16384",
		"karpenter.kakaocloud.com/instance-gpu-count": "1",
		"karpenter.kakaocloud.com/instance-gpu-name":  "t4",
	})
	expectResources(t, "m2a.xlarge allocatable", byName["m2a.xlarge"].Allocatable(), m2aXLargeDefaults.allocatable)
	expectResources(t, "gn1i.xlarge capacity", byName["gn1i.xlarge"].Capacity,
		resources("cpu=4", "memory=15155Mi", "ephemeral-storage=50Gi", "pods=110", "nvidia.com/gpu=1"))
}

func TestListOfferingsFollowSubnetZones(t *testing.T) {
	tests := []struct {
		name        string
		subnetZones []string
		// wantZones returns the zones a type is offered in.
		wantZones func(name string) []string
	}{
		{
			name:        "subnets in every zone",
			subnetZones: allZones,
			wantZones: func(name string) []string {
				switch {
				case strings.HasPrefix(name, "gn1i."):
					return []string{emulator.ZoneA}
				case strings.HasSuffix(name, ".12xlarge"), strings.HasSuffix(name, ".16xlarge"):
					return largestHostZones
				}
				return allZones
			},
		},
		{
			name:        "subnets only in zone c",
			subnetZones: []string{emulator.ZoneC, emulator.ZoneC},
			wantZones: func(name string) []string {
				if strings.HasPrefix(name, "gn1i.") || strings.HasSuffix(name, ".12xlarge") || strings.HasSuffix(name, ".16xlarge") {
					return nil
				}
				return []string{emulator.ZoneC}
			},
		},
		{
			name:        "subnets in a zone no flavor is sold in",
			subnetZones: []string{"kr-central-1-a"},
			wantZones:   func(string) []string { return nil },
		},
		{
			name:      "subnets not resolved yet",
			wantZones: func(string) []string { return nil },
		},
	}
	provider := NewProvider(emulatorCatalog(t, nil), nil, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			types, err := provider.List(t.Context(), nodeClassInZones(tt.subnetZones...))
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if len(types) != 24 {
				t.Errorf("List returned %d types, want all 24, with or without offerings", len(types))
			}
			for _, it := range types {
				var zones []string
				for _, o := range it.Offerings {
					zones = append(zones, o.Zone)
					if o.CapacityType != "on-demand" || !o.Available {
						t.Errorf("%s offering %+v, want available on-demand", it.Name, o)
					}
				}
				if want := tt.wantZones(it.Name); !slices.Equal(zones, want) {
					t.Errorf("%s offered in %v, want %v", it.Name, zones, want)
				}
			}
		})
	}
}

func TestListMarksUnavailableOfferings(t *testing.T) {
	clock := newFakeClock()
	unavailable := NewUnavailableOfferings(time.Minute, clock)
	provider := NewProvider(emulatorCatalog(t, nil), nil, unavailable)
	nodeClass := nodeClassInZones(allZones...)

	unavailable.MarkUnavailable("m2a.xlarge", emulator.ZoneB, "on-demand", "no valid host was found")
	expectAvailability(t, provider, nodeClass, map[string]bool{
		"m2a.xlarge/" + emulator.ZoneA: true,
		"m2a.xlarge/" + emulator.ZoneB: false,
		"m2a.xlarge/" + emulator.ZoneC: true,
		"m2a.large/" + emulator.ZoneB:  true,
		"c2a.xlarge/" + emulator.ZoneB: true,
	})

	clock.Step(time.Minute)
	expectAvailability(t, provider, nodeClass, map[string]bool{"m2a.xlarge/" + emulator.ZoneB: true})
}

func TestListPrices(t *testing.T) {
	provider := NewProvider(emulatorCatalog(t, nil), nil, nil)
	types, err := provider.List(t.Context(), nodeClassInZones(allZones...))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	prices := map[string]float64{}
	for _, it := range types {
		prices[it.Name] = cheapestPrice(t, it)
	}

	// The table in docs/instance-types.md.
	want := map[string]float64{
		"c2a.large": 2.5, "c2a.xlarge": 5, "c2a.2xlarge": 10, "c2a.4xlarge": 20, "c2a.8xlarge": 40, "c2a.12xlarge": 60, "c2a.16xlarge": 80,
		"m2a.large": 3, "m2a.xlarge": 6, "m2a.2xlarge": 12, "m2a.4xlarge": 24, "m2a.8xlarge": 48, "m2a.12xlarge": 72, "m2a.16xlarge": 96,
		"r2a.large": 4, "r2a.xlarge": 8, "r2a.2xlarge": 16, "r2a.4xlarge": 32, "r2a.8xlarge": 64, "r2a.12xlarge": 96, "r2a.16xlarge": 128,
		"gn1i.xlarge": 206, "gn1i.2xlarge": 212, "gn1i.8xlarge": 848,
	}
	if !maps.Equal(prices, want) {
		t.Errorf("prices = %v, want %v", prices, want)
	}

	mostExpensiveCPUOnly := 0.0
	for _, size := range catalogSizes {
		c2a, m2a, r2a := prices["c2a."+size], prices["m2a."+size], prices["r2a."+size]
		if c2a >= m2a || m2a >= r2a {
			t.Errorf("%s: c2a %v, m2a %v, r2a %v; want c2a < m2a < r2a", size, c2a, m2a, r2a)
		}
		mostExpensiveCPUOnly = max(mostExpensiveCPUOnly, r2a)
	}
	for _, gpu := range catalogGPUs {
		if prices[gpu] <= mostExpensiveCPUOnly {
			t.Errorf("%s costs %v, want more than every CPU-only type (up to %v)", gpu, prices[gpu], mostExpensiveCPUOnly)
		}
	}
	// Within a family the value is proportional to the size.
	byName := indexByName(types)
	for _, family := range []string{"c2a", "m2a", "r2a"} {
		perVCPU := prices[family+".large"] / 2
		for _, size := range catalogSizes {
			it := byName[family+"."+size]
			if got := prices[it.Name] / float64(it.Capacity.Cpu().Value()); got != perVCPU {
				t.Errorf("%s costs %v per vCPU, want %v like %s.large", it.Name, got, perVCPU, family)
			}
		}
	}
}

func TestListPriceOverridesFromConfigMap(t *testing.T) {
	prices := NewPriceTable()
	provider := NewProvider(emulatorCatalog(t, nil), prices, nil)
	nodeClass := nodeClassInZones(allZones...)
	source := PriceOverrideSource{
		Reader:    fake.NewClientBuilder().WithObjects(priceConfigMap(map[string]string{"m2a.xlarge": "1.5", "c2a.large": "oops"})).Build(),
		ConfigMap: pricesName,
	}

	overrides, err := source.Load(t.Context())
	expectErrorContaining(t, err, []string{`"c2a.large"`})
	prices.SetOverrides(overrides)
	expectPrices(t, provider, nodeClass, map[string]float64{"m2a.xlarge": 1.5, "c2a.large": 2.5, "m2a.large": 3})

	prices.SetOverrides(nil)
	expectPrices(t, provider, nodeClass, map[string]float64{"m2a.xlarge": 6})
}

func TestListReportsInvalidKubeletSettings(t *testing.T) {
	provider := NewProvider(emulatorCatalog(t, nil), nil, nil)
	nodeClass := nodeClassInZones(allZones...)
	nodeClass.Spec.Kubelet = &kcv1.KubeletConfiguration{KubeReserved: map[string]string{"memory": "a lot"}}

	types, err := provider.List(t.Context(), nodeClass)
	expectErrorContaining(t, err, []string{`spec.kubelet.kubeReserved[memory]: "a lot" is not a quantity`})
	if len(types) != 24 {
		t.Fatalf("List returned %d types with the error, want all 24", len(types))
	}
	expectResources(t, "m2a.xlarge allocatable", indexByName(types)["m2a.xlarge"].Allocatable(), m2aXLargeDefaults.allocatable)
}

func TestListSkipsFlavorsThatCannotBeLaunched(t *testing.T) {
	offer := emulator.DefaultCatalog()
	offer.Flavors = append(offer.Flavors,
		kakaocloud.Flavor{Name: "bm2a.metal", VCPUs: 96, MemoryMB: 786432, InstanceType: "bm", Zones: allZones},
		kakaocloud.Flavor{Name: "m2g.large", VCPUs: 2, MemoryMB: 8192, Architecture: "aarch64", Zones: allZones},
		kakaocloud.Flavor{Name: "p1z.large", VCPUs: 2, MemoryMB: 8192, Architecture: "ppc64le", Zones: allZones},
	)
	provider := NewProvider(emulatorCatalog(t, offer), nil, nil)
	types, err := provider.List(t.Context(), nodeClassInZones(allZones...))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	byName := indexByName(types)
	if len(types) != 25 || byName["bm2a.metal"] != nil || byName["p1z.large"] != nil {
		t.Errorf("types = %v, want the 24 of the built-in catalog and m2g.large", names(types))
	}
	if arm := byName["m2g.large"]; arm == nil || arm.Labels["kubernetes.io/arch"] != "arm64" {
		t.Errorf("m2g.large = %+v, want it with kubernetes.io/arch arm64", arm)
	}
}

func TestListFlavorsUnreadable(t *testing.T) {
	emu := emulator.New(emulator.Options{})
	emu.InjectFault(emulator.OpListFlavors, emulator.Fault{Status: http.StatusForbidden})
	provider := NewProvider(catalogOf(t, emu), nil, nil)
	types, err := provider.List(t.Context(), nodeClassInZones(allZones...))
	if err == nil || types != nil {
		t.Fatalf("List = %d types, %v; want no types and an error", len(types), err)
	}
	expectErrorContaining(t, err, []string{"listing flavors"})
}

// BenchmarkList measures a List of the built-in catalog's 24 types with the flavors cached,
// as in a scheduling round.
func BenchmarkList(b *testing.B) {
	provider := NewProvider(emulatorCatalog(b, nil), nil, nil)
	nodeClass := nodeClassInZones(allZones...)
	if _, err := provider.List(b.Context(), nodeClass); err != nil {
		b.Fatalf("List: %v", err)
	}
	var types []*cloudprovider.InstanceType
	var err error
	b.ReportAllocs()
	for b.Loop() {
		if types, err = provider.List(b.Context(), nodeClass); err != nil {
			b.Fatalf("List: %v", err)
		}
	}
	// The last List, checked outside the timing: every type of the catalog, each one sold in
	// some zone of the node class's subnets (the zones themselves are
	// TestListOfferingsFollowSubnetZones's to check).
	if len(types) != 24 {
		b.Fatalf("List returned %d types, want the built-in catalog's 24: %v", len(types), names(types))
	}
	for _, it := range types {
		if len(it.Offerings.Available()) == 0 {
			b.Fatalf("%s has no available offering: %+v", it.Name, it.Offerings)
		}
	}
}

// emulatorCatalog returns a catalog reading an emulator that offers offer (the built-in
// catalog when nil) over HTTP.
func emulatorCatalog(tb testing.TB, offer *emulator.Catalog) *catalog.Catalog {
	tb.Helper()
	return catalogOf(tb, emulator.New(emulator.Options{Catalog: offer}))
}

func catalogOf(tb testing.TB, emu *emulator.Emulator) *catalog.Catalog {
	tb.Helper()
	server := httptest.NewServer(emu)
	tb.Cleanup(server.Close)
	client, err := kakaocloud.New(kakaocloud.Config{
		Endpoints: emu.Endpoints(server.URL),
		Credentials: kakaocloud.StaticCredentials{
			AccessKeyID:     emulator.DefaultAccessKeyID,
			SecretAccessKey: emulator.DefaultSecretAccessKey,
		},
	})
	if err != nil {
		tb.Fatalf("kakaocloud.New: %v", err)
	}
	return catalog.New(client, catalog.Options{ClusterName: emulator.DefaultClusterName})
}

// nodeClassInZones returns a KCNodeClass whose status has a subnet in each zone.
func nodeClassInZones(zones ...string) *kcv1.KCNodeClass {
	nodeClass := &kcv1.KCNodeClass{}
	for i, zone := range zones {
		nodeClass.Status.Subnets = append(nodeClass.Status.Subnets, kcv1.Subnet{ID: "subnet-" + strconv.Itoa(i), Zone: zone})
	}
	return nodeClass
}

// expectAvailability lists the types and checks the availability of "type/zone" offerings.
func expectAvailability(t *testing.T, provider *Provider, nodeClass *kcv1.KCNodeClass, want map[string]bool) {
	t.Helper()
	types, err := provider.List(t.Context(), nodeClass)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	got := map[string]bool{}
	for _, it := range types {
		for _, o := range it.Offerings {
			got[it.Name+"/"+o.Zone] = o.Available
		}
	}
	for offering, available := range want {
		if got[offering] != available {
			t.Errorf("%s available = %t, want %t", offering, got[offering], available)
		}
	}
}

// expectPrices lists the types and checks their offerings' prices.
func expectPrices(t *testing.T, provider *Provider, nodeClass *kcv1.KCNodeClass, want map[string]float64) {
	t.Helper()
	types, err := provider.List(t.Context(), nodeClass)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	byName := indexByName(types)
	for name, price := range want {
		if got := cheapestPrice(t, byName[name]); got != price {
			t.Errorf("%s costs %v, want %v", name, got, price)
		}
	}
}

// cheapestPrice is the price of a type's offerings, which is the same in every zone.
func cheapestPrice(t *testing.T, it *cloudprovider.InstanceType) float64 {
	t.Helper()
	cheapest, ok := it.Offerings.Cheapest()
	if !ok {
		t.Fatalf("%s has no offerings", it.Name)
	}
	for _, o := range it.Offerings {
		if o.Price != cheapest.Price {
			t.Errorf("%s costs %v in %s and %v in %s, want one price", it.Name, o.Price, o.Zone, cheapest.Price, cheapest.Zone)
		}
	}
	return cheapest.Price
}

func expectLabels(t *testing.T, it *cloudprovider.InstanceType, want map[string]string) {
	t.Helper()
	if !maps.Equal(it.Labels, want) {
		t.Errorf("%s labels = %v, want %v", it.Name, it.Labels, want)
	}
}

func names(types []*cloudprovider.InstanceType) []string {
	names := make([]string, 0, len(types))
	for _, it := range types {
		names = append(names, it.Name)
	}
	return names
}

func indexByName(types []*cloudprovider.InstanceType) map[string]*cloudprovider.InstanceType {
	byName := map[string]*cloudprovider.InstanceType{}
	for _, it := range types {
		byName[it.Name] = it
	}
	return byName
}
