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

package simulation

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// SchedulerConfiguration is what --scheduler-config holds, as upstream Karpenter v1.15 reads
// it: the part of the cluster's kube-scheduler configuration the simulation must mirror, the
// PodTopologySpread plugin's default constraints. Without it no pod is given any.
type SchedulerConfiguration struct {
	PodTopologySpread *PodTopologySpreadArgs `json:"podTopologySpread,omitempty"`
}

// PodTopologySpreadArgs are the PodTopologySpread plugin's arguments that matter here.
type PodTopologySpreadArgs struct {
	// DefaultConstraints are given to every pod that has no topology spread constraint of its
	// own, with a selector deduced from the Services and the controller that select the pod,
	// as the kube-scheduler deduces it.
	DefaultConstraints []corev1.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
}

// ParseSchedulerConfiguration reads --scheduler-config, YAML or JSON; "" is no configuration.
// An unknown field or a constraint the kube-scheduler would refuse is an error naming it.
func ParseSchedulerConfiguration(raw string) (*SchedulerConfiguration, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	config := &SchedulerConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(raw), config); err != nil {
		return nil, fmt.Errorf("--scheduler-config: %w", err)
	}
	if config.PodTopologySpread == nil {
		return config, nil
	}
	constraints := config.PodTopologySpread.DefaultConstraints
	for i, c := range constraints {
		field := fmt.Sprintf("--scheduler-config: podTopologySpread.defaultConstraints[%d]", i)
		switch {
		case c.MaxSkew <= 0:
			return nil, fmt.Errorf("%s.maxSkew must be greater than 0", field)
		case c.TopologyKey == "":
			return nil, fmt.Errorf("%s.topologyKey must be set", field)
		case len(validation.IsQualifiedName(c.TopologyKey)) > 0:
			return nil, fmt.Errorf("%s.topologyKey %q is not a label key: %s", field, c.TopologyKey, strings.Join(validation.IsQualifiedName(c.TopologyKey), "; "))
		case c.WhenUnsatisfiable != corev1.DoNotSchedule && c.WhenUnsatisfiable != corev1.ScheduleAnyway:
			return nil, fmt.Errorf("%s.whenUnsatisfiable %q is neither %s nor %s", field, c.WhenUnsatisfiable, corev1.DoNotSchedule, corev1.ScheduleAnyway)
		case c.LabelSelector != nil:
			// The kube-scheduler refuses one too: it deduces each pod's.
			return nil, fmt.Errorf("%s.labelSelector must not be set: the selector is deduced for each pod", field)
		case len(c.MatchLabelKeys) > 0:
			return nil, fmt.Errorf("%s.matchLabelKeys must not be set: the kube-scheduler does not apply them to default constraints", field)
		}
		for j := range i {
			if constraints[j].TopologyKey == c.TopologyKey && constraints[j].WhenUnsatisfiable == c.WhenUnsatisfiable {
				return nil, fmt.Errorf("%s repeats defaultConstraints[%d] (%s, %s)", field, j, c.TopologyKey, c.WhenUnsatisfiable)
			}
		}
	}
	return config, nil
}

// DefaultConstraints are the configured default constraints, none without a configuration.
func (c *SchedulerConfiguration) DefaultConstraints() []corev1.TopologySpreadConstraint {
	if c == nil || c.PodTopologySpread == nil {
		return nil
	}
	return c.PodTopologySpread.DefaultConstraints
}

// Workloads are what a pod's default selector is deduced from: the Services, and the
// selectors of the ReplicationControllers, ReplicaSets and StatefulSets (the only controllers
// the kube-scheduler reads).
type Workloads struct {
	Services []*corev1.Service
	Owners   map[OwnerKey]OwnerSelector
}

// OwnerKey names a controller as a pod's controller reference does, and as the kube-scheduler
// looks it up: its API version and kind, its namespace (the pod's) and its name.
type OwnerKey struct {
	APIVersion, Kind, Namespace, Name string
}

// OwnerSelector is a controller's selector: a ReplicationController's is a set of labels, a
// ReplicaSet's or a StatefulSet's a label selector.
type OwnerSelector struct {
	Labels   map[string]string
	Selector *metav1.LabelSelector
}

// WithDefaultSpread gives each pod that has no topology spread constraint of its own the
// default constraints, on a copy (the pods are the cache's), with the selector the
// kube-scheduler deduces for it; a pod it deduces none for is left as it is, as the
// kube-scheduler leaves it. The other pods are returned as they are.
func WithDefaultSpread(pods []*corev1.Pod, defaults []corev1.TopologySpreadConstraint, workloads Workloads) ([]*corev1.Pod, error) {
	if len(defaults) == 0 {
		return pods, nil
	}
	out := make([]*corev1.Pod, len(pods))
	var errs []error
	for i, pod := range pods {
		out[i] = pod
		if len(pod.Spec.TopologySpreadConstraints) > 0 {
			continue
		}
		selector, err := workloads.defaultSelector(pod)
		if err != nil {
			errs = append(errs, err)
		}
		if selector == nil {
			continue
		}
		defaulted := pod.DeepCopy()
		for _, c := range defaults {
			c = *c.DeepCopy()
			c.LabelSelector = selector.DeepCopy()
			defaulted.Spec.TopologySpreadConstraints = append(defaulted.Spec.TopologySpreadConstraints, c)
		}
		out[i] = defaulted
	}
	return out, errors.Join(errs...)
}

// defaultSelector is the selector the kube-scheduler deduces for a pod's default constraints
// (its plugins' DefaultSelector): the selectors of the Services in its namespace that select
// it, merged, then its controller's, a ReplicationController's labels over them, a
// ReplicaSet's or StatefulSet's requirements added; nil when that is nothing, which would
// select every pod.
func (w Workloads) defaultSelector(pod *corev1.Pod) (*metav1.LabelSelector, error) {
	matchLabels := map[string]string{}
	for _, svc := range w.Services {
		// A Service without a selector selects nothing.
		if svc.Namespace != pod.Namespace || svc.Spec.Selector == nil {
			continue
		}
		if labels.SelectorFromValidatedSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			maps.Copy(matchLabels, svc.Spec.Selector)
		}
	}
	var expressions []metav1.LabelSelectorRequirement
	if owner := metav1.GetControllerOfNoCopy(pod); owner != nil {
		if sel, ok := w.Owners[OwnerKey{APIVersion: owner.APIVersion, Kind: owner.Kind, Namespace: pod.Namespace, Name: owner.Name}]; ok {
			maps.Copy(matchLabels, sel.Labels)
			if sel.Selector != nil {
				// The selector's labels become requirements, added as the kube-scheduler adds
				// them, not merged into the Services' labels.
				for _, k := range slices.Sorted(maps.Keys(sel.Selector.MatchLabels)) {
					expressions = append(expressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{sel.Selector.MatchLabels[k]}})
				}
				expressions = append(expressions, sel.Selector.MatchExpressions...)
			}
		}
	}
	if len(matchLabels) == 0 && len(expressions) == 0 {
		return nil, nil
	}
	selector := &metav1.LabelSelector{MatchExpressions: expressions}
	if len(matchLabels) > 0 {
		selector.MatchLabels = matchLabels
	}
	if _, err := metav1.LabelSelectorAsSelector(selector); err != nil {
		return nil, fmt.Errorf("the default topology spread selector of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return selector, nil
}
