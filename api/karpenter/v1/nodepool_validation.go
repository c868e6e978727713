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

package v1

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RuntimeValidate checks what the CRD's schema and CEL rules cannot: that budget schedules
// are cron expressions that parse, in UTC, and that no taint appears twice with the same
// effect across taints and startupTaints (the kubelet would refuse to register such a node).
func (in *NodePool) RuntimeValidate() field.ErrorList {
	var errs field.ErrorList
	budgets := field.NewPath("spec", "disruption", "budgets")
	for i, b := range in.Spec.Disruption.Budgets {
		if b.Schedule != nil {
			errs = append(errs, validateSchedule(*b.Schedule, budgets.Index(i).Child("schedule"))...)
		}
	}
	errs = append(errs, validateTaints(in.Spec.Template.Spec.Taints, in.Spec.Template.Spec.StartupTaints, field.NewPath("spec", "template", "spec"))...)
	return errs
}

func validateSchedule(schedule string, path *field.Path) field.ErrorList {
	if _, err := ParseBudgetSchedule(schedule); err != nil {
		return field.ErrorList{field.Invalid(path, schedule, err.Error())}
	}
	return nil
}

func validateTaints(taints, startupTaints []corev1.Taint, path *field.Path) field.ErrorList {
	type keyEffect struct {
		key    string
		effect corev1.TaintEffect
	}
	var errs field.ErrorList
	seen := map[keyEffect]*field.Path{}
	check := func(list []corev1.Taint, p *field.Path) {
		for i, t := range list {
			ke := keyEffect{t.Key, t.Effect}
			if first, dup := seen[ke]; dup {
				errs = append(errs, field.Duplicate(p.Index(i), fmt.Sprintf("taint %s:%s is already given at %s", t.Key, t.Effect, first)))
				continue
			}
			seen[ke] = p.Index(i)
		}
	}
	check(taints, path.Child("taints"))
	check(startupTaints, path.Child("startupTaints"))
	return errs
}
