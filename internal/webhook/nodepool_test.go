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

package webhook

import (
	"fmt"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
)

var poolCounter atomic.Int64

func newNodePool() *karpv1.NodePool {
	return &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%d", poolCounter.Add(1))},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
				Requirements: []karpv1.NodeSelectorRequirementWithMinValues{{
					Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"},
				}},
				NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.kakaocloud.com", Kind: "KCNodeClass", Name: "default"},
				ExpireAfter:  karpv1.MustParseNillableDuration("720h"),
			}},
			Disruption: karpv1.Disruption{ConsolidateAfter: karpv1.MustParseNillableDuration("0s")},
		},
	}
}

func withBudget(schedule string) func(*karpv1.NodePool) {
	return func(np *karpv1.NodePool) {
		np.Spec.Disruption.Budgets = []karpv1.Budget{{
			Nodes: "0", Schedule: new(schedule), Duration: &metav1.Duration{Duration: 3600e9},
		}}
	}
}

var _ = Describe("NodePool validating webhook", func() {
	DescribeTable("admits",
		func(mutate func(*karpv1.NodePool)) {
			np := newNodePool()
			mutate(np)
			Expect(env.APIClient.Create(env.Ctx, np)).To(Succeed())
		},
		Entry("a five-field schedule with ranges and names", withBudget("0 9 * * mon-fri")),
		Entry("a macro schedule", withBudget("@daily")),
		Entry("the same taint key with two effects", func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{
				{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoSchedule},
				{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoExecute},
			}
		}),
	)

	DescribeTable("rejects with a message that says what is wrong",
		func(mutate func(*karpv1.NodePool), message string) {
			np := newNodePool()
			mutate(np)
			err := env.APIClient.Create(env.Ctx, np)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(`admission webhook "vnodepool-v1.karpenter.sh" denied the request`))
			Expect(err.Error()).To(ContainSubstring(message))
		},
		Entry("a minute out of range", withBudget("61 * * * *"),
			`spec.disruption.budgets[0].schedule: Invalid value: "61 * * * *": not a cron schedule: end of range (61) above maximum (59): 61`),
		Entry("an unknown day name", withBudget("0 9 * * funday"),
			`spec.disruption.budgets[0].schedule: Invalid value: "0 9 * * funday": not a cron schedule`),
		Entry("a time zone", withBudget("CRON_TZ=Asia/Seoul 0 9 * * *"),
			"time zones are not supported: budget schedules are in UTC"),
		Entry("a taint repeated with the same effect in startupTaints", func(np *karpv1.NodePool) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoSchedule}}
			np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "dedicated", Value: "b", Effect: corev1.TaintEffectNoSchedule}}
		}, `spec.template.spec.startupTaints[0]: Duplicate value: "taint dedicated:NoSchedule is already given at spec.template.spec.taints[0]"`),
	)

	It("checks updates too", func() {
		np := newNodePool()
		Expect(env.APIClient.Create(env.Ctx, np)).To(Succeed())
		withBudget("0 25 * * *")(np)
		err := env.APIClient.Update(env.Ctx, np)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(`spec.disruption.budgets[0].schedule: Invalid value: "0 25 * * *"`))
	})
})
