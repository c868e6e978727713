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

package kubelet

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Flags is what a VM's user data tells the kubelet it starts: the kubelet command-line flags
// of its join script, with the shell variables it reads from the metadata service filled in,
// and the bootstrap token of its bootstrap kubeconfig.
type Flags struct {
	// ProviderID is --provider-id.
	ProviderID string
	// HostnameOverride is --hostname-override; the node is named after the VM's hostname
	// without it.
	HostnameOverride string
	// NodeLabels is --node-labels.
	NodeLabels map[string]string
	// Taints is --register-with-taints.
	Taints []corev1.Taint
	// MaxPods is --max-pods, 0 when not set.
	MaxPods int64
	// PodsPerCore is --pods-per-core, 0 when not set.
	PodsPerCore int64
	// KubeReserved, SystemReserved and EvictionHard are --kube-reserved, --system-reserved
	// (resource=quantity) and --eviction-hard (signal<threshold).
	KubeReserved   map[string]string
	SystemReserved map[string]string
	EvictionHard   map[string]string
	// BootstrapToken is the token of the bootstrap kubeconfig the kubelet authenticates with
	// until it has a certificate; empty when the user data holds none.
	BootstrapToken string
}

var (
	// kubeletArgsLine finds the kubelet flags a join script writes to /etc/default/kubelet,
	// which the worker images' kubelet unit reads (assumption A19 of docs/assumptions.md).
	kubeletArgsLine = regexp.MustCompile(`(?m)^\s*KUBELET_EXTRA_ARGS=("[^"]*"|'[^']*'|\S*)\s*$`)
	// bootstrapToken finds the token of a bootstrap kubeconfig written by the script.
	bootstrapToken = regexp.MustCompile(`(?m)^\s*token:\s*['"]?([a-z0-9]{6}\.[a-z0-9]{16})['"]?\s*$`)
	// metadataVariable matches what a join script fills from the metadata service: the shell
	// variable $INSTANCE_ID or ${INSTANCE_ID}, or the @INSTANCE_ID@ placeholder the script
	// puts the checked id in with sed.
	metadataVariable = regexp.MustCompile(`\$\{?INSTANCE_ID\}?|@INSTANCE_ID@`)
)

// ParseUserData reads the kubelet flags from a VM's user data, as the kubelet would receive
// them on the VM whose id is instanceID. found is false when the user data starts no kubelet
// (no KUBELET_EXTRA_ARGS): such a VM never becomes a node.
func ParseUserData(userData, instanceID string) (flags Flags, found bool, err error) {
	if m := bootstrapToken.FindStringSubmatch(userData); m != nil {
		flags.BootstrapToken = m[1]
	}
	// The last assignment wins, as the join script writes the file the kubelet reads last.
	all := kubeletArgsLine.FindAllStringSubmatch(userData, -1)
	if all == nil {
		return flags, false, nil
	}
	args := strings.Trim(all[len(all)-1][1], `"'`)
	args = metadataVariable.ReplaceAllString(args, instanceID)
	fields := strings.Fields(args)
	for i := 0; i < len(fields); i++ {
		name, value, hasValue := strings.Cut(fields[i], "=")
		if !strings.HasPrefix(name, "--") {
			return flags, true, fmt.Errorf("kubelet argument %q is not a flag", fields[i])
		}
		if !hasValue && i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "--") {
			i++
			value = fields[i]
		}
		if err := flags.set(strings.TrimPrefix(name, "--"), value); err != nil {
			return flags, true, err
		}
	}
	return flags, true, nil
}

// set applies one flag; flags that do not shape the node (kubeconfig paths, cluster DNS, soft
// eviction) are accepted and ignored, as they are for a node object.
func (f *Flags) set(name, value string) error {
	var err error
	switch name {
	case "provider-id":
		f.ProviderID = value
	case "hostname-override":
		f.HostnameOverride = value
	case "node-labels":
		f.NodeLabels, err = parsePairs(name, value, "=")
	case "register-with-taints":
		f.Taints, err = parseTaints(value)
	case "max-pods":
		f.MaxPods, err = parsePositive(name, value)
	case "pods-per-core":
		f.PodsPerCore, err = parsePositive(name, value)
	case "kube-reserved":
		f.KubeReserved, err = parsePairs(name, value, "=")
	case "system-reserved":
		f.SystemReserved, err = parsePairs(name, value, "=")
	case "eviction-hard":
		f.EvictionHard, err = parsePairs(name, value, "<")
	}
	return err
}

// parsePairs reads key<sep>value,key<sep>value.
func parsePairs(flag, value, sep string) (map[string]string, error) {
	pairs := map[string]string{}
	if value == "" {
		return pairs, nil
	}
	for pair := range strings.SplitSeq(value, ",") {
		k, v, ok := strings.Cut(pair, sep)
		if !ok || k == "" {
			return nil, fmt.Errorf("--%s: %q is not key%svalue", flag, pair, sep)
		}
		pairs[k] = v
	}
	return pairs, nil
}

// parseTaints reads the kubelet's taint syntax: key[=value]:effect, comma-separated.
func parseTaints(value string) ([]corev1.Taint, error) {
	var taints []corev1.Taint
	if value == "" {
		return nil, nil
	}
	for spec := range strings.SplitSeq(value, ",") {
		keyValue, effect, ok := strings.Cut(spec, ":")
		if !ok {
			return nil, fmt.Errorf("--register-with-taints: %q has no effect", spec)
		}
		t := corev1.Taint{Effect: corev1.TaintEffect(effect)}
		t.Key, t.Value, _ = strings.Cut(keyValue, "=")
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return nil, fmt.Errorf("--register-with-taints: %q has an unknown effect %q", spec, effect)
		}
		if t.Key == "" {
			return nil, fmt.Errorf("--register-with-taints: %q has no key", spec)
		}
		taints = append(taints, t)
	}
	return taints, nil
}

func parsePositive(flag, value string) (int64, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("--%s: %q is not a positive integer", flag, value)
	}
	return n, nil
}
