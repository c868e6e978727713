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

package nodeclass

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

// resolved is an observation in which every read succeeded: a stable control plane on 1.36,
// Kubernetes Engine offering 1.35 and 1.36, two worker images, a subnet and a security group,
// and no NodeClaims yet.
func resolved() Observation {
	return Observation{
		Cluster:  &kakaocloud.Cluster{Version: kakaocloud.KubernetesVersion{MinorVersion: "1.36"}, Status: kakaocloud.ClusterStatus{Phase: kakaocloud.ClusterPhaseProvisioned}},
		Versions: offered([]string{"1.35", "1.36"}),
		Images: []kakaocloud.NodeImage{
			{ID: "img-cpu", Name: "ubuntu-24.04-k8s-1.36", K8sVersion: "1.36", Architecture: "x86_64"},
			{ID: "img-gpu", Name: "ubuntu-24.04-k8s-1.36-gpu", K8sVersion: "1.36", Architecture: "x86_64", IsGPUType: true},
		},
		Subnets:        []kcv1.Subnet{{ID: "subnet-a", Name: "karpenter-subnet-a", Zone: "kr-central-2-a", CIDRBlock: "10.0.0.0/20"}},
		SecurityGroups: []kcv1.SecurityGroup{{ID: "sg-1", Name: "karpenter-workers"}},
		SigningKeys:    map[string]int32{},
		NodeVersions:   map[string]int32{},
	}
}

// nodeClassOn is a node class for worker version worker, with a status before as given.
func nodeClassOn(worker string, before kcv1.KCNodeClassStatus) *kcv1.KCNodeClass {
	return &kcv1.KCNodeClass{
		Spec:   kcv1.KCNodeClassSpec{Bootstrap: kcv1.Bootstrap{KubernetesVersion: worker}},
		Status: before,
	}
}

func upgrading(obs *Observation) { obs.Cluster.Status.Phase = kakaocloud.ClusterPhaseUpdating }

func cannotLookUpImages(obs *Observation) {
	obs.Images, obs.ImagesErr = nil, errors.New("timeout")
}

// imagesBefore is a status with the images resolved for 1.36 earlier, under the condition's
// reason given.
func imagesBefore(reason, message string) kcv1.KCNodeClassStatus {
	return kcv1.KCNodeClassStatus{
		KubernetesVersion: "1.36",
		Images:            []kcv1.Image{{ID: "img-old", Name: "ubuntu-22.04-k8s-1.36", KubernetesVersion: "1.36"}},
		Conditions:        []metav1.Condition{{Type: kcv1.ConditionTypeImagesReady, Status: metav1.ConditionTrue, Reason: reason, Message: message}},
	}
}

