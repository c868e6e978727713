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

package bootstrap

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/utils/resources"
)

// MaxUserDataBytes keeps the script within KakaoCloud's 16 KiB user data once base64-encoded.
const MaxUserDataBytes = 12 * 1024

// Options is everything the script needs.
type Options struct {
	// Endpoint is the API server URL, https://host:port.
	Endpoint string
	// CABundle is the cluster CA in PEM.
	CABundle []byte
	// Token is the bootstrap token, <id>.<secret>.
	Token  string
	Labels map[string]string
	// Taints are registered with the node; they must include karpenter.sh/unregistered.
	Taints []corev1.Taint
	// Kubelet is the KCNodeClass's kubelet settings; those that hold back resources come
	// from Reservations.
	Kubelet *kcv1.KubeletConfiguration
	// Reservations is what the instance type's model holds back: pods, kube-reserved,
	// system-reserved and every hard eviction threshold are passed as they are here, so that
	// the node's allocatable is the model's.
	Reservations instancetype.KubeletReservations
	// ExtraUserData is the KCNodeClass's own script, run before the node joins.
	ExtraUserData string
}

var script = template.Must(template.New("userdata").Parse(`#!/bin/bash
# Written by karpenter-provider-kakaocloud: joins this VM to the cluster as its NodeClaim's node.
set -euo pipefail
{{- if .ExtraUserData }}

# The KCNodeClass's user data runs first. It may hold secrets of its own: the file is root's
# before they are written into it.
install -m 0700 /dev/null /var/lib/karpenter-extra-userdata
cat > /var/lib/karpenter-extra-userdata <<'KARPENTER_EXTRA_EOF'
{{ .ExtraUserData }}
KARPENTER_EXTRA_EOF
/var/lib/karpenter-extra-userdata
{{- end }}

mkdir -p /etc/kubernetes/pki
echo '{{ .CA }}' | base64 -d > /etc/kubernetes/pki/ca.crt
# The bootstrap kubeconfig holds a token that can register a node: the file is made root's
# alone before the token is written into it (a redirect into a file the image left keeps that
# file's mode).
install -m 0600 /dev/null /etc/kubernetes/bootstrap-kubelet.conf
cat > /etc/kubernetes/bootstrap-kubelet.conf <<'KARPENTER_EOF'
apiVersion: v1
kind: Config
clusters:
- name: cluster
  cluster:
    certificate-authority: /etc/kubernetes/pki/ca.crt
    server: {{ .Endpoint }}
users:
- name: kubelet-bootstrap
  user:
    token: {{ .Token }}
contexts:
- name: bootstrap
  context:
    cluster: cluster
    user: kubelet-bootstrap
current-context: bootstrap
KARPENTER_EOF

# The provider id is the VM's id, read from the metadata service. Nothing else is expanded:
# the kubelet's flags are written by a quoted heredoc, and only the checked id is put in.
INSTANCE_ID="$(curl -fsS --retry 10 http://169.254.169.254/openstack/latest/meta_data.json | sed -n 's/.*"uuid": *"\([^"]*\)".*/\1/p')"
if [[ ! "${INSTANCE_ID}" =~ ^[0-9a-fA-F-]+$ ]]; then
  echo "the metadata service gave no VM id" >&2
  exit 1
fi
cat > /etc/default/kubelet <<'KARPENTER_EOF'
KUBELET_EXTRA_ARGS="--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf --provider-id={{ .ProviderIDPrefix }}@INSTANCE_ID@ --node-labels={{ .NodeLabels }} --register-with-taints={{ .RegisterTaints }}{{ .KubeletFlags }}"
KARPENTER_EOF
sed -i "s/@INSTANCE_ID@/${INSTANCE_ID}/" /etc/default/kubelet
systemctl daemon-reload
systemctl enable kubelet
systemctl restart kubelet
`))

