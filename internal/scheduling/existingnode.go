/*
Copyright 2026 The karpenter-provider-kakaocloud Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// ExistingNode is a node already in the cluster (or launched and not yet ready) that pods may be
// placed on before any new capacity is opened.
type ExistingNode struct {
	Name        string
	Labels      map[string]string
	Taints      []corev1.Taint
	Allocatable corev1.ResourceList
	// Requested is what the pods already bound to the node request (daemonsets included).
	Requested corev1.ResourceList
	// Requirements, when set, describe a NodeClaim that is not launched yet: what its node may
	// still become. A pod whose requirements are compatible with them is counted on it instead
	// of opening another NodeClaim for it; Labels are then ignored.
	Requirements Requirements
	// Pods are the pods bound to the node. Topology spread and pod (anti-)affinity count them.
	Pods []*corev1.Pod
}

// existingNode is an ExistingNode during one scheduling run.
type existingNode struct {
	node      *ExistingNode
	labels    map[string]string // normalized keys; nil for a NodeClaim not launched yet
	reqs      Requirements      // for a NodeClaim not launched yet, narrowed by the pods placed
	hostname  string
	available resVec // allocatable - requested - placed in this run
	ports     []hostPort
	pods      []*corev1.Pod
}

func newExistingNode(n *ExistingNode) *existingNode {
	e := &existingNode{node: n, available: withPodsDefault(toVec(n.Allocatable)).sub(toVec(n.Requested)), hostname: n.Name}
	if n.Requirements != nil {
		e.reqs = n.Requirements
		return e
	}
	e.labels = make(map[string]string, len(n.Labels))
	for k, v := range n.Labels {
		e.labels[NormalizeKey(k)] = v
	}
	if h, ok := e.labels[corev1.LabelHostname]; ok {
		e.hostname = h
	}
	for _, pod := range n.Pods {
		e.ports = append(e.ports, podHostPorts(pod)...)
	}
	return e
}

func (e *existingNode) view() *nodeView {
	return &nodeView{labels: e.labels, reqs: e.reqs, hostname: e.hostname}
}

// canAdd checks whether the pod can be placed on the node now, with the topology requirements
// for it; for a NodeClaim not launched yet it returns its narrowed requirements.
func (e *existingNode) canAdd(p *podInfo, topo Requirements) (Requirements, error) {
	if err := p.tolerates(e.node.Taints); err != nil {
		return nil, err
	}
	if !p.requests.fitsIn(e.available) {
		return nil, fmt.Errorf("insufficient resources for %s", describeVec(p.requests))
	}
	if hp, clash := portsClash(e.ports, p.ports); clash {
		return nil, fmt.Errorf("host port %d/%s is in use", hp.port, hp.protocol)
	}
	if e.reqs == nil {
		return nil, labelsSatisfy(e.labels, p.requirements)
	}
	podReqs := p.requirements
	if topo != nil {
		podReqs = merge(podReqs, topo)
	}
	if err := e.reqs.Compatible(podReqs); err != nil {
		return nil, err
	}
	return merge(e.reqs, podReqs), nil
}

func (e *existingNode) add(p *podInfo, reqs Requirements) {
	if reqs != nil {
		e.reqs = reqs
	}
	e.available = e.available.sub(p.requests)
	e.ports = append(e.ports, p.ports...)
	e.pods = append(e.pods, p.pod)
}

// tolerates returns an error naming the first NoSchedule or NoExecute taint (and
// PreferNoSchedule when asked) the pod does not tolerate.
func tolerates(pod *corev1.Pod, taints []corev1.Taint, preferNoSchedule bool) error {
	if len(taints) == 0 {
		return nil
	}
	taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute ||
			(preferNoSchedule && t.Effect == corev1.TaintEffectPreferNoSchedule)
	}, false)
	if untolerated {
		return fmt.Errorf("the pod does not tolerate taint %s", taint.ToString())
	}
	return nil
}

// labelsSatisfy checks the requirements against a real node's labels: a label present must
// have an allowed value, a label absent must be allowed to be absent.
func labelsSatisfy(labels map[string]string, reqs Requirements) error {
	for _, key := range reqs.Keys() {
		req := reqs[key]
		if v, ok := labels[key]; ok {
			if !req.Has(v) {
				return fmt.Errorf("label %s=%s does not satisfy %s", key, v, req)
			}
		} else if !req.AllowsAbsent() {
			return fmt.Errorf("label %s is missing, required %s", key, req)
		}
	}
	return nil
}