func TestConditions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		worker    string
		before    kcv1.KCNodeClassStatus
		spec      func(*kcv1.KCNodeClassSpec)
		obs       func(*Observation)
		condition string
		want      metav1.ConditionStatus
		reason    string
		message   string
		// kept: the condition is left as it was, its generation with it.
		kept bool
	}{
		{name: "the control plane's version", worker: "1.36", condition: kcv1.ConditionTypeKubernetesVersionReady,
			want: metav1.ConditionTrue, reason: kcv1.ReasonVersionSupported, message: "worker version 1.36 is supported by control plane 1.36"},
		{name: "one minor behind the control plane", worker: "1.35", condition: kcv1.ConditionTypeKubernetesVersionReady,
			want: metav1.ConditionTrue, reason: kcv1.ReasonVersionSupported, message: "worker version 1.35 is supported by control plane 1.36"},
		{name: "two minors behind the control plane", worker: "1.34", condition: kcv1.ConditionTypeKubernetesVersionReady,
			want: metav1.ConditionFalse, reason: kcv1.ReasonVersionSkewUnsupported,
			message: "worker version 1.34 is outside the allowed skew of control plane 1.36: allowed versions are 1.36, 1.35"},
		{name: "the cluster cannot be read", worker: "1.36", obs: func(obs *Observation) { obs.Cluster, obs.ClusterErr = nil, errors.New("503 Service Unavailable") },
			condition: kcv1.ConditionTypeKubernetesVersionReady, want: metav1.ConditionUnknown, reason: kcv1.ReasonClusterUnavailable,
			message: "cannot read the Kubernetes Engine cluster: 503 Service Unavailable"},
		{name: "the control plane upgrades", worker: "1.36", obs: upgrading, condition: kcv1.ConditionTypeKubernetesVersionReady,
			want: metav1.ConditionFalse, reason: kcv1.ReasonControlPlaneUpgrading,
			message: "the control plane is being upgraded (phase Updating); new nodes wait until the cluster is stable"},

		{name: "a version Kubernetes Engine offers", worker: "1.36", condition: kcv1.ConditionTypeKubernetesVersionDeprecated,
			want: metav1.ConditionFalse, reason: kcv1.ReasonWorkerVersionOffered, message: "Kubernetes Engine offers 1.36"},
		{name: "a version Kubernetes Engine no longer offers", worker: "1.35", obs: func(obs *Observation) { obs.Versions = offered([]string{"1.35", "1.36"}, "1.35") },
			condition: kcv1.ConditionTypeKubernetesVersionDeprecated, want: metav1.ConditionTrue, reason: kcv1.ReasonWorkerVersionNotOffered,
			message: "Kubernetes Engine no longer offers 1.35; existing and new nodes keep working, but plan a change to one of 1.36"},
		{name: "the versions cannot be read: what was known stays", worker: "1.35",
			before: kcv1.KCNodeClassStatus{Conditions: []metav1.Condition{{Type: kcv1.ConditionTypeKubernetesVersionDeprecated, Status: metav1.ConditionTrue,
				Reason: kcv1.ReasonWorkerVersionNotOffered, Message: "said before"}}},
			obs:       func(obs *Observation) { obs.Versions, obs.VersionsErr = nil, errors.New("timeout") },
			condition: kcv1.ConditionTypeKubernetesVersionDeprecated, want: metav1.ConditionTrue, reason: kcv1.ReasonWorkerVersionNotOffered, message: "said before",
			kept: true},

		{name: "images resolved", worker: "1.36", condition: kcv1.ConditionTypeImagesReady,
			want: metav1.ConditionTrue, reason: kcv1.ReasonImagesResolved, message: "2 worker images for Kubernetes 1.36"},
		{name: "a pinned image", worker: "1.36", spec: func(spec *kcv1.KCNodeClassSpec) { spec.ImageID = "img-pinned" },
			obs: func(obs *Observation) {
				obs.Images, obs.PinnedImage = nil, &kakaocloud.Image{ID: "img-pinned", Name: "custom"}
			},
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionTrue, reason: kcv1.ReasonImagePinned, message: "using pinned image img-pinned"},
		{name: "a pinned image that cannot be read", worker: "1.36", spec: func(spec *kcv1.KCNodeClassSpec) { spec.ImageID = "img-pinned" },
			obs:       func(obs *Observation) { obs.Images, obs.PinnedImageErr = nil, errors.New("image img-pinned not found") },
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionFalse, reason: kcv1.ReasonImagesNotFound,
			message: "pinned image img-pinned cannot be used: image img-pinned not found"},
		{name: "a pinned image wins over a retention", worker: "1.36", before: imagesBefore(kcv1.ReasonImagesRetained, "kept"),
			spec:      func(spec *kcv1.KCNodeClassSpec) { spec.ImageID = "img-pinned" },
			obs:       func(obs *Observation) { obs.Images, obs.PinnedImage = nil, &kakaocloud.Image{ID: "img-pinned"} },
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionTrue, reason: kcv1.ReasonImagePinned, message: "using pinned image img-pinned"},
		{name: "no images for the version", worker: "1.36", obs: func(obs *Observation) { obs.Images = nil },
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionFalse, reason: kcv1.ReasonImagesNotFound,
			message: "no worker images for Kubernetes 1.36: Kubernetes Engine offers none"},
		{name: "the images cannot be looked up, none resolved before", worker: "1.36", obs: cannotLookUpImages,
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionFalse, reason: kcv1.ReasonImagesNotFound,
			message: "no worker images for Kubernetes 1.36: timeout"},
		{name: "the images cannot be looked up, some resolved before for the version: retained", worker: "1.36",
			before: imagesBefore(kcv1.ReasonImagesResolved, "1 worker images for Kubernetes 1.36"), obs: cannotLookUpImages,
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionTrue, reason: kcv1.ReasonImagesRetained,
			message: "worker images for Kubernetes 1.36 cannot be looked up (timeout); keeping the 1 images resolved before. Change bootstrap.kubernetesVersion to a supported version or set spec.imageID to clear this"},
		{name: "a retention is sticky while the version stays", worker: "1.36", before: imagesBefore(kcv1.ReasonImagesRetained, "kept"),
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionTrue, reason: kcv1.ReasonImagesRetained, message: "kept"},
		{name: "a retention ends with the version", worker: "1.35", before: imagesBefore(kcv1.ReasonImagesRetained, "kept"),
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionTrue, reason: kcv1.ReasonImagesResolved, message: "2 worker images for Kubernetes 1.35"},
		{name: "images wait for the control plane's upgrade", worker: "1.36", obs: upgrading,
			condition: kcv1.ConditionTypeImagesReady, want: metav1.ConditionFalse, reason: kcv1.ReasonControlPlaneUpgrading,
			message: "the control plane is being upgraded; worker images are resolved again once the cluster is stable"},

		{name: "subnets resolved", worker: "1.36", condition: kcv1.ConditionTypeSubnetsReady,
			want: metav1.ConditionTrue, reason: kcv1.ReasonSubnetsResolved, message: "1 subnet(s) resolved"},
		{name: "subnets not found", worker: "1.36", obs: func(obs *Observation) { obs.MissingSubnets = []string{"name karpenter-subnet-z", "id subnet-9"} },
			condition: kcv1.ConditionTypeSubnetsReady, want: metav1.ConditionFalse, reason: kcv1.ReasonSubnetsNotFound,
			message: "subnet(s) not found: name karpenter-subnet-z, id subnet-9"},
		{name: "subnets cannot be looked up", worker: "1.36", obs: func(obs *Observation) { obs.Subnets, obs.SubnetsErr = nil, errors.New("boom") },
			condition: kcv1.ConditionTypeSubnetsReady, want: metav1.ConditionUnknown, reason: kcv1.ReasonSubnetsNotFound, message: "cannot look up subnets: boom"},
		{name: "security groups resolved", worker: "1.36", condition: kcv1.ConditionTypeSecurityGroupsReady,
			want: metav1.ConditionTrue, reason: kcv1.ReasonSecurityGroupsResolved, message: "1 security group(s) resolved"},
		{name: "security groups not found", worker: "1.36", obs: func(obs *Observation) { obs.MissingSecurityGroups = []string{"id sg-9"} },
			condition: kcv1.ConditionTypeSecurityGroupsReady, want: metav1.ConditionFalse, reason: kcv1.ReasonSecurityGroupsNotFound,
			message: "security group(s) not found: id sg-9"},
		{name: "security groups cannot be looked up", worker: "1.36", obs: func(obs *Observation) { obs.SecurityGroups, obs.SecurityGroupsErr = nil, errors.New("boom") },
			condition: kcv1.ConditionTypeSecurityGroupsReady, want: metav1.ConditionUnknown, reason: kcv1.ReasonSecurityGroupsNotFound,
			message: "cannot look up security groups: boom"},

		{name: "everything resolved: Ready", worker: "1.36", condition: kcv1.ConditionTypeReady,
			want: metav1.ConditionTrue, reason: kcv1.ReasonReady, message: "the node class can launch nodes"},
		{name: "a deprecated version does not hold Ready", worker: "1.35", obs: func(obs *Observation) { obs.Versions = offered([]string{"1.35", "1.36"}, "1.35") },
			condition: kcv1.ConditionTypeReady, want: metav1.ConditionTrue, reason: kcv1.ReasonReady, message: "the node class can launch nodes"},
		{name: "nodes off the control plane's version do not hold Ready", worker: "1.35", obs: func(obs *Observation) { obs.NodeVersions = map[string]int32{"1.35": 2} },
			condition: kcv1.ConditionTypeReady, want: metav1.ConditionTrue, reason: kcv1.ReasonReady, message: "the node class can launch nodes"},
		{name: "a False dependency makes Ready False, with its reason", worker: "1.34", condition: kcv1.ConditionTypeReady,
			want: metav1.ConditionFalse, reason: kcv1.ReasonVersionSkewUnsupported,
			message: "KubernetesVersionReady: worker version 1.34 is outside the allowed skew of control plane 1.36: allowed versions are 1.36, 1.35"},
		{name: "an Unknown dependency makes Ready Unknown", worker: "1.36", obs: func(obs *Observation) { obs.Subnets, obs.SubnetsErr = nil, errors.New("boom") },
			condition: kcv1.ConditionTypeReady, want: metav1.ConditionUnknown, reason: kcv1.ReasonSubnetsNotFound, message: "SubnetsReady: cannot look up subnets: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := nodeClassOn(tc.worker, tc.before)
			nodeClass.Generation = 4
			if tc.spec != nil {
				tc.spec(&nodeClass.Spec)
			}
			obs := resolved()
			if tc.obs != nil {
				tc.obs(&obs)
			}
			status := Evaluate(nodeClass, obs).Status
			c := meta.FindStatusCondition(status.Conditions, tc.condition)
			if c == nil {
				t.Fatalf("%s not set: %+v", tc.condition, status.Conditions)
			}
			if c.Status != tc.want || c.Reason != tc.reason || c.Message != tc.message {
				t.Errorf("%s %s %s %q, want %s %s %q", tc.condition, c.Status, c.Reason, c.Message, tc.want, tc.reason, tc.message)
			}
			if !tc.kept && c.ObservedGeneration != 4 {
				t.Errorf("observed generation %d, want the node class's 4", c.ObservedGeneration)
			}
		})
	}
}

