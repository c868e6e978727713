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

// Command crdpatch adds to the generated CRDs the validation that controller-gen cannot derive
// from markers because the fields are Kubernetes core types or map values: taint keys, values
// and effects, label values, and the bounds of the kubelet's quantity maps. Bounding these strings also keeps the CEL rules on the same
// fields within the API server's cost budget. `make manifests` runs it after controller-gen.
//
// Usage: go run ./hack/crdpatch <crd.yaml> ...
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const (
	// A qualified name as node taints take it: an optional lowercase DNS subdomain and '/',
	// then a name. Its lengths are checked by qualifiedNameLengths.
	qualifiedNamePattern = `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$`
	// At most 253 characters before the '/' and 63 after it.
	qualifiedNameLengths = `self.indexOf('/') <= 253 && self.size() - self.indexOf('/') - 1 <= 63`
	labelValuePattern    = `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
)

// kubeletQuantityMaps are the KCNodeClass kubelet settings whose values are quantities or
// percentages.
var kubeletQuantityMaps = []string{"kubeReserved", "systemReserved", "evictionHard", "evictionSoft"}

func main() {
	for _, path := range os.Args[1:] {
		if err := patchFile(path); err != nil {
			fmt.Fprintf(os.Stderr, "crdpatch: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
}

func patchFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return err
	}
	for i := range crd.Spec.Versions {
		if s := crd.Spec.Versions[i].Schema; s != nil && s.OpenAPIV3Schema != nil {
			walk(s.OpenAPIV3Schema)
		}
	}
	// Write it back without the empty status and creation timestamp the typed object adds.
	asJSON, err := json.Marshal(crd)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(asJSON, &doc); err != nil {
		return err
	}
	delete(doc, "status")
	if meta, ok := doc["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	// controller-gen writes a document separator first; keep the files byte-stable.
	return os.WriteFile(path, append([]byte("---\n"), out...), 0o644)
}

// walk patches every taint list and every template label map below s.
func walk(s *apiextensionsv1.JSONSchemaProps) {
	for name, prop := range s.Properties {
		switch {
		case (name == "taints" || name == "startupTaints") && prop.Items != nil && prop.Items.Schema != nil:
			patchTaint(prop.Items.Schema)
		case name == "labels" && prop.AdditionalProperties != nil && prop.AdditionalProperties.Schema != nil && len(prop.XValidations) > 0:
			v := prop.AdditionalProperties.Schema
			v.MaxLength = new(int64(63))
			v.Pattern = labelValuePattern
		case slices.Contains(kubeletQuantityMaps, name) && prop.AdditionalProperties != nil && prop.AdditionalProperties.Schema != nil:
			// A quantity or a percentage; the bound keeps the CEL rules that parse them cheap.
			prop.AdditionalProperties.Schema.MaxLength = new(int64(64))
		}
		walk(&prop)
		s.Properties[name] = prop
	}
	if s.Items != nil && s.Items.Schema != nil {
		walk(s.Items.Schema)
	}
}

func patchTaint(t *apiextensionsv1.JSONSchemaProps) {
	key := t.Properties["key"]
	key.MinLength = new(int64(1))
	key.MaxLength = new(int64(316))
	key.Pattern = qualifiedNamePattern
	key.XValidations = apiextensionsv1.ValidationRules{{
		Rule:    qualifiedNameLengths,
		Message: "taint keys must be qualified names: a prefix of at most 253 characters before the '/', and at most 63 after it",
	}}
	t.Properties["key"] = key

	value := t.Properties["value"]
	value.MaxLength = new(int64(63))
	value.Pattern = labelValuePattern
	t.Properties["value"] = value

	effect := t.Properties["effect"]
	effect.Enum = nil
	for _, e := range []string{"NoSchedule", "PreferNoSchedule", "NoExecute"} {
		effect.Enum = append(effect.Enum, apiextensionsv1.JSON{Raw: []byte(`"` + e + `"`)})
	}
	t.Properties["effect"] = effect
}
