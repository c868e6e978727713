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

package labelindex

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Index lists items under the values of the first label, by key, that each one's selector
// requires to have one of some values (Equals or In): only labels with one of those values can
// be matched by it. Items whose selector requires no such label are offered for any labels.
type Index[T any] struct {
	keys    []string
	byLabel map[string]map[string][]T
	rest    []T
}

// New indexes the items by their selectors.
func New[T any](items []T, selector func(T) labels.Selector) *Index[T] {
	index := &Index[T]{byLabel: map[string]map[string][]T{}}
	for _, item := range items {
		key, values := requiredValues(selector(item))
		if key == "" {
			index.rest = append(index.rest, item)
			continue
		}
		byValue, ok := index.byLabel[key]
		if !ok {
			byValue = map[string][]T{}
			index.byLabel[key] = byValue
			index.keys = append(index.keys, key)
		}
		for _, value := range values {
			byValue[value] = append(byValue[value], item)
		}
	}
	return index
}

// Each calls fn with every item whose selector may match the labels: each at most once (an
// item is listed under one key, and the labels have one value for it), and every one that
// matches them. The caller still matches each selector.
func (index *Index[T]) Each(set map[string]string, fn func(T)) {
	for _, key := range index.keys {
		if value, ok := set[key]; ok {
			for _, item := range index.byLabel[key][value] {
				fn(item)
			}
		}
	}
	for _, item := range index.rest {
		fn(item)
	}
}

// requiredValues is the first label, by key, that the selector requires to have one of some
// values, and those values, each once; "" when it requires none.
func requiredValues(selector labels.Selector) (string, []string) {
	reqs, selectable := selector.Requirements()
	if !selectable {
		return "", nil
	}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			return r.Key(), sets.List(sets.New(r.ValuesUnsorted()...))
		}
	}
	return "", nil
}
