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
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/scheduling"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/destination"
)

// ExistingNode is a node already in the cluster (or launched and not yet ready) that pods may be
// placed on before any new capacity is opened.
type ExistingNode struct {
	// ID is the node, or the NodeClaim whose node has not registered yet.
	ID     destination.Destination
	Labels map[string]string
	Taints []corev1.Taint
	// Unschedulable is a cordoned node's spec.unschedulable: only pods that tolerate
	// node.kubernetes.io/unschedulable:NoSchedule may go there (the kube-scheduler's
	// NodeUnschedulable plugin), whether or not the node also has that taint.
	Unschedulable bool
	Allocatable   corev1.ResourceList
	// Requested is what the pods already bound to the node request (daemonsets included).
	Requested corev1.ResourceList
	// Requirements, when set, describe a NodeClaim that is not launched yet: what its node may
	// still become. A pod whose requirements they guarantee (whatever the launch picks) is
	// counted on it instead of opening another NodeClaim for it; Labels are then ignored.
	Requirements scheduling.Requirements
	// Pods are the pods bound to the node. Topology spread and pod (anti-)affinity count them.
	Pods []*corev1.Pod
	// VolumeLimits are, per CSI driver, how many volumes of it the node can have attached
	// (VolumeLimits of its CSINode); a driver not listed is not limited. The volumes the
	// node's Pods use count against them (Input.PodVolumes).
	VolumeLimits map[string]int
	// TopologyOnly nodes take no pods in the simulation (a node being deleted or disrupted,
	// a node a disruption simulation does not try), but the pods on them still count for
	// topology spread and pod (anti-)affinity, as they do for the kube-scheduler.
	TopologyOnly bool
}

// existingNode is an ExistingNode during one scheduling run.
type existingNode struct {
	node      *ExistingNode
	labels    map[string]string       // normalized keys; nil for a NodeClaim not launched yet
	reqs      scheduling.Requirements // for a NodeClaim not launched yet, narrowed by the pods placed
	hostname  string
	available resVec // allocatable - requested - placed in this run
	ports     []hostPort
	pods      []*corev1.Pod
	// volumes are the volumes of the drivers the node limits that its pods use, those
	// placed in this run included.
	volumes scheduling.VolumeUsage
}

func newExistingNode(n *ExistingNode) *existingNode {
	e := &existingNode{node: n, hostname: placeholderHostname(n.ID)}
	// A node that takes no pods needs no room or ports: only its labels and pods count.
	if !n.TopologyOnly {
		e.available = withPodsDefault(toVec(n.Allocatable)).sub(toVec(n.Requested))
	}
	if n.Requirements != nil {
		e.reqs = n.Requirements
		return e
	}
	e.labels = normalizedLabels(n.Labels)
	if h, ok := e.labels[corev1.LabelHostname]; ok {
		e.hostname = h
	}
	if !n.TopologyOnly {
		for _, pod := range n.Pods {
			e.ports = append(e.ports, podHostPorts(pod)...)
		}
	}
	return e
}

// placeholderHostname is the hostname domain of a node that has no hostname label: its name;
// for a NodeClaim in flight, whose node's hostname is not known yet, a domain of its own that
// no node's hostname can be (a hostname has no '/').
func placeholderHostname(id destination.Destination) string {
	if id.Kind == destination.Node {
		return id.Name
	}
	return id.String()
}

// normalizedLabels are the labels with their keys normalized: the labels themselves when no
// key needs it (the run only reads them), else a copy.
func normalizedLabels(l map[string]string) map[string]string {
	normalized := true
	for k := range l {
		if scheduling.NormalizeKey(k) != k {
			normalized = false
			break
		}
	}
	if normalized && l != nil {
		return l
	}
	out := make(map[string]string, len(l))
	for k, v := range l {
		out[scheduling.NormalizeKey(k)] = v
	}
	return out
}

// insufficientError is formatted only when read: most are discarded while other nodes are tried.
type insufficientError struct{ requests resVec }

func (e *insufficientError) Error() string {
	return "insufficient resources for " + describeVec(e.requests)
}

// cordoned is the taint a cordoned node is treated as having.
var cordoned = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// reserveDaemons keeps room for the daemonsets that will run on the node and have no pod there
// yet (a NodeClaim in flight, a node just registered): their pods come whatever else lands.
func (e *existingNode) reserveDaemons(daemons []*podInfo) {
	if e.node.TopologyOnly {
		return
	}
	for _, d := range daemons {
		name := daemonSetName(d.pod)
		if name == "" || tolerates(d.pod, e.node.Taints, false) != nil {
			continue
		}
		if e.labels != nil && labelsSatisfy(e.labels, d.requirements) != nil || e.labels == nil && !daemonRuns(e.reqs, d.requirements) {
			continue
		}
		if !slices.ContainsFunc(e.node.Pods, func(pod *corev1.Pod) bool { return daemonSetName(pod) == name && pod.Namespace == d.pod.Namespace }) {
			e.available = e.available.sub(d.requests)
		}
	}
}

// daemonSetName is the name of the DaemonSet that controls the pod ("" when none does). The
// daemonset pods of a scheduling input (templates) carry the same owner reference.
func daemonSetName(pod *corev1.Pod) string {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return o.Name
		}
	}
	return ""
}

func (e *existingNode) view() *nodeView {
	return &nodeView{labels: e.labels, reqs: e.reqs, hostname: e.hostname, taints: e.node.Taints}
}

// canAdd checks whether the pod can be placed on the node now, with the topology requirements
// for it; for a NodeClaim not launched yet it returns its narrowed requirements.
func (e *existingNode) canAdd(p *podInfo, topo scheduling.Requirements) (scheduling.Requirements, error) {
	if err := p.tolerates(e.node.Taints); err != nil {
		return nil, err
	}
	if e.node.Unschedulable && tolerates(p.pod, []corev1.Taint{cordoned}, false) != nil {
		return nil, fmt.Errorf("the node is cordoned (unschedulable)")
	}
	if !p.requests.fitsIn(e.available) {
		return nil, &insufficientError{p.requests}
	}
	if hp, clash := portsClash(e.ports, p.ports); clash {
		return nil, fmt.Errorf("host port %d/%s is in use", hp.port, hp.protocol)
	}
	if err := volumesFit(e.node.VolumeLimits, e.volumes, p.volumes); err != nil {
		return nil, err
	}
	if e.reqs == nil {
		return nil, labelsSatisfy(e.labels, p.requirements)
	}
	podReqs := p.requirements
	if topo != nil {
		podReqs = merge(podReqs, topo)
	}
	// The NodeClaim exists: its requirements will not narrow for this pod, so they must
	// already guarantee what the pod needs.
	if err := e.reqs.Guarantees(podReqs); err != nil {
		return nil, err
	}
	return e.reqs, nil
}

func (e *existingNode) add(p *podInfo, reqs scheduling.Requirements) {
	if reqs != nil {
		e.reqs = reqs
	}
	e.available = e.available.sub(p.requests)
	e.ports = append(e.ports, p.ports...)
	e.pods = append(e.pods, p.pod)
	e.volumes.Attach(p.volumes, e.node.VolumeLimits)
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
func labelsSatisfy(labels map[string]string, reqs scheduling.Requirements) error {
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
