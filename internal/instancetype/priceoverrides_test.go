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
	"maps"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

var pricesName = types.NamespacedName{Namespace: "karpenter-kakaocloud", Name: PriceOverridesConfigMapName}

func TestParsePriceOverrides(t *testing.T) {
	tests := []struct {
		name    string
		data    map[string]string
		want    map[string]float64
		wantErr []string // substrings; none when empty
	}{
		{name: "no data", want: map[string]float64{}},
		{
			name: "decimals",
			data: map[string]string{"m2a.xlarge": "5.5", "c2a.large": "2", "gn1i.xlarge": " 150.25\n"},
			want: map[string]float64{"m2a.xlarge": 5.5, "c2a.large": 2, "gn1i.xlarge": 150.25},
		},
		{
			name: "bad entries are skipped and named",
			data: map[string]string{
				"m2a.xlarge": "5.5", "c2a.large": "0", "r2a.large": "-3", "m2a.large": "cheap",
				"m2a.2xlarge": "", "m2a.4xlarge": "NaN", "m2a.8xlarge": "+Inf",
			},
			want: map[string]float64{"m2a.xlarge": 5.5},
			wantErr: []string{
				`price of "c2a.large": "0" is not a positive decimal`,
				`price of "r2a.large": "-3"`,
				`price of "m2a.large": "cheap"`,
				`price of "m2a.2xlarge": ""`,
				`price of "m2a.4xlarge": "NaN"`,
				`price of "m2a.8xlarge": "+Inf"`,
				"ConfigMap karpenter-kakaocloud/karpenter-kakaocloud-prices",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePriceOverrides(priceConfigMap(tt.data))
			expectErrorContaining(t, err, tt.wantErr)
			if !maps.Equal(got, tt.want) {
				t.Errorf("overrides = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("nil ConfigMap", func(t *testing.T) {
		got, err := ParsePriceOverrides(nil)
		if err != nil || len(got) != 0 {
			t.Errorf("ParsePriceOverrides(nil) = %v, %v; want no overrides, no error", got, err)
		}
	})
}

func TestPriceOverrideSourceLoad(t *testing.T) {
	errUnavailable := errors.New("apiserver unavailable")
	tests := []struct {
		name    string
		objects []client.Object
		getErr  error
		want    map[string]float64
		wantErr []string
	}{
		{name: "missing ConfigMap is no overrides", want: map[string]float64{}},
		{
			name:    "ConfigMap",
			objects: []client.Object{priceConfigMap(map[string]string{"m2a.xlarge": "5.5", "m2a.large": "free"})},
			want:    map[string]float64{"m2a.xlarge": 5.5},
			wantErr: []string{`price of "m2a.large": "free"`},
		},
		{
			name:    "read error",
			getErr:  errUnavailable,
			wantErr: []string{"reading price overrides ConfigMap karpenter-kakaocloud/karpenter-kakaocloud-prices", errUnavailable.Error()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			builder := fake.NewClientBuilder().WithObjects(tt.objects...)
			if tt.getErr != nil {
				builder = builder.WithInterceptorFuncs(interceptor.Funcs{
					Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
						return tt.getErr
					},
				})
			}
			source := PriceOverrideSource{Reader: builder.Build(), ConfigMap: pricesName}
			got, err := source.Load(t.Context())
			expectErrorContaining(t, err, tt.wantErr)
			if !maps.Equal(got, tt.want) {
				t.Errorf("overrides = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPriceTableConcurrentUse(t *testing.T) {
	prices := NewPriceTable()
	flavor := kakaocloud.Flavor{Name: "m2a.xlarge", VCPUs: 4, MemoryMB: 16384}
	prices.SetOverrides(map[string]float64{"m2a.xlarge": 1})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 200 {
				prices.SetOverrides(map[string]float64{"m2a.xlarge": float64(i + 1)})
			}
		})
		wg.Go(func() {
			for range 200 {
				if price := prices.Price(flavor); price < 1 || price > 4 {
					t.Errorf("Price = %v, want one of the overrides", price)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestPriceTableOverridesAreCopied(t *testing.T) {
	prices := NewPriceTable()
	flavor := kakaocloud.Flavor{Name: "m2a.xlarge", VCPUs: 4, MemoryMB: 16384}
	overrides := map[string]float64{"m2a.xlarge": 1}
	prices.SetOverrides(overrides)
	overrides["m2a.xlarge"] = 99
	if got := prices.Price(flavor); got != 1 {
		t.Errorf("Price after the caller changed its map = %v, want 1", got)
	}
}

func priceConfigMap(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: pricesName.Namespace, Name: pricesName.Name},
		Data:       data,
	}
}
