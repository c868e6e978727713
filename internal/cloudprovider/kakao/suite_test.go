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

package kakao_test

import (
	"fmt"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider/kakao"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/operator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

func TestCloudProvider(t *testing.T) { test.RunSuite(t, "KakaoCloud cloud provider suite") }

// The specs call the cloud provider directly; the real KCNodeClass controller resolves the
// node classes they launch from. Specs read and write through the cache-syncing client, so
// that what they wrote is what the provider reads.
var (
	unavailable *instancetype.UnavailableOfferings
	provider    *kakao.CloudProvider
	env         = test.Suite(test.EnvironmentOptions{
		Direct: true, CatalogTTL: time.Nanosecond,
		Emulator: emulator.Options{BuildDelay: time.Nanosecond, DeleteDelay: time.Nanosecond, Catalog: withSmallSubnets()},
	}, func(env *test.Environment) error {
		controllers := env.Controllers(func(o *operator.Options) {
			o.PriceOverrides = instancetype.PriceOverrideSource{Reader: env.Client, ConfigMap: client.ObjectKey{Namespace: "default", Name: instancetype.PriceOverridesConfigMapName}}
			o.NodeClassResync = 200 * time.Millisecond
		})
		provider = controllers.CloudProvider
		unavailable = provider.UnavailableOfferings()
		return controllers.Register(env.Ctx, env.Manager, operator.NodeClass)
	})
)

// withSmallSubnets is the default catalog with two small subnets in zone a, eleven VM addresses
// each, to see how launches choose among the subnets of one zone.
func withSmallSubnets() *emulator.Catalog {
	catalog := emulator.DefaultCatalog()
	for i, cidr := range []string{"10.0.48.0/28", "10.0.48.16/28"} {
		catalog.Subnets = append(catalog.Subnets, kakaocloud.Subnet{
			Name: fmt.Sprintf("karpenter-subnet-a-small-%d", i+1), AvailabilityZone: emulator.ZoneA, CIDRBlock: cidr,
			VPCName: emulator.DefaultVPCName, ProvisioningStatus: "ACTIVE", OperatingStatus: "ONLINE",
		})
	}
	return catalog
}
