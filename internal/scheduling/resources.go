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

package scheduling

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// resVec is a resource list in milli-units, cheap to compare and add in the scheduling loop.
type resVec map[corev1.ResourceName]int64

func toVec(l corev1.ResourceList) resVec {
	v := make(resVec, len(l))
	for name, q := range l {
		v[name] = q.MilliValue()
	}
	return v
}

// add returns a new vector a+b.
func (a resVec) add(b resVec) resVec {
	out := make(resVec, len(a)+len(b))
	maps.Copy(out, a)
	for k, v := range b {
		out[k] += v
	}
	return out
}

// sub returns a new vector a-b.
func (a resVec) sub(b resVec) resVec {
	out := make(resVec, len(a))
	maps.Copy(out, a)
	for k, v := range b {
		out[k] -= v
	}
	return out
}

// fitsIn reports whether every positive request in a is available in avail.
func (a resVec) fitsIn(avail resVec) bool {
	for k, v := range a {
		if v > 0 && avail[k] < v {
			return false
		}
	}
	return true
}

// fitsSum reports whether a+b fits in avail without allocating.
func fitsSum(a, b, avail resVec) bool {
	for k, v := range a {
		if t := v + b[k]; t > 0 && avail[k] < t {
			return false
		}
	}
	for k, v := range b {
		if _, ok := a[k]; ok {
			continue
		}
		if v > 0 && avail[k] < v {
			return false
		}
	}
	return true
}

// withPodsDefault treats a list without a pods entry as not limiting the pod count (every pod
// requests pods: 1 during scheduling).
func withPodsDefault(v resVec) resVec {
	if _, ok := v[corev1.ResourcePods]; !ok {
		v[corev1.ResourcePods] = math.MaxInt64 / 4
	}
	return v
}

// subLimited returns a-b over a's keys only: what a limit has left once b is used. Resources
// the limit does not name stay unlimited.
func (a resVec) subLimited(b resVec) resVec {
	out := make(resVec, len(a))
	for k, v := range a {
		out[k] = v - b[k]
	}
	return out
}

// exceeded returns the resources of a that are above limit, sorted; keys absent from limit are
// unlimited.
func (a resVec) exceeded(limit resVec) []string {
	var out []string
	for k, v := range a {
		if l, ok := limit[k]; ok && v > l {
			out = append(out, string(k))
		}
	}
	slices.Sort(out)
	return out
}

// maxVec returns the per-resource maximum.
func maxVec(a, b resVec) resVec {
	out := make(resVec, len(a)+len(b))
	maps.Copy(out, a)
	for k, v := range b {
		if cur, ok := out[k]; !ok || v > cur {
			out[k] = v
		}
	}
	return out
}

// describeVec renders the positive entries, e.g. "96 cpu, 1Gi memory".
func describeVec(v resVec) string {
	names := make([]string, 0, len(v))
	for k, n := range v {
		if n > 0 {
			names = append(names, string(k))
		}
	}
	slices.Sort(names)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		milli := v[corev1.ResourceName(name)]
		var amount string
		switch {
		case name == string(corev1.ResourceCPU) && milli%1000 == 0:
			amount = strconv.FormatInt(milli/1000, 10)
		case name == string(corev1.ResourceCPU):
			amount = strconv.FormatInt(milli, 10) + "m"
		default:
			q := quantityOf(corev1.ResourceName(name), milli)
			amount = q.String()
		}
		parts = append(parts, fmt.Sprintf("%s %s", amount, name))
	}
	return strings.Join(parts, ", ")
}

// quantityOf converts a milli value back to a Quantity in the usual format of the resource.
func quantityOf(name corev1.ResourceName, milli int64) resource.Quantity {
	if milli%1000 == 0 {
		format := resource.DecimalSI
		switch name {
		case corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage:
			format = resource.BinarySI
		}
		return *resource.NewQuantity(milli/1000, format)
	}
	return *resource.NewMilliQuantity(milli, resource.DecimalSI)
}

// toList converts back to a ResourceList (zero entries dropped).
func (a resVec) toList() corev1.ResourceList {
	out := make(corev1.ResourceList, len(a))
	for k, v := range a {
		if v != 0 {
			out[k] = quantityOf(k, v)
		}
	}
	return out
}

// PodRequests returns what a pod requests of a node: the larger of its init containers and the
// sum of its containers (sidecars included), plus its overhead, as the kubelet computes it.
func PodRequests(pod *corev1.Pod) corev1.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
}

// hostPort is one host port a pod binds.
type hostPort struct {
	ip       string
	protocol corev1.Protocol
	port     int32
}

func podHostPorts(pod *corev1.Pod) []hostPort {
	var out []hostPort
	collect := func(cs []corev1.Container) {
		for i := range cs {
			for _, p := range cs[i].Ports {
				if p.HostPort <= 0 {
					continue
				}
				proto := p.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				ip := p.HostIP
				if ip == "" {
					ip = "0.0.0.0"
				}
				out = append(out, hostPort{ip: ip, protocol: proto, port: p.HostPort})
			}
		}
	}
	// An ordinary init container has finished, and released its ports, before the pod's
	// containers start; a sidecar (restartable init container) holds them as long as they do.
	for i := range pod.Spec.InitContainers {
		if c := &pod.Spec.InitContainers[i]; c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			collect(pod.Spec.InitContainers[i : i+1])
		}
	}
	collect(pod.Spec.Containers)
	return out
}

// portsClash returns the first of want that conflicts with used, as the kubelet's NodePorts
// filter sees it: same protocol and port, and the same IP or either is the wildcard.
func portsClash(used, want []hostPort) (hostPort, bool) {
	for _, w := range want {
		for _, u := range used {
			if w.port == u.port && w.protocol == u.protocol && (w.ip == u.ip || w.ip == "0.0.0.0" || u.ip == "0.0.0.0") {
				return w, true
			}
		}
	}
	return hostPort{}, false
}
