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

package catalog_test

import (
	"context"
	"testing"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test"
)

// A selector's name is compared exactly, whatever KakaoCloud's name filter matches: the
// emulator's matches every name that contains the query.
func TestByNameIsExact(t *testing.T) {
	ctx := context.Background()
	_, kc := test.Cloud(t, emulator.Options{})
	listed, err := kc.ListSubnets(ctx, kakaocloud.SubnetFilter{Name: "karpenter-subnet"})
	if err != nil || len(listed) != 3 {
		t.Fatalf("the API lists %d subnets for name=karpenter-subnet (%v); the test needs a filter that matches more than the name", len(listed), err)
	}
	c := catalog.New(kc, catalog.Options{ClusterName: "karpenter-demo"})
	if subnets, err := c.SubnetsByName(ctx, "karpenter-subnet"); err != nil || len(subnets) != 0 {
		t.Errorf("SubnetsByName(karpenter-subnet) = %v, %v; want none", subnets, err)
	}
	if subnets, err := c.SubnetsByName(ctx, "karpenter-subnet-b"); err != nil || len(subnets) != 1 || subnets[0].Name != "karpenter-subnet-b" {
		t.Errorf("SubnetsByName(karpenter-subnet-b) = %v, %v", subnets, err)
	}
	if groups, err := c.SecurityGroupsByName(ctx, "karpenter"); err != nil || len(groups) != 0 {
		t.Errorf("SecurityGroupsByName(karpenter) = %v, %v; want none", groups, err)
	}
	if groups, err := c.SecurityGroupsByName(ctx, "karpenter-workers"); err != nil || len(groups) != 1 {
		t.Errorf("SecurityGroupsByName(karpenter-workers) = %v, %v", groups, err)
	}
}
