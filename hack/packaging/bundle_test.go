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

// Package packaging tests what users install: the OLM bundle, the kustomize overlays and the
// Helm chart, as the tools that install them read them.
package packaging

import (
	"reflect"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
)

// bundleDir is the bundle `make bundle` writes, from this module's directory.
const bundleDir = "../../bundle"

// acceptedFindings are the validators' findings the bundle keeps, each with why.
var acceptedFindings = map[string]string{
	"Value explain.karpenter.kakaocloud.com/v1alpha1, Kind=WhatIf: provided API should have an example annotation": "a WhatIf is asked with the manifest of a NodePool, KCNodeClass or Pod, " +
		"not of a WhatIf: an example would be one that the console's form sends and the operator refuses",
}

// accepted is whether a finding is a warning the bundle keeps.
func accepted(finding errors.Error) bool {
	for message := range acceptedFindings {
		if finding.Level == errors.LevelWarn && strings.HasSuffix(finding.Error(), message) {
			return true
		}
	}
	return false
}

// TestBundleValidates runs operator-framework's default, OperatorHub and good-practices
// validators on the bundle: no error and no warning may remain but the accepted ones. The
// webhooks and whatif's APIService are served by the one Deployment, at the port of its
// webhook server: OLM makes one Service for both, with one certificate.
func TestBundleValidates(t *testing.T) {
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		t.Fatalf("loading the bundle (run make bundle): %v", err)
	}
	validators := validation.DefaultBundleValidators.WithValidators(validation.OperatorHubV2Validator, validation.GoodPracticesValidator)
	objects := append(bundle.ObjectsToValidate(), map[string]string{"k8s-version": "1.37"})
	var findings []string
	for _, result := range validators.Validate(objects...) {
		for _, e := range append(append([]errors.Error{}, result.Errors...), result.Warnings...) {
			if accepted(e) {
				continue
			}
			findings = append(findings, string(e.Level)+": "+result.Name+": "+e.Error())
		}
	}
	if len(findings) > 0 {
		t.Errorf("%d findings:\n%s", len(findings), strings.Join(findings, "\n"))
	}
	if bundle.CSV == nil || len(bundle.V1CRDs) != 4 {
		t.Fatalf("the bundle has CSV %v and %d CRDs, want a CSV and 4", bundle.CSV != nil, len(bundle.V1CRDs))
	}
	csv := bundle.CSV
	if len(csv.Spec.WebhookDefinitions) != 2 {
		t.Errorf("webhookdefinitions = %d, want the 2 validating webhooks", len(csv.Spec.WebhookDefinitions))
	}
	deployments := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	if len(deployments) != 1 {
		t.Fatalf("%d deployments, want the controller's", len(deployments))
	}
	for _, webhook := range csv.Spec.WebhookDefinitions {
		if webhook.DeploymentName != deployments[0].Name || webhook.TargetPort == nil || webhook.TargetPort.IntValue() != webhookServerPort {
			t.Errorf("webhook %s is served by %s at %v, want %s at %d", webhook.GenerateName, webhook.DeploymentName, webhook.TargetPort, deployments[0].Name, webhookServerPort)
		}
	}
	want := []operatorsv1alpha1.APIServiceDescription{{
		Name: explainResource, Group: explainGroup, Version: explainVersion, Kind: "WhatIf",
		DeploymentName: deployments[0].Name, ContainerPort: webhookServerPort,
	}}
	owned := csv.Spec.APIServiceDefinitions.Owned
	for i := range owned {
		if owned[i].DisplayName == "" || owned[i].Description == "" {
			t.Errorf("APIService %s has no display name or description for OperatorHub", owned[i].GetName())
		}
		owned[i].DisplayName, owned[i].Description = "", ""
	}
	if !reflect.DeepEqual(owned, want) || len(csv.Spec.APIServiceDefinitions.Required) != 0 {
		t.Errorf("apiservicedefinitions owned %+v, required %+v; want owned %+v", owned, csv.Spec.APIServiceDefinitions.Required, want)
	}
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Secret != nil {
				t.Errorf("deployment %s mounts Secret %s; OLM supplies the webhook certificate itself", d.Name, v.Secret.SecretName)
			}
		}
	}
}