// UserData renders the join script.
func UserData(o Options) (string, error) {
	if o.Endpoint == "" || len(o.CABundle) == 0 || o.Token == "" {
		return "", fmt.Errorf("the join script needs the API server endpoint, the cluster CA and a bootstrap token")
	}
	if o.Reservations.MaxPods < 1 {
		return "", fmt.Errorf("the join script needs the instance type's pods capacity and reservations")
	}
	if strings.Contains(o.ExtraUserData, "KARPENTER_EXTRA_EOF") {
		return "", fmt.Errorf("the KCNodeClass's userData may not contain the line KARPENTER_EXTRA_EOF")
	}
	labels, err := nodeLabels(o.Labels)
	if err != nil {
		return "", err
	}
	taints, err := registerTaints(o.Taints)
	if err != nil {
		return "", err
	}
	flags, err := kubeletFlags(o.Kubelet, o.Reservations)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	err = script.Execute(&out, map[string]string{
		"ExtraUserData":    strings.TrimRight(o.ExtraUserData, "\n"),
		"CA":               base64.StdEncoding.EncodeToString(o.CABundle),
		"Endpoint":         o.Endpoint,
		"Token":            o.Token,
		"ProviderIDPrefix": kcv1.ProviderIDPrefix,
		"NodeLabels":       labels,
		"RegisterTaints":   taints,
		"KubeletFlags":     flags,
	})
	if err != nil {
		return "", fmt.Errorf("rendering the join script: %w", err)
	}
	if out.Len() > MaxUserDataBytes {
		return "", fmt.Errorf("the join script is %d bytes, over the %d KakaoCloud allows once encoded: shorten the KCNodeClass's userData", out.Len(), MaxUserDataBytes)
	}
	return out.String(), nil
}

// nodeLabels renders --node-labels; keys in the kubernetes.io domains the kubelet may not set
// itself are left to the controller, which syncs them at registration. Keys and values are
// checked as the API server checks labels, so that nothing else reaches the script.
func nodeLabels(labels map[string]string) (string, error) {
	var pairs []string
	for k, v := range labels {
		if errs := slices.Concat(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)); len(errs) > 0 {
			return "", fmt.Errorf("label %q=%q: %s", k, v, strings.Join(errs, "; "))
		}
		if kubeletMaySet(k) {
			pairs = append(pairs, k+"="+v)
		}
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ","), nil
}

// kubeletMaySet follows the NodeRestriction admission plugin: kubelets may set labels outside
// the kubernetes.io and k8s.io domains, and a few well-known ones inside them.
func kubeletMaySet(key string) bool {
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return true
	}
	switch {
	case domain == "kubelet.kubernetes.io" || domain == "node.kubernetes.io" ||
		strings.HasSuffix(domain, ".kubelet.kubernetes.io") || strings.HasSuffix(domain, ".node.kubernetes.io"):
		return true
	case domain == "kubernetes.io" || domain == "k8s.io" || strings.HasSuffix(domain, ".kubernetes.io") || strings.HasSuffix(domain, ".k8s.io"):
		return slices.Contains([]string{
			corev1.LabelTopologyZone, corev1.LabelTopologyRegion, corev1.LabelInstanceTypeStable,
			corev1.LabelArchStable, corev1.LabelOSStable, corev1.LabelHostname,
		}, key)
	}
	return true
}

