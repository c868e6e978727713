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
	"slices"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
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
	Taints  []corev1.Taint
	Kubelet *kcv1.KubeletConfiguration
	// ExtraUserData is the KCNodeClass's own script, run before the node joins.
	ExtraUserData string
}

var script = template.Must(template.New("userdata").Parse(`#!/bin/bash
# Written by karpenter-provider-kakaocloud: joins this VM to the cluster as its NodeClaim's node.
set -euo pipefail
{{- if .ExtraUserData }}

# The KCNodeClass's user data runs first.
cat > /var/lib/karpenter-extra-userdata <<'KARPENTER_EXTRA_EOF'
{{ .ExtraUserData }}
KARPENTER_EXTRA_EOF
chmod 0700 /var/lib/karpenter-extra-userdata
/var/lib/karpenter-extra-userdata
{{- end }}

mkdir -p /etc/kubernetes/pki
echo '{{ .CA }}' | base64 -d > /etc/kubernetes/pki/ca.crt
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

# The provider id is the VM's id, read from the metadata service.
INSTANCE_ID="$(curl -fsS --retry 10 http://169.254.169.254/openstack/latest/meta_data.json | sed -n 's/.*"uuid": *"\([^"]*\)".*/\1/p')"
cat > /etc/default/kubelet <<KARPENTER_EOF
KUBELET_EXTRA_ARGS="--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf --provider-id={{ .ProviderIDPrefix }}${INSTANCE_ID} --node-labels={{ .NodeLabels }} --register-with-taints={{ .RegisterTaints }}{{ .KubeletFlags }}"
KARPENTER_EOF
systemctl daemon-reload
systemctl enable kubelet
systemctl restart kubelet
`))

// UserData renders the join script.
func UserData(o Options) (string, error) {
	if o.Endpoint == "" || len(o.CABundle) == 0 || o.Token == "" {
		return "", fmt.Errorf("the join script needs the API server endpoint, the cluster CA and a bootstrap token")
	}
	if strings.Contains(o.ExtraUserData, "KARPENTER_EXTRA_EOF") {
		return "", fmt.Errorf("the KCNodeClass's userData may not contain the line KARPENTER_EXTRA_EOF")
	}
	var out bytes.Buffer
	err := script.Execute(&out, map[string]string{
		"ExtraUserData":    strings.TrimRight(o.ExtraUserData, "\n"),
		"CA":               base64.StdEncoding.EncodeToString(o.CABundle),
		"Endpoint":         o.Endpoint,
		"Token":            o.Token,
		"ProviderIDPrefix": kcv1.ProviderIDPrefix,
		"NodeLabels":       nodeLabels(o.Labels),
		"RegisterTaints":   registerTaints(o.Taints),
		"KubeletFlags":     kubeletFlags(o.Kubelet),
	})
	if err != nil {
		return "", err
	}
	if out.Len() > MaxUserDataBytes {
		return "", fmt.Errorf("the join script is %d bytes, over the %d KakaoCloud allows once encoded: shorten the KCNodeClass's userData", out.Len(), MaxUserDataBytes)
	}
	return out.String(), nil
}

// nodeLabels renders --node-labels; keys in the kubernetes.io domains the kubelet may not set
// itself are left to the controller, which syncs them at registration.
func nodeLabels(labels map[string]string) string {
	var pairs []string
	for k, v := range labels {
		if kubeletMaySet(k) {
			pairs = append(pairs, k+"="+v)
		}
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
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

func registerTaints(taints []corev1.Taint) string {
	parts := make([]string, 0, len(taints))
	for _, t := range taints {
		parts = append(parts, t.ToString())
	}
	return strings.Join(parts, ",")
}

// kubeletFlags renders the KCNodeClass's kubelet settings as flags.
func kubeletFlags(k *kcv1.KubeletConfiguration) string {
	if k == nil {
		return ""
	}
	var b strings.Builder
	if k.MaxPods != nil {
		fmt.Fprintf(&b, " --max-pods=%d", *k.MaxPods)
	}
	if k.PodsPerCore != nil {
		fmt.Fprintf(&b, " --pods-per-core=%d", *k.PodsPerCore)
	}
	if len(k.ClusterDNS) > 0 {
		fmt.Fprintf(&b, " --cluster-dns=%s", strings.Join(k.ClusterDNS, ","))
	}
	grace := map[string]string{}
	for signal, d := range k.EvictionSoftGracePeriod {
		grace[signal] = d.Duration.String()
	}
	for _, f := range []struct {
		flag   string
		values map[string]string
		sep    string
	}{
		{"--kube-reserved", k.KubeReserved, "="},
		{"--system-reserved", k.SystemReserved, "="},
		{"--eviction-hard", k.EvictionHard, "<"},
		{"--eviction-soft", k.EvictionSoft, "<"},
		{"--eviction-soft-grace-period", grace, "="},
	} {
		if len(f.values) > 0 {
			fmt.Fprintf(&b, " %s=%s", f.flag, pairs(f.values, f.sep))
		}
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
	return b.String()
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
