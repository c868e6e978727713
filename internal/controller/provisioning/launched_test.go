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

package provisioning_test

import (
	"context"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/controller/provisioning"
	. "github.com/kakaocloud/karpenter-provider-kakaocloud/internal/test/expectations"
)

var _ = Describe("NodeClaims the cache does not show yet", func() {
	var (
		cache       *laggingCache
		provisioner *provisioning.Provisioner
	)
	BeforeEach(func() {
		cache = &laggingCache{Client: env.Client}
		provisioner = &provisioning.Provisioner{Client: cache, APIReader: env.Client, CloudProvider: cloud,
			Recorder: controllers.Provisioner.Recorder, Clock: controllers.Provisioner.Clock}
	})

	It("holds their pods and counts against limits until the cache shows them, and stops when one is deleted first", func() {
		readyPool("lagging", corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse("2")}, nil)
		selector := map[string]string{karpv1.LabelNodePool: "lagging"}
		first := pod("apart-0", "1", selector, apart("lagging"))
		created := ExpectProvisioned(env.Ctx, env.Client, provisioner, first)
		Expect(created).To(HaveLen(1))

		By("a pass before the cache shows it: its pod waits for it")
		Expect(ExpectProvisioned(env.Ctx, env.Client, provisioner)).To(BeEmpty())
		Expect(env.Recorder.Notes(first.Name, provisioning.ReasonNominated)).To(HaveEach("Pod should schedule on: nodeclaim/" + created[0].Name))

		By("two more pods that each need a node of their own: limits.nodes has room for one, the unseen NodeClaim counted")
		more := []*corev1.Pod{pod("apart-1", "1", selector, apart("lagging")), pod("apart-2", "1", selector, apart("lagging"))}
		Expect(ExpectProvisioned(env.Ctx, env.Client, provisioner, more...)).To(HaveLen(1))
		Expect(append(env.Recorder.Notes(more[0].Name, provisioning.ReasonFailedScheduling), env.Recorder.Notes(more[1].Name, provisioning.ReasonFailedScheduling)...)).
			To(ContainElement(ContainSubstring("nodepool lagging: would exceed limits nodes")))
		Expect(nodeClaimsOf("lagging")).To(HaveLen(2))

		By("the first NodeClaim deleted before the cache ever showed it: its pod gets another")
		ExpectDeleted(env.Ctx, env.Client, created[0])
		replacement := ExpectProvisioned(env.Ctx, env.Client, provisioner)
		Expect(replacement).To(HaveLen(1))
		Expect(env.Recorder.Notes(first.Name, provisioning.ReasonNominated)).To(ContainElement("Pod should schedule on: nodeclaim/" + replacement[0].Name))

		By("the cache catching up: every pending pod has its NodeClaim, and nothing is opened again")
		cache.catchUp()
		Expect(ExpectProvisioned(env.Ctx, env.Client, provisioner)).To(BeEmpty())
		Expect(nodeClaimsOf("lagging")).To(HaveLen(2))
	})
})

// laggingCache reads like the manager's cache in the moment after a NodeClaim is created: it
// does not list the NodeClaims created through it until catchUp.
type laggingCache struct {
	client.Client
	mu     sync.Mutex
	unseen map[string]bool
}

func (c *laggingCache) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := c.Client.Create(ctx, obj, opts...); err != nil {
		return err
	}
	if _, ok := obj.(*karpv1.NodeClaim); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.unseen == nil {
			c.unseen = map[string]bool{}
		}
		c.unseen[obj.GetName()] = true
	}
	return nil
}

func (c *laggingCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	nodeClaims, ok := list.(*karpv1.NodeClaimList)
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	shown := nodeClaims.Items[:0]
	for _, nodeClaim := range nodeClaims.Items {
		if !c.unseen[nodeClaim.Name] {
			shown = append(shown, nodeClaim)
		}
	}
	nodeClaims.Items = shown
	return nil
}

func (c *laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*karpv1.NodeClaim); ok {
		c.mu.Lock()
		hidden := c.unseen[key.Name]
		c.mu.Unlock()
		if hidden {
			return fmt.Errorf("the cache does not show NodeClaim %s yet: the pass must read it from the API server", key.Name)
		}
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// catchUp shows every NodeClaim created so far.
func (c *laggingCache) catchUp() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unseen = nil
}