// registerTaints renders --register-with-taints, each taint checked as the API server checks
// a node's taints.
func registerTaints(taints []corev1.Taint) (string, error) {
	parts := make([]string, 0, len(taints))
	for _, t := range taints {
		errs := validation.IsQualifiedName(t.Key)
		if t.Value != "" {
			errs = append(errs, validation.IsValidLabelValue(t.Value)...)
		}
		if !slices.Contains([]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}, t.Effect) {
			errs = append(errs, fmt.Sprintf("effect %q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect))
		}
		if len(errs) > 0 {
			return "", fmt.Errorf("taint %q: %s", t.ToString(), strings.Join(errs, "; "))
		}
		parts = append(parts, t.ToString())
	}
	return strings.Join(parts, ","), nil
}

// kubeletFlags renders the reservations and the KCNodeClass's other kubelet settings as
// flags. Every value is parsed and written back in its canonical form (an IP address, a
// quantity, a percentage, a number), so that nothing but those characters reaches the script,
// whatever got past the API server's validation; a value that does not parse is an error
// naming the field.
//
//nolint:gocyclo // one branch per kubelet setting, each parsed and written back on its own; a table of setters would hide which flag each field becomes
func kubeletFlags(k *kcv1.KubeletConfiguration, r instancetype.KubeletReservations) (string, error) {
	if k == nil {
		k = &kcv1.KubeletConfiguration{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, " --max-pods=%d", r.MaxPods)
	if k.PodsPerCore != nil {
		fmt.Fprintf(&b, " --pods-per-core=%d", *k.PodsPerCore)
	}
	if len(k.ClusterDNS) > 0 {
		ips := make([]string, 0, len(k.ClusterDNS))
		for _, value := range k.ClusterDNS {
			ip, err := netip.ParseAddr(value)
			if err != nil {
				return "", fmt.Errorf("kubelet.clusterDNS: %q is not an IP address", value)
			}
			ips = append(ips, ip.String())
		}
		fmt.Fprintf(&b, " --cluster-dns=%s", strings.Join(ips, ","))
	}
	grace := map[string]string{}
	for signal, d := range k.EvictionSoftGracePeriod {
		grace[signal] = d.Duration.String()
	}
	for _, f := range []struct {
		field, flag string
		values      map[string]string
		sep         string
		canonical   func(string) (string, bool)
	}{
		{"kubeReserved", "--kube-reserved", quantities(r.KubeReserved), "=", quantity},
		{"systemReserved", "--system-reserved", quantities(r.SystemReserved), "=", quantity},
		{"evictionHard", "--eviction-hard", r.EvictionHard, "<", threshold},
		{"evictionSoft", "--eviction-soft", k.EvictionSoft, "<", threshold},
		{"evictionSoftGracePeriod", "--eviction-soft-grace-period", grace, "=", func(v string) (string, bool) { return v, true }},
	} {
		if len(f.values) == 0 {
			continue
		}
		values := make(map[string]string, len(f.values))
		for key, value := range f.values {
			canonical, ok := f.canonical(value)
			if !ok || !resourceOrSignal.MatchString(key) {
				return "", fmt.Errorf("kubelet.%s: %s: %q is not a non-negative quantity or percentage", f.field, key, value)
			}
			values[key] = canonical
		}
		fmt.Fprintf(&b, " %s=%s", f.flag, pairs(values, f.sep))
	}
	if k.EvictionMaxPodGracePeriod != nil {
		fmt.Fprintf(&b, " --eviction-max-pod-grace-period=%d", *k.EvictionMaxPodGracePeriod)
	}
	if k.ImageGCHighThresholdPercent != nil {
		fmt.Fprintf(&b, " --image-gc-high-threshold=%d", *k.ImageGCHighThresholdPercent)
	}
	if k.ImageGCLowThresholdPercent != nil {
		fmt.Fprintf(&b, " --image-gc-low-threshold=%d", *k.ImageGCLowThresholdPercent)
	}
	if k.CPUCFSQuota != nil {
		fmt.Fprintf(&b, " --cpu-cfs-quota=%t", *k.CPUCFSQuota)
	}
	return b.String(), nil
}

// quantities is a resource list as resource=quantity strings.
func quantities(list corev1.ResourceList) map[string]string {
	out := make(map[string]string, len(list))
	for name, q := range list {
		out[string(name)] = q.String()
	}
	return out
}

var (
	// resourceOrSignal is a reserved resource (cpu, ephemeral-storage) or an eviction signal
	// (memory.available, nodefs.inodesFree): the CRD allows only a few of them.
	resourceOrSignal = regexp.MustCompile(`^[a-z][a-zA-Z.-]*$`)
	percentage       = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?%$`)
)

// quantity is value as a canonical, non-negative quantity.
func quantity(value string) (string, bool) {
	q, err := resources.ParseNonNegative(value)
	if err != nil {
		return "", false
	}
	return q.String(), true
}

// threshold is an eviction threshold: a percentage, as written, or a quantity.
func threshold(value string) (string, bool) {
	if percentage.MatchString(value) {
		return value, true
	}
	return quantity(value)
}

// pairs renders a map sorted by key as key<sep>value,...
func pairs(m map[string]string, sep string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+sep+m[k])
	}
	return strings.Join(out, ",")
}
