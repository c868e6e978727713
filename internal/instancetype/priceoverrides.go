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

package instancetype

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PriceOverridesConfigMapName is the ConfigMap, in the controller's namespace, whose data maps
// flavor names to relative cost values that replace the built-in ones.
const PriceOverridesConfigMapName = "karpenter-kakaocloud-prices"

// ParsePriceOverrides reads a price ConfigMap: each data key is a flavor name, each value a
// positive decimal. Entries that are not are left out and named in the error, so that one
// typo does not discard the other overrides. A nil ConfigMap has no overrides.
func ParsePriceOverrides(cm *corev1.ConfigMap) (map[string]float64, error) {
	overrides := map[string]float64{}
	if cm == nil {
		return overrides, nil
	}
	var errs []error
	for _, flavor := range slices.Sorted(maps.Keys(cm.Data)) {
		value := cm.Data[flavor]
		price, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || math.IsInf(price, 0) || math.IsNaN(price) || price <= 0 {
			errs = append(errs, fmt.Errorf("price of %q: %q is not a positive decimal", flavor, value))
			continue
		}
		overrides[flavor] = price
	}
	if len(errs) > 0 {
		return overrides, fmt.Errorf("ConfigMap %s/%s: %w", cm.Namespace, cm.Name, errors.Join(errs...))
	}
	return overrides, nil
}

// PriceOverrideSource reads price overrides from a ConfigMap, by name (the operator's Role
// grants nothing more).
type PriceOverrideSource struct {
	Reader    client.Reader
	ConfigMap types.NamespacedName
}

// Load returns the overrides in the ConfigMap: none when it does not exist, the valid ones and
// an error naming the others when some entries are invalid.
func (s PriceOverrideSource) Load(ctx context.Context) (map[string]float64, error) {
	cm := &corev1.ConfigMap{}
	if err := s.Reader.Get(ctx, s.ConfigMap, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return map[string]float64{}, nil
		}
		return nil, fmt.Errorf("reading price overrides ConfigMap %s: %w", s.ConfigMap, err)
	}
	return ParsePriceOverrides(cm)
}
