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

package kubelet_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/cloudprovider"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/instancetype"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud/emulator/kubelet"
)

const (
	testCA    = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"
	testToken = "abcdef.0123456789abcdef"
	vmID      = "6f1e0a4c-2b7d-4e39-9c55-0d3b8a1f2e47"
)

// joinScript renders the user data the controller gives a VM of instance type it, listed for
// nodeClass.
func joinScript(t *testing.T, labels map[string]string, taints []corev1.Taint, nodeClass *kcv1.KCNodeClass, it *cloudprovider.InstanceType) string {
	t.Helper()
	script, err := bootstrap.UserData(bootstrap.Options{
		Endpoint: "https://10.0.0.1:6443", CABundle: []byte(testCA), Token: testToken,
		Labels: labels, Taints: taints, Kubelet: nodeClass.Spec.Kubelet, Reservations: instancetype.Reservations(nodeClass, it),
		ExtraUserData: "#!/bin/bash\nKUBELET_EXTRA_ARGS=\"--provider-id=overridden-by-the-join-script\"\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// instanceType is the instance type name as listed for nodeClass.
func instanceType(t *testing.T, nodeClass *kcv1.KCNodeClass, name string) *cloudprovider.InstanceType {
	t.Helper()
	types, err := instancetype.NewProvider(staticFlavors(emulator.DefaultCatalog().Flavors), nil, nil).List(context.Background(), nodeClass)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range types {
		if it.Name == name {
			return it
		}
	}
	t.Fatalf("no instance type %s", name)
	return nil
}

func TestParseUserDataOfTheJoinScript(t *testing.T) {
	nodeClass := &kcv1.KCNodeClass{Spec: kcv1.KCNodeClassSpec{Kubelet: &kcv1.KubeletConfiguration{
		MaxPods: ptr.To[int32](58), PodsPerCore: ptr.To[int32](4), ClusterDNS: []string{"10.96.0.10"},
		KubeReserved:            map[string]string{"cpu": "100m"},
		SystemReserved:          map[string]string{"memory": "200Mi"},
		EvictionHard:            map[string]string{"memory.available": "5%"},
		EvictionSoft:            map[string]string{"memory.available": "10%"},
		EvictionSoftGracePeriod: map[string]metav1.Duration{"memory.available": {Duration: time.Minute}},
	}}}
	script := joinScript(t,
		map[string]string{karpv1.LabelNodePool: "checkout", "team": "checkout", corev1.LabelTopologyZone: "kr-central-2-a", "kubernetes.io/role": "dropped"},
		[]corev1.Taint{{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}, karpv1.UnregisteredNoExecuteTaint},
		nodeClass, instanceType(t, nodeClass, "m2a.xlarge"))

	flags, found, err := kubelet.ParseUserData(script, vmID)
	if err != nil || !found {
		t.Fatalf("ParseUserData: found %v, %v\n%s", found, err, script)
	}
	if want := kcv1.ProviderIDPrefix + vmID; flags.ProviderID != want {
		t.Errorf("provider id %q, want %q (the metadata service's uuid)", flags.ProviderID, want)
	}
	wantLabels := map[string]string{karpv1.LabelNodePool: "checkout", "team": "checkout", corev1.LabelTopologyZone: "kr-central-2-a"}
	if !maps.Equal(flags.NodeLabels, wantLabels) {
		t.Errorf("labels %v, want %v", flags.NodeLabels, wantLabels)
	}
	wantTaints := []corev1.Taint{{Key: "dedicated", Value: "CheckoutApp", Effect: corev1.TaintEffectNoSchedule}, karpv1.UnregisteredNoExecuteTaint}
	if !slices.EqualFunc(flags.Taints, wantTaints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }) {
		t.Errorf("taints %v, want %v", flags.Taints, wantTaints)
	}
	// 4 vCPUs × 4 pods per core caps the 58 pods: the model's pods, passed as --max-pods.
	if flags.MaxPods != 16 || flags.PodsPerCore != 4 {
		t.Errorf("max pods %d, pods per core %d", flags.MaxPods, flags.PodsPerCore)
	}
	// The node class's reservations, with the model's defaults for what it does not name, and
	// every hard eviction signal, so that the kubelet sets none of them to zero.
	wantEviction := map[string]string{
		"memory.available": "5%", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%",
	}
	if !maps.Equal(flags.KubeReserved, map[string]string{"cpu": "100m", "memory": "431Mi", "ephemeral-storage": "1Gi"}) ||
		!maps.Equal(flags.SystemReserved, map[string]string{"memory": "200Mi"}) ||
		!maps.Equal(flags.EvictionHard, wantEviction) {
		t.Errorf("reserved %v, %v, eviction %v", flags.KubeReserved, flags.SystemReserved, flags.EvictionHard)
	}
	if flags.BootstrapToken != testToken {
		t.Errorf("bootstrap token %q", flags.BootstrapToken)
	}
}

func TestParseUserData(t *testing.T) {
	tests := []struct {
		name      string
		userData  string
		wantFound bool
		wantErr   string
		check     func(t *testing.T, f kubelet.Flags)
	}{
		{name: "no kubelet", userData: "#cloud-config\npackages: [htop]\n"},
		{name: "empty", userData: ""},
		{
			name:      "space-separated values, $VAR form, single quotes",
			userData:  "KUBELET_EXTRA_ARGS='--provider-id kakaocloud://$INSTANCE_ID --hostname-override Worker-1 --node-labels a=1,b=2'\n",
			wantFound: true,
			check: func(t *testing.T, f kubelet.Flags) {
				if f.ProviderID != "kakaocloud://"+vmID || f.HostnameOverride != "Worker-1" || !maps.Equal(f.NodeLabels, map[string]string{"a": "1", "b": "2"}) {
					t.Errorf("%+v", f)
				}
			},
		},
		{
			name:      "unknown flags are the kubelet's business",
			userData:  `KUBELET_EXTRA_ARGS="--v=2 --cluster-dns=10.96.0.10 --provider-id=kakaocloud://x"`,
			wantFound: true,
			check: func(t *testing.T, f kubelet.Flags) {
				if f.ProviderID != "kakaocloud://x" {
					t.Errorf("%+v", f)
				}
			},
		},
		{
			name:      "taint without value, empty lists",
			userData:  `KUBELET_EXTRA_ARGS="--register-with-taints=karpenter.sh/unregistered:NoExecute --node-labels="`,
			wantFound: true,
			check: func(t *testing.T, f kubelet.Flags) {
				if len(f.Taints) != 1 || f.Taints[0] != karpv1.UnregisteredNoExecuteTaint || len(f.NodeLabels) != 0 {
					t.Errorf("%+v", f)
				}
			},
		},
		{name: "bad taint effect", userData: `KUBELET_EXTRA_ARGS="--register-with-taints=a=b:Sometimes"`, wantFound: true, wantErr: `unknown effect "Sometimes"`},
		{name: "taint without effect", userData: `KUBELET_EXTRA_ARGS="--register-with-taints=a=b"`, wantFound: true, wantErr: "has no effect"},
		{name: "taint without key", userData: `KUBELET_EXTRA_ARGS="--register-with-taints==b:NoSchedule"`, wantFound: true, wantErr: "has no key"},
		{name: "label without value", userData: `KUBELET_EXTRA_ARGS="--node-labels=team"`, wantFound: true, wantErr: `"team" is not key=value`},
		{name: "max pods not a number", userData: `KUBELET_EXTRA_ARGS="--max-pods=many"`, wantFound: true, wantErr: "--max-pods"},
		{name: "not a flag", userData: `KUBELET_EXTRA_ARGS="provider-id"`, wantFound: true, wantErr: "is not a flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags, found, err := kubelet.ParseUserData(tt.userData, vmID)
			if found != tt.wantFound {
				t.Errorf("found %v, want %v", found, tt.wantFound)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one with %q", err, tt.wantErr)
			}
			if tt.check != nil && err == nil {
				tt.check(t, flags)
			}
		})
	}
}

func FuzzParseUserData(f *testing.F) {
	f.Add(`KUBELET_EXTRA_ARGS="--provider-id=kakaocloud://${INSTANCE_ID} --node-labels=a=b --register-with-taints=k=v:NoSchedule --max-pods=3"`)
	f.Add("token: abcdef.0123456789abcdef\nKUBELET_EXTRA_ARGS=--eviction-hard=memory.available<1Gi\n")
	f.Fuzz(func(t *testing.T, userData string) {
		flags, found, err := kubelet.ParseUserData(userData, vmID)
		if !found && err != nil {
			t.Errorf("an error without kubelet flags: %v", err)
		}
		for _, taint := range flags.Taints {
			if taint.Key == "" {
				t.Errorf("a taint without key from %q", userData)
			}
		}
	})
}