func TestStatusFields(t *testing.T) {
	earlierSubnets := []kcv1.Subnet{{ID: "subnet-old"}}
	earlierGroups := []kcv1.SecurityGroup{{ID: "sg-old"}}
	earlierImages := []kcv1.Image{{ID: "img-old", KubernetesVersion: "1.36"}}
	before := kcv1.KCNodeClassStatus{ControlPlaneVersion: "1.35", KubernetesVersion: "1.36", Subnets: earlierSubnets, SecurityGroups: earlierGroups, Images: earlierImages}
	for _, tc := range []struct {
		name   string
		spec   func(*kcv1.KCNodeClassSpec)
		obs    func(*Observation)
		want   func(*kcv1.KCNodeClassStatus)
		before kcv1.KCNodeClassStatus
	}{
		{name: "everything resolved", before: before, want: func(*kcv1.KCNodeClassStatus) {}},
		{name: "the cluster cannot be read: the last control-plane version stays", before: before,
			obs:  func(obs *Observation) { obs.Cluster, obs.ClusterErr = nil, errors.New("503") },
			want: func(s *kcv1.KCNodeClassStatus) { s.ControlPlaneVersion = "1.35" }},
		{name: "subnets and security groups cannot be looked up: the last ones stay", before: before,
			obs: func(obs *Observation) {
				obs.Subnets, obs.SubnetsErr = nil, errors.New("boom")
				obs.SecurityGroups, obs.SecurityGroupsErr = nil, errors.New("boom")
			},
			want: func(s *kcv1.KCNodeClassStatus) { s.Subnets, s.SecurityGroups = earlierSubnets, earlierGroups }},
		{name: "a pinned image", before: before,
			spec: func(spec *kcv1.KCNodeClassSpec) { spec.ImageID = "img-pinned" },
			obs: func(obs *Observation) {
				obs.Images, obs.PinnedImage = nil, &kakaocloud.Image{ID: "img-pinned", Name: "custom", OSInfo: kakaocloud.OSInfo{Architecture: "aarch64"}}
			},
			want: func(s *kcv1.KCNodeClassStatus) {
				s.Images = []kcv1.Image{{ID: "img-pinned", Name: "custom", Architecture: "aarch64", KubernetesVersion: "1.36"}}
			}},
		{name: "no images: none", before: kcv1.KCNodeClassStatus{}, obs: func(obs *Observation) { obs.Images = nil },
			want: func(s *kcv1.KCNodeClassStatus) { s.Images = nil }},
		{name: "images retained", before: before, obs: cannotLookUpImages,
			want: func(s *kcv1.KCNodeClassStatus) { s.Images = earlierImages }},
		{name: "the control plane upgrades: the last images stay", before: before, obs: upgrading,
			want: func(s *kcv1.KCNodeClassStatus) { s.Images = earlierImages }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := nodeClassOn("1.36", tc.before)
			if tc.spec != nil {
				tc.spec(&nodeClass.Spec)
			}
			obs := resolved()
			if tc.obs != nil {
				tc.obs(&obs)
			}
			got := Evaluate(nodeClass, obs).Status
			want := kcv1.KCNodeClassStatus{
				KubernetesVersion:   "1.36",
				ControlPlaneVersion: "1.36",
				Images: []kcv1.Image{
					{ID: "img-cpu", Name: "ubuntu-24.04-k8s-1.36", Architecture: "x86_64", KubernetesVersion: "1.36"},
					{ID: "img-gpu", Name: "ubuntu-24.04-k8s-1.36-gpu", Architecture: "x86_64", GPU: true, KubernetesVersion: "1.36"},
				},
				Subnets:        resolved().Subnets,
				SecurityGroups: resolved().SecurityGroups,
			}
			tc.want(&want)
			got.Conditions, got.NodeVersions, got.SigningKeys = nil, nil, nil
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("status\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestTurnedOn(t *testing.T) {
	condition := func(t string, s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: "said before"}
	}
	conditions := func(c ...metav1.Condition) kcv1.KCNodeClassStatus { return kcv1.KCNodeClassStatus{Conditions: c} }
	notOffered := func(obs *Observation) { obs.Versions = offered([]string{"1.35", "1.36"}, "1.35") }
	for _, tc := range []struct {
		name   string
		worker string
		before kcv1.KCNodeClassStatus
		obs    func(*Observation)
		want   []TurnedOn
	}{
		{name: "everything resolved: nothing to say", worker: "1.36"},
		{name: "a version no longer offered", worker: "1.35", obs: notOffered,
			before: conditions(condition(kcv1.ConditionTypeKubernetesVersionDeprecated, metav1.ConditionFalse, kcv1.ReasonWorkerVersionOffered)),
			want: []TurnedOn{{kcv1.ConditionTypeKubernetesVersionDeprecated, kcv1.ReasonWorkerVersionNotOffered,
				"Kubernetes Engine no longer offers 1.35; existing and new nodes keep working, but plan a change to one of 1.36"}}},
		{name: "said once: the same reason and status again is not news", worker: "1.35", obs: notOffered,
			before: conditions(condition(kcv1.ConditionTypeKubernetesVersionDeprecated, metav1.ConditionTrue, kcv1.ReasonWorkerVersionNotOffered))},
		{name: "the same reason with another status is news", worker: "1.36",
			obs:    func(obs *Observation) { obs.MissingSubnets = []string{"name karpenter-subnet-z"} },
			before: conditions(condition(kcv1.ConditionTypeSubnetsReady, metav1.ConditionUnknown, kcv1.ReasonSubnetsNotFound)),
			want:   []TurnedOn{{kcv1.ConditionTypeSubnetsReady, kcv1.ReasonSubnetsNotFound, "subnet(s) not found: name karpenter-subnet-z"}}},
		{name: "images retained", worker: "1.36", obs: cannotLookUpImages,
			before: imagesBefore(kcv1.ReasonImagesResolved, ""),
			want: []TurnedOn{{kcv1.ConditionTypeImagesReady, kcv1.ReasonImagesRetained,
				"worker images for Kubernetes 1.36 cannot be looked up (timeout); keeping the 1 images resolved before. Change bootstrap.kubernetesVersion to a supported version or set spec.imageID to clear this"}}},
		{name: "several at once, in the order announced", worker: "1.34",
			obs: func(obs *Observation) {
				obs.Versions = offered([]string{"1.34", "1.35", "1.36"}, "1.34")
				obs.Images = nil
				obs.MissingSubnets, obs.MissingSecurityGroups = []string{"id subnet-9"}, []string{"id sg-9"}
			},
			want: []TurnedOn{
				{kcv1.ConditionTypeKubernetesVersionDeprecated, kcv1.ReasonWorkerVersionNotOffered,
					"Kubernetes Engine no longer offers 1.34; existing and new nodes keep working, but plan a change to one of 1.35, 1.36"},
				{kcv1.ConditionTypeKubernetesVersionReady, kcv1.ReasonVersionSkewUnsupported,
					"worker version 1.34 is outside the allowed skew of control plane 1.36: allowed versions are 1.36, 1.35"},
				{kcv1.ConditionTypeImagesReady, kcv1.ReasonImagesNotFound, "no worker images for Kubernetes 1.34: Kubernetes Engine offers none"},
				{kcv1.ConditionTypeSubnetsReady, kcv1.ReasonSubnetsNotFound, "subnet(s) not found: id subnet-9"},
				{kcv1.ConditionTypeSecurityGroupsReady, kcv1.ReasonSecurityGroupsNotFound, "security group(s) not found: id sg-9"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := resolved()
			if tc.obs != nil {
				tc.obs(&obs)
			}
			if got := Evaluate(nodeClassOn(tc.worker, tc.before), obs).TurnedOn; !slices.Equal(got, tc.want) {
				t.Errorf("turned on\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestGauges(t *testing.T) {
	skew := func(n int) *int { return &n }
	for _, tc := range []struct {
		name           string
		worker         string
		before         kcv1.KCNodeClassStatus
		obs            func(*Observation)
		wantSkew       *int
		wantDeprecated bool
		wantRetained   bool
	}{
		{name: "on the control plane's version", worker: "1.36", wantSkew: skew(0)},
		{name: "one minor behind", worker: "1.35", wantSkew: skew(1)},
		{name: "the control plane never read: no skew", worker: "1.36",
			obs: func(obs *Observation) { obs.Cluster, obs.ClusterErr = nil, errors.New("503") }},
		{name: "the control plane not read now: the skew from the last version read", worker: "1.34",
			before: kcv1.KCNodeClassStatus{ControlPlaneVersion: "1.35"},
			obs: func(obs *Observation) {
				obs.Cluster, obs.ClusterErr = nil, errors.New("503")
				obs.Versions = offered([]string{"1.34", "1.35", "1.36"})
			},
			wantSkew: skew(1)},
		{name: "a deprecated version", worker: "1.35", obs: func(obs *Observation) { obs.Versions = offered([]string{"1.35", "1.36"}, "1.35") },
			wantSkew: skew(1), wantDeprecated: true},
		{name: "images retained", worker: "1.36", before: imagesBefore(kcv1.ReasonImagesRetained, "kept"), wantSkew: skew(0), wantRetained: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := resolved()
			if tc.obs != nil {
				tc.obs(&obs)
			}
			got := Evaluate(nodeClassOn(tc.worker, tc.before), obs)
			if (got.VersionSkew == nil) != (tc.wantSkew == nil) || (got.VersionSkew != nil && *got.VersionSkew != *tc.wantSkew) {
				t.Errorf("skew %v, want %v", got.VersionSkew, tc.wantSkew)
			}
			if got.VersionDeprecated != tc.wantDeprecated || got.ImagesRetained != tc.wantRetained {
				t.Errorf("deprecated %t retained %t, want %t %t", got.VersionDeprecated, got.ImagesRetained, tc.wantDeprecated, tc.wantRetained)
			}
		})
	}
}

func TestSigningKeysStatus(t *testing.T) {
	earlier := []kcv1.SigningKeyUse{{KeyID: "k0", NodeClaims: 3}}
	for _, tc := range []struct {
		name string
		obs  Observation
		want []kcv1.SigningKeyUse
	}{
		{"counted, by key id", Observation{SigningKeys: map[string]int32{"k2": 1, "k1": 2}},
			[]kcv1.SigningKeyUse{{KeyID: "k1", NodeClaims: 2}, {KeyID: "k2", NodeClaims: 1}}},
		{"no NodeClaim launched", Observation{SigningKeys: map[string]int32{}}, nil},
		{"the NodeClaims could not be listed: the last counts stay", Observation{NodeClaimsErr: errors.New("cache not started")}, earlier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := &kcv1.KCNodeClass{Status: kcv1.KCNodeClassStatus{SigningKeys: earlier}}
			if got := Evaluate(nodeClass, tc.obs).Status.SigningKeys; !slices.Equal(got, tc.want) {
				t.Errorf("SigningKeys %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNodesOnControlPlaneVersion(t *testing.T) {
	cluster := func(minor string) *kakaocloud.Cluster {
		return &kakaocloud.Cluster{Version: kakaocloud.KubernetesVersion{MinorVersion: minor}, Status: kakaocloud.ClusterStatus{Phase: kakaocloud.ClusterPhaseProvisioned}}
	}
	earlier := []kcv1.NodeVersionCount{{Version: "1.35", NodeClaims: 2}}
	for _, tc := range []struct {
		name         string
		worker       string
		obs          Observation
		wantVersions []kcv1.NodeVersionCount
		wantStatus   metav1.ConditionStatus
		wantReason   string
		wantMessage  string
	}{
		{"every node on the control plane's minor", "1.36", Observation{Cluster: cluster("1.36"), NodeVersions: map[string]int32{"1.36": 3}},
			[]kcv1.NodeVersionCount{{Version: "1.36", NodeClaims: 3}}, metav1.ConditionTrue, kcv1.ReasonAllNodesOnControlPlaneVersion,
			"all 3 nodes are on 1.36"},
		{"no nodes", "1.36", Observation{Cluster: cluster("1.36"), NodeVersions: map[string]int32{}},
			nil, metav1.ConditionTrue, kcv1.ReasonAllNodesOnControlPlaneVersion, "all 0 nodes"},
		{"nodes one minor behind while the worker version is still behind too", "1.35",
			Observation{Cluster: cluster("1.36"), NodeVersions: map[string]int32{"1.36": 1, "1.35": 2, "1.9": 1}},
			[]kcv1.NodeVersionCount{{Version: "1.9", NodeClaims: 1}, {Version: "1.35", NodeClaims: 2}, {Version: "1.36", NodeClaims: 1}},
			metav1.ConditionFalse, kcv1.ReasonNodesOffControlPlaneVersion,
			"3 of 4 nodes are not on 1.36, the control plane's minor version (1 on 1.9, 2 on 1.35), and Kubernetes Engine refuses a control-plane upgrade until they are: set spec.bootstrap.kubernetesVersion to 1.36 (it is 1.35)"},
		{"the worker version is the control plane's and old nodes are drifting", "1.36",
			Observation{Cluster: cluster("1.36"), NodeVersions: map[string]int32{"1.35": 1}},
			[]kcv1.NodeVersionCount{{Version: "1.35", NodeClaims: 1}}, metav1.ConditionFalse, kcv1.ReasonNodesOffControlPlaneVersion,
			"they are replaced as they drift"},
		{"the NodeClaims cannot be listed: the counts stay, the condition is unknown", "1.36",
			Observation{Cluster: cluster("1.36"), NodeClaimsErr: errors.New("cache not started")},
			earlier, metav1.ConditionUnknown, kcv1.ReasonNodeVersionsUnknown, "cache not started"},
		{"the control plane's version is not known", "1.36", Observation{ClusterErr: errors.New("503"), NodeVersions: map[string]int32{"1.36": 1}},
			[]kcv1.NodeVersionCount{{Version: "1.36", NodeClaims: 1}}, metav1.ConditionUnknown, kcv1.ReasonClusterUnavailable, "not known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodeClass := &kcv1.KCNodeClass{
				Spec:   kcv1.KCNodeClassSpec{Bootstrap: kcv1.Bootstrap{KubernetesVersion: tc.worker}},
				Status: kcv1.KCNodeClassStatus{NodeVersions: earlier},
			}
			status := Evaluate(nodeClass, tc.obs).Status
			if !slices.Equal(status.NodeVersions, tc.wantVersions) {
				t.Errorf("NodeVersions %v, want %v", status.NodeVersions, tc.wantVersions)
			}
			c := meta.FindStatusCondition(status.Conditions, kcv1.ConditionTypeNodesOnControlPlaneVersion)
			if c == nil || c.Status != tc.wantStatus || c.Reason != tc.wantReason || !strings.Contains(c.Message, tc.wantMessage) {
				t.Fatalf("condition %+v, want %s %s containing %q", c, tc.wantStatus, tc.wantReason, tc.wantMessage)
			}
			if ready := meta.FindStatusCondition(status.Conditions, kcv1.ConditionTypeReady); ready != nil && strings.Contains(ready.Message, kcv1.ConditionTypeNodesOnControlPlaneVersion) {
				t.Errorf("Ready depends on NodesOnControlPlaneVersion: %+v", ready)
			}
		})
	}
}
