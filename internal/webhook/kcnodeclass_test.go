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
	"net/http"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/catalog"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
)

var nodeClassCounter atomic.Int64

func kcNodeClass(version string) *kcv1.KCNodeClass {
	return &kcv1.KCNodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("nodeclass-%d", nodeClassCounter.Add(1))},
		Spec: kcv1.KCNodeClassSpec{
			Bootstrap:                  kcv1.Bootstrap{KubernetesVersion: version},
			SubnetSelectorTerms:        []kcv1.SubnetSelectorTerm{{Name: "karpenter-subnet-a"}},
			SecurityGroupSelectorTerms: []kcv1.SecurityGroupSelectorTerm{{Name: "karpenter-workers"}},
		},
	}
}

// Emulator states the cases start from; each is undone after the case.
func deprecate(minor string) func() {
	return func() {
		env.Emulator.SetVersionDeprecated(minor, true)
		DeferCleanup(func() { env.Emulator.SetVersionDeprecated(minor, false) })
	}
}

func upgradeControlPlaneTo137() {
	env.Emulator.AddVersion(kakaocloud.KubernetesVersion{MinorVersion: "1.37", PatchVersion: "1.37.0"})
	env.Emulator.SetControlPlane("1.37", "1.37.0", "")
	DeferCleanup(func() {
		env.Emulator.SetControlPlane("1.36", "1.36.4", "")
		env.Emulator.RemoveVersion("1.37")
	})
}

// kubernetesEngineDown makes every Kubernetes Engine read fail after the catalog has read it
// once, so that only its cached answers remain.
func kubernetesEngineDown() {
	_, _ = env.Catalog.Versions(env.Ctx)
	_, _ = env.Catalog.Cluster(env.Ctx)
	for _, op := range []string{"ke.ListVersions", "ke.GetCluster"} {
		env.Emulator.InjectFault(op, emulator.Fault{Status: http.StatusServiceUnavailable, Message: "maintenance", Count: 1 << 20})
	}
	DeferCleanup(env.Emulator.ClearFaults)
}

func nothing() {}

var _ = Describe("KCNodeClass validating webhook", func() {
	DescribeTable("on create",
		func(setup func(), version string, allowed bool, message string) {
			setup()
			err := env.APIClient.Create(env.Ctx, kcNodeClass(version))
			if allowed {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(`admission webhook "vkcnodeclass-v1.karpenter.kakaocloud.com" denied the request`))
			Expect(err.Error()).To(ContainSubstring(message))
		},
		Entry("the control plane's version", nothing, "1.36", true, ""),
		Entry("one minor below the control plane", nothing, "1.35", true, ""),
		Entry("two minors below the control plane", nothing, "1.34", false,
			`spec.bootstrap.kubernetesVersion: Invalid value: "1.34": Kubernetes 1.34 is outside the version skew the control plane (1.36) allows for workers; allowed versions: 1.36, 1.35`),
		Entry("a deprecated version", nothing, "1.33", false,
			"Kubernetes Engine does not offer Kubernetes 1.33 (deprecated or unknown); allowed versions: 1.36, 1.35"),
		Entry("a version newer than the control plane and unknown to Kubernetes Engine", nothing, "1.37", false,
			"Kubernetes Engine does not offer Kubernetes 1.37 (deprecated or unknown); allowed versions: 1.36, 1.35"),
		Entry("a version deprecated since, inside the skew", deprecate("1.35"), "1.35", false,
			"Kubernetes Engine does not offer Kubernetes 1.35 (deprecated or unknown); allowed versions: 1.36"),
		Entry("the new control plane's version after an upgrade", upgradeControlPlaneTo137, "1.37", true, ""),
		Entry("a version the upgrade left out of skew", upgradeControlPlaneTo137, "1.35", false,
			"the control plane (1.37) allows for workers; allowed versions: 1.37, 1.36"),
		Entry("a good version while Kubernetes Engine is down (cached answers)", kubernetesEngineDown, "1.36", true, ""),
		Entry("a bad version while Kubernetes Engine is down (cached answers)", kubernetesEngineDown, "1.34", false,
			"Kubernetes 1.34 is outside the version skew the control plane (1.36) allows"),
	)

	DescribeTable("on update",
		func(from string, setup func(), to string, allowed bool, message string) {
			nodeClass := kcNodeClass(from)
			Expect(env.APIClient.Create(env.Ctx, nodeClass)).To(Succeed())
			setup()
			nodeClass.Spec.Bootstrap.KubernetesVersion = to
			nodeClass.Spec.SubnetSelectorTerms = append(nodeClass.Spec.SubnetSelectorTerms, kcv1.SubnetSelectorTerm{Name: "karpenter-subnet-b"})
			err := env.APIClient.Update(env.Ctx, nodeClass)
			if allowed {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(message))
		},
		Entry("to the control plane's version", "1.35", nothing, "1.36", true, ""),
		Entry("to a version out of skew", "1.36", nothing, "1.34", false, "Kubernetes 1.34 is outside the version skew"),
		Entry("to a deprecated version", "1.35", nothing, "1.33", false, "Kubernetes Engine does not offer Kubernetes 1.33"),
		Entry("keeping a version deprecated since", "1.35", deprecate("1.35"), "1.35", true, ""),
		Entry("keeping a version the control plane left out of skew", "1.35", upgradeControlPlaneTo137, "1.35", true, ""),
		Entry("keeping the version while Kubernetes Engine is down", "1.36", kubernetesEngineDown, "1.36", true, ""),
	)

	It("admits with a warning when Kubernetes Engine cannot be reached and nothing is cached", func() {
		for _, op := range []string{"ke.ListVersions", "ke.GetCluster"} {
			env.Emulator.InjectFault(op, emulator.Fault{Status: http.StatusServiceUnavailable, Message: "maintenance", Count: 1 << 20})
		}
		DeferCleanup(env.Emulator.ClearFaults)
		fresh := catalog.New(env.KakaoCloud, catalog.Options{ClusterName: "karpenter-demo"})
		warnings, err := KCNodeClassValidator{Versions: fresh}.ValidateCreate(env.Ctx, kcNodeClass("1.34"))
		Expect(err).NotTo(HaveOccurred())
		Expect(warnings).To(ConsistOf(
			ContainSubstring("Kubernetes Engine cannot be reached"),
			ContainSubstring("the version skew of 1.34 was not checked"),
		))
		Expect(warnings[0]).To(ContainSubstring("maintenance"))
	})

	It("still refuses a deprecated version when only the control plane cannot be read", func() {
		env.Emulator.InjectFault("ke.GetCluster", emulator.Fault{Status: http.StatusServiceUnavailable, Count: 1 << 20})
		DeferCleanup(env.Emulator.ClearFaults)
		fresh := catalog.New(env.KakaoCloud, catalog.Options{ClusterName: "karpenter-demo"})
		warnings, err := KCNodeClassValidator{Versions: fresh}.ValidateCreate(env.Ctx, kcNodeClass("1.33"))
		Expect(err).To(MatchError(ContainSubstring("Kubernetes Engine does not offer Kubernetes 1.33 (deprecated or unknown); allowed versions: 1.34, 1.35, 1.36")))
		Expect(warnings).To(ConsistOf(ContainSubstring("the version skew of 1.33 was not checked")))
	})
})
