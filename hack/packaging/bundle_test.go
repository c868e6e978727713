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
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
)

// bundleDir is the bundle `make bundle` writes, from this module's directory.
const bundleDir = "../../bundle"

// TestBundleValidates runs operator-framework's default, OperatorHub and good-practices
// validators on the bundle: no error and no warning may remain.
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
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Secret != nil {
				t.Errorf("deployment %s mounts Secret %s; OLM supplies the webhook certificate itself", d.Name, v.Secret.SecretName)
			}
		}
	}
}
