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
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// resVec is a resource list in milli-units, cheap to compare and add in the scheduling loop.
// The resources every pod and node have (cpu, memory, pods, ephemeral storage) are fields; any
// other (GPUs, extended resources) is in a map, nil for most pods and types. The scheduling
// loop compares vectors for every NodeClaim and instance type a pod is tried on: with a map
// for every vector, hashing resource names took half its time.
//
// An absent resource counts as zero, except where a list's keys are what it says: a resource
// a NodePool's limits do not name is unlimited (subLimited, exceeded), a node that reports no
// pods capacity takes any number (withPodsDefault). present records which fields are there.
type resVec struct {
	core    [numCore]int64
	present uint8 // bit i: core[i] is there
	extra   map[corev1.ResourceName]int64
}

// The resources kept in resVec's fields, by index.
const (
	coreCPU = iota
	coreMemory
	corePods
	coreEphemeralStorage
	numCore
)

var coreNames = [numCore]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage}

func coreIndex(name corev1.ResourceName) int {
	switch name {
	case corev1.ResourceCPU:
		return coreCPU
	case corev1.ResourceMemory:
		return coreMemory
	case corev1.ResourcePods:
		return corePods
	case corev1.ResourceEphemeralStorage:
		return coreEphemeralStorage
	}
	return -1
}

func toVec(l corev1.ResourceList) resVec {
	var v resVec
	for name, q := range l {
		v.set(name, milli(q))
	}
	return v
}

// milli returns q in milli-units, saturated to the int64 range. Memory of more than 8 PiB does
// not fit: a NodePool limit of 10000000Gi (upstream Karpenter's own performance tests set it)
// would otherwise wrap around to a negative number and refuse every node.
func milli(q resource.Quantity) int64 {
	switch {
	case q.CmpInt64(math.MaxInt64/1000) > 0:
		return math.MaxInt64
	case q.CmpInt64(math.MinInt64/1000) < 0:
		return math.MinInt64
	}
	return q.MilliValue()
}

// set makes value the amount of name.
func (v *resVec) set(name corev1.ResourceName, value int64) {
	if i := coreIndex(name); i >= 0 {
		v.core[i], v.present = value, v.present|1<<i
		return
	}
	if v.extra == nil {
		v.extra = map[corev1.ResourceName]int64{}
	}
	v.extra[name] = value
}

// get returns the amount of name and whether the vector has it.
func (v resVec) get(name corev1.ResourceName) (int64, bool) {
	if i := coreIndex(name); i >= 0 {
		return v.core[i], v.present&(1<<i) != 0
	}
	value, ok := v.extra[name]
	return value, ok
}

// each calls fn with every resource the vector has.
func (v resVec) each(fn func(corev1.ResourceName, int64)) {
	for i, name := range coreNames {
		if v.present&(1<<i) != 0 {
			fn(name, v.core[i])
		}
	}
	for name, value := range v.extra {
		fn(name, value)
	}
}

// combine returns a vector with the resources of a and b, each op(a's, b's), absent ones zero.
func combine(a, b resVec, op func(x, y int64) int64) resVec {
	out := resVec{present: a.present | b.present}
	for i := range out.core {
		out.core[i] = op(a.core[i], b.core[i])
	}
	if a.extra != nil || b.extra != nil {
		out.extra = make(map[corev1.ResourceName]int64, len(a.extra)+len(b.extra))
		for k, v := range a.extra {
			out.extra[k] = op(v, b.extra[k])
		}
		for k, v := range b.extra {
			if _, ok := a.extra[k]; !ok {
				out.extra[k] = op(0, v)
			}
		}
	}
	return out
}

// add returns a new vector a+b.
func (a resVec) add(b resVec) resVec { return combine(a, b, func(x, y int64) int64 { return x + y }) }

// sub returns a new vector a-b.
func (a resVec) sub(b resVec) resVec { return combine(a, b, func(x, y int64) int64 { return x - y }) }

// fitsIn reports whether every positive request in a is available in avail.
func (a resVec) fitsIn(avail resVec) bool {
	for i, v := range a.core {
		if v > 0 && avail.core[i] < v {
			return false
		}
	}
	for k, v := range a.extra {
		if v > 0 && avail.extra[k] < v {
			return false
		}
	}
	return true
}

// fitsSum reports whether a+b fits in avail without allocating.
func fitsSum(a, b, avail resVec) bool {
	for i := range a.core {
		if t := a.core[i] + b.core[i]; t > 0 && avail.core[i] < t {
			return false
		}
	}
	for k, v := range a.extra {
		if t := v + b.extra[k]; t > 0 && avail.extra[k] < t {
			return false
		}
	}
	for k, v := range b.extra {
		if _, ok := a.extra[k]; ok {
			continue
		}
		if v > 0 && avail.extra[k] < v {
			return false
		}
	}
	return true
}

// withPodsDefault treats a list without a pods entry as not limiting the pod count (every pod
// requests pods: 1 during scheduling).
func withPodsDefault(v resVec) resVec {
	if _, ok := v.get(corev1.ResourcePods); !ok {
		v.set(corev1.ResourcePods, math.MaxInt64/4)
	}
	return v
}

// subLimited returns a-b over a's resources only: what a limit has left once b is used.
// Resources the limit does not name stay unlimited.
func (a resVec) subLimited(b resVec) resVec {
	var out resVec
	a.each(func(k corev1.ResourceName, v int64) {
		used, _ := b.get(k)
		out.set(k, v-used)
	})
	return out
}

// exceeded returns the resources of a that are above limit, sorted; resources absent from
// limit are unlimited.
func (a resVec) exceeded(limit resVec) []string {
	var out []string
	a.each(func(k corev1.ResourceName, v int64) {
		if l, ok := limit.get(k); ok && v > l {
			out = append(out, string(k))
		}
	})
	slices.Sort(out)
	return out
}

// maxVec returns the per-resource maximum of the resources either has.
func maxVec(a, b resVec) resVec {
	out := a
	out.extra = maps.Clone(a.extra)
	b.each(func(k corev1.ResourceName, v int64) {
		if cur, ok := out.get(k); !ok || v > cur {
			out.set(k, v)
		}
	})
	return out
}

// describeVec renders the positive entries, e.g. "96 cpu, 1Gi memory".
func describeVec(v resVec) string {
	amounts := map[string]int64{}
	v.each(func(k corev1.ResourceName, n int64) {
		if n > 0 {
			amounts[string(k)] = n
		}
	})
	names := slices.Sorted(maps.Keys(amounts))
	parts := make([]string, 0, len(names))
	for _, name := range names {
		milli := amounts[name]
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
	out := corev1.ResourceList{}
	a.each(func(k corev1.ResourceName, v int64) {
		if v != 0 {
			out[k] = quantityOf(k, v)
		}
	})
	return out
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
